package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/tool"
)

// roundTripTools are served and received in the round-trip tests: one of
// each risk, one that fails, one that panics.
func roundTripTools() []tool.Tool {
	type addIn struct {
		A int `json:"a" jsonschema:"the first number"`
		B int `json:"b" jsonschema:"the second number"`
	}
	type noteIn struct {
		Title string `json:"title" jsonschema:"the note's title"`
	}
	return []tool.Tool{
		tool.New("add", "Adds two numbers.", tool.Read, func(_ context.Context, in addIn) (string, error) {
			return fmt.Sprint(in.A + in.B), nil
		}),
		tool.New("delete_note", "Deletes a note.", tool.Write, func(_ context.Context, in noteIn) (string, error) {
			if in.Title == "" {
				return "", errors.New("title is empty: give the title of a note")
			}
			return "", fmt.Errorf("no note is titled %q", in.Title)
		}),
		tool.New("explode", "Panics.", tool.Exec, func(context.Context, struct{}) (string, error) {
			panic("kaboom")
		}),
		tool.New("lines", "Returns lines.", tool.Read, func(context.Context, struct{}) (string, error) {
			return "first line\nsecond line\n", nil
		}),
	}
}

// roundTripServer is our server holding roundTripTools and a resource.
func roundTripServer() *Server {
	s := NewServer("roundtrip", "v1.0.0", &ServerOptions{Instructions: "Use add for sums."})
	s.AddTools(roundTripTools()...)
	s.AddResources(Resource{
		URI: "notes://index", Name: "index", Description: "All notes.", MIMEType: "text/markdown",
		Read: func(context.Context) (string, error) { return "# Notes\n- a\n- b", nil },
	})
	return s
}

func init() {
	helperServers["bridle"] = func() error { return roundTripServer().ServeStdio(context.Background()) }
}

// TestSameToolThreeWays runs each tool directly, served in-process and
// served over stdio, and expects the same text and the same error.
func TestSameToolThreeWays(t *testing.T) {
	ctx := t.Context()
	direct := map[string]tool.Tool{}
	for _, tl := range roundTripTools() {
		direct[tl.Name] = tl
	}
	inproc, err := ConnectInProcess(ctx, "roundtrip", roundTripServer(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inproc.Close()
	ways := []struct {
		name  string
		tools map[string]tool.Tool
	}{
		{"directly", direct},
		{"in-process", toolMap(t, inproc)},
	}
	if runtime.GOOS != "windows" {
		stdio, err := ConnectCommand(ctx, "roundtrip", helperCommand(t, "bridle"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer stdio.Close()
		ways = append(ways, struct {
			name  string
			tools map[string]tool.Tool
		}{"over stdio", toolMap(t, stdio)})
	}

	tests := []struct {
		name, tool, args string
		want, wantErr    string
	}{
		{"a sum comes back as text", "add", `{"a":2,"b":40}`, "42", ""},
		{"text keeps its newlines", "lines", `{}`, "first line\nsecond line\n", ""},
		{"empty arguments mean an empty object", "lines", ``, "first line\nsecond line\n", ""},
		{"a tool's error comes back as the same error", "delete_note", `{"title":"x"}`, "", `no note is titled "x"`},
		{"a missing argument is named", "add", `{"a":2}`, "", `invalid arguments: missing required argument "b"`},
		{"a wrong type is named", "add", `{"a":2,"b":"two"}`, "", `invalid arguments: argument "b" must be an integer, not a string`},
		{"arguments that are not an object are refused", "add", `[1,2]`, "", "invalid arguments: arguments must be a JSON object, not an array"},
		{"a panic becomes the same error", "explode", `{}`, "", "tool explode panicked: kaboom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, w := range ways {
				tl, ok := w.tools[tt.tool]
				if !ok {
					t.Fatalf("%s: no tool %q", w.name, tt.tool)
				}
				got, err := tl.Call(t.Context(), json.RawMessage(tt.args))
				gotErr := ""
				if err != nil {
					gotErr = err.Error()
				}
				if got != tt.want || gotErr != tt.wantErr {
					t.Errorf("%s: %s(%s) = %q, %q; want %q, %q", w.name, tt.tool, tt.args, got, gotErr, tt.want, tt.wantErr)
				}
			}
		})
	}
}

// TestServerValidatesWhatTheClientSkips sends arguments straight to the
// server, bypassing the client's own check, and gets the same message.
func TestServerValidatesWhatTheClientSkips(t *testing.T) {
	s, err := ConnectInProcess(t.Context(), "roundtrip", roundTripServer(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := toolMap(t, s)["add"]
	_, err = add.Func(t.Context(), json.RawMessage(`{"a":2}`))
	want := `invalid arguments: missing required argument "b"`
	if err == nil || err.Error() != want {
		t.Errorf("add.Func({a:2}) = %v, want %q", err, want)
	}
}

func TestInProcessRoundTrip(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name  string
		opts  *ClientOptions
		risks map[string]tool.Risk
	}{
		{"default hints keep Read and make the rest Exec", nil,
			map[string]tool.Risk{"add": tool.Read, "lines": tool.Read, "delete_note": tool.Exec, "explode": tool.Exec}},
		{"trusted hints give back every risk the server announced", &ClientOptions{Hints: HintsTrusted},
			map[string]tool.Risk{"add": tool.Read, "lines": tool.Read, "delete_note": tool.Write, "explode": tool.Exec}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ConnectInProcess(ctx, "notes", roundTripServer(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Name() != "notes" || s.Instructions() != "Use add for sums." {
				t.Errorf("Name, Instructions = %q, %q", s.Name(), s.Instructions())
			}
			tools := toolMap(t, s)
			if len(tools) != len(tt.risks) {
				t.Errorf("got %d tools, want %d", len(tools), len(tt.risks))
			}
			for name, want := range tt.risks {
				if got := tools[name].Risk; got != want {
					t.Errorf("%s: risk %v, want %v", name, got, want)
				}
			}
			var schema struct {
				Properties map[string]struct{ Description string }
			}
			if err := json.Unmarshal(tools["add"].Schema, &schema); err != nil || schema.Properties["a"].Description != "the first number" {
				t.Errorf("add schema %s lost its descriptions (%v)", tools["add"].Schema, err)
			}
			if d := tools["add"].Description; d != "Adds two numbers." {
				t.Errorf("add description %q", d)
			}
			rs, err := s.Resources(ctx)
			if err != nil || len(rs) != 1 {
				t.Fatalf("Resources() = %+v, %v", rs, err)
			}
			want := ResourceInfo{URI: "notes://index", Name: "index", Description: "All notes.", MIMEType: "text/markdown"}
			if rs[0] != want {
				t.Errorf("resource %+v, want %+v", rs[0], want)
			}
			text, err := s.ReadResource(ctx, "notes://index")
			if err != nil || text != "# Notes\n- a\n- b" {
				t.Errorf("ReadResource = %q, %v", text, err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close() = %v", err)
			}
			if _, err := tools["add"].Call(ctx, json.RawMessage(`{"a":1,"b":1}`)); err == nil {
				t.Error("a tool of a closed session still answers")
			}
		})
	}
}

func TestConnectInProcessRefusesNil(t *testing.T) {
	if _, err := ConnectInProcess(t.Context(), "x", nil, nil); err == nil {
		t.Error("ConnectInProcess(nil) gave no error")
	}
}

func toolMap(t testing.TB, s *Session) map[string]tool.Tool {
	t.Helper()
	tools, err := s.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]tool.Tool{}
	for _, tl := range tools {
		m[tl.Name] = tl
	}
	return m
}

func TestInProcessCloseDoesNotWaitForAStuckTool(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	srv := NewServer("stuck", "v1", nil)
	srv.AddTools(tool.New("stuck", "Never returns.", tool.Read, func(context.Context, struct{}) (string, error) {
		close(started)
		<-release // ignores cancellation
		return "", nil
	}))
	s, err := ConnectInProcess(t.Context(), "stuck", srv, &ClientOptions{CloseTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	stuck := toolMap(t, s)["stuck"]
	called := make(chan error, 1)
	go func() {
		_, err := stuck.Call(context.Background(), nil)
		called <- err
	}()
	<-started
	if err := s.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if err := <-called; err == nil {
		t.Error("the stuck call did not fail when the session closed")
	}
}
