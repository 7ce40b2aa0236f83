package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/mcp/mcptest"
	"github.com/bridle-dev/bridle/tool"
)

// reply is a JSON-RPC response as a client reads it.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// connect opens an mcptest connection to s, closed when the test ends.
func connect(t *testing.T, s *mcp.Server) *mcptest.Conn {
	t.Helper()
	c, err := mcptest.Connect(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func handle(t *testing.T, c *mcptest.Conn, line string) reply {
	t.Helper()
	out, err := c.Handle(t.Context(), []byte(line))
	if err != nil {
		t.Fatalf("Handle(%s): %v", line, err)
	}
	var r reply
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("Handle(%s) gave %q: %v", line, out, err)
	}
	if r.JSONRPC != "2.0" {
		t.Errorf("Handle(%s) gave %s: no jsonrpc 2.0", line, out)
	}
	return r
}

// handleResult sends line and decodes the result into v, failing on a
// JSON-RPC error.
func handleResult(t *testing.T, c *mcptest.Conn, line string, v any) {
	t.Helper()
	r := handle(t, c, line)
	if r.Error != nil {
		t.Fatalf("Handle(%s): error %d %s", line, r.Error.Code, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		t.Fatalf("Handle(%s): result %s: %v", line, r.Result, err)
	}
}

// toolResult is a tools/call result reduced to its one text content.
type toolResult struct {
	Text    string
	IsError bool
}

func callText(t *testing.T, c *mcptest.Conn, name, args string) toolResult {
	t.Helper()
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	handleResult(t, c, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, name, args), &res)
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		t.Fatalf("tools/call %s gave content %+v, want one text", name, res.Content)
	}
	return toolResult{res.Content[0].Text, res.IsError}
}

func TestHandleListsToolsWithAnnotationsForTheirRisk(t *testing.T) {
	var res struct {
		Tools []struct {
			Name        string
			Description string
			InputSchema map[string]any
			Annotations map[string]any
		}
	}
	handleResult(t, connect(t, mcp.FixtureServer()), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, &res)
	got := map[string]map[string]any{}
	for _, tl := range res.Tools {
		got[tl.Name] = tl.Annotations
		if tl.InputSchema["type"] != "object" {
			t.Errorf("%s: schema %v is not an object schema", tl.Name, tl.InputSchema)
		}
	}
	tests := []struct {
		name, tool string
		want       map[string]any
	}{
		{"a read tool is read-only", "echo", map[string]any{"readOnlyHint": true, "idempotentHint": false}},
		{"a write tool is destructive and closed-world", "save_note", map[string]any{
			"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false, "idempotentHint": false}},
		{"an exec tool is only not read-only", "run_command", map[string]any{"readOnlyHint": false, "idempotentHint": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(got[tt.tool], tt.want) {
				t.Errorf("annotations of %s = %v, want %v", tt.tool, got[tt.tool], tt.want)
			}
		})
	}
	if len(res.Tools) != len(mcp.FixtureTools()) {
		t.Errorf("listed %d tools, want %d", len(res.Tools), len(mcp.FixtureTools()))
	}
}

func TestHandleCallsTools(t *testing.T) {
	c := connect(t, mcp.FixtureServer())
	tests := []struct {
		name, tool, args string
		want             toolResult
		contains         []string // when set, want.Text is not compared
	}{
		{"a call returns the tool's text", "echo", `{"text":"hi","times":2}`, toolResult{Text: "hihi"}, nil},
		{"a write tool runs", "save_note", `{"title":"a","body":"b"}`, toolResult{Text: `saved "a"`}, nil},
		{"a tool's error is a failed call with its message", "fail", `{}`,
			toolResult{Text: "the disk is full: free some space and retry", IsError: true}, nil},
		{"a missing argument is a failed call naming it", "echo", `{}`,
			toolResult{IsError: true}, []string{"invalid arguments", `"text"`}},
		{"a wrong type is a failed call naming the field", "echo", `{"text":"x","times":"many"}`,
			toolResult{IsError: true}, []string{`"times"`, "integer"}},
		{"arguments that are not an object are refused", "echo", `[1,2]`,
			toolResult{IsError: true}, []string{"invalid arguments"}},
		{"a panic is a failed call", "explode", `{}`,
			toolResult{IsError: true}, []string{"explode", "panicked", "kaboom"}},
		{"missing arguments mean an empty object", "fail", `null`,
			toolResult{Text: "the disk is full: free some space and retry", IsError: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := callText(t, c, tt.tool, tt.args)
			if got.IsError != tt.want.IsError {
				t.Errorf("isError = %v, want %v (text %q)", got.IsError, tt.want.IsError, got.Text)
			}
			if tt.contains == nil && got.Text != tt.want.Text {
				t.Errorf("text = %q, want %q", got.Text, tt.want.Text)
			}
			for _, c := range tt.contains {
				if !strings.Contains(got.Text, c) {
					t.Errorf("text %q does not contain %q", got.Text, c)
				}
			}
		})
	}
}

func TestHandleAnswersLikeAServer(t *testing.T) {
	c := connect(t, mcp.FixtureServer())
	tests := []struct {
		name, line string
		id         string // the response id, as JSON
		code       int    // the error code, 0 for a result
		message    string // part of the error message
	}{
		{"a request keeps its numeric id", `{"jsonrpc":"2.0","id":41,"method":"ping"}`, `41`, 0, ""},
		{"a request keeps its string id", `{"jsonrpc":"2.0","id":"abc","method":"ping"}`, `"abc"`, 0, ""},
		{"an unknown tool is a protocol error", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}}`,
			`2`, -32602, "nope"},
		{"an unknown method is refused", `{"jsonrpc":"2.0","id":3,"method":"tools/dance"}`, `3`, -32601, ""},
		{"a line that is not JSON is a parse error with id null", `{"jsonrpc":`, `null`, -32700, "not valid JSON"},
		{"text after the message is a parse error", `{"jsonrpc":"2.0","id":4,"method":"ping"} more`, `null`, -32700, ""},
		{"JSON that is not a message is an invalid request", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, `5`, -32600, `"1.0"`},
		{"a batch is an invalid request", `[{"jsonrpc":"2.0","id":6,"method":"ping"}]`, `null`, -32600, ""},
		{"an id that is not a number or string is refused", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `null`, -32600, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := handle(t, c, tt.line)
			if string(r.ID) != tt.id {
				t.Errorf("id = %s, want %s", r.ID, tt.id)
			}
			switch {
			case tt.code == 0 && r.Error != nil:
				t.Errorf("error %d %s, want a result", r.Error.Code, r.Error.Message)
			case tt.code != 0 && r.Error == nil:
				t.Errorf("result %s, want error %d", r.Result, tt.code)
			case tt.code != 0 && (r.Error.Code != tt.code || !strings.Contains(r.Error.Message, tt.message)):
				t.Errorf("error %d %q, want %d containing %q", r.Error.Code, r.Error.Message, tt.code, tt.message)
			}
		})
	}
}

func TestHandleNotificationsGiveNothing(t *testing.T) {
	c := connect(t, mcp.FixtureServer())
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
		`{"jsonrpc":"2.0","id":12,"result":{}}`,
	} {
		out, err := c.Handle(t.Context(), []byte(line))
		if out != nil || err != nil {
			t.Errorf("Handle(%s) = %q, %v; want nil, nil", line, out, err)
		}
	}
	// The session still works.
	if got := callText(t, c, "echo", `{"text":"ok"}`); got.Text != "ok" {
		t.Errorf("after notifications, echo gave %+v", got)
	}
}

func TestHandleReadsResources(t *testing.T) {
	c := connect(t, mcp.FixtureServer())
	var list struct {
		Resources []struct{ URI, Name, Description, MIMEType string }
	}
	handleResult(t, c, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, &list)
	byURI := map[string]struct{ URI, Name, Description, MIMEType string }{}
	for _, r := range list.Resources {
		byURI[r.URI] = r
	}
	if r := byURI["notes://index"]; r.Name != "index" || r.Description != "Every note." || r.MIMEType != "text/markdown" {
		t.Errorf("notes://index listed as %+v", r)
	}
	if r := byURI["notes://plain"]; r.Name != "notes://plain" || r.MIMEType != "text/plain" {
		t.Errorf("defaults: notes://plain listed as %+v", r)
	}

	tests := []struct {
		name, uri, text, mime string
		errContains           string
	}{
		{"a resource reads as text with its type", "notes://index", "# Notes\n- groceries", "text/markdown", ""},
		{"the type defaults to plain text", "notes://plain", "plain text", "text/plain", ""},
		{"a failed read is an error with its message", "notes://broken", "", "", "the notes folder is gone"},
		{"a panic in Read is an error", "notes://panics", "", "", "panicked"},
		{"an unknown resource is not found", "notes://nowhere", "", "", "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := handle(t, c, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":%q}}`, tt.uri))
			if tt.errContains != "" {
				if r.Error == nil || !strings.Contains(r.Error.Message, tt.errContains) || r.Error.Code == 0 {
					t.Errorf("got %s %+v, want an error containing %q", r.Result, r.Error, tt.errContains)
				}
				return
			}
			if r.Error != nil {
				t.Fatalf("error %+v", r.Error)
			}
			var res struct {
				Contents []struct{ URI, MIMEType, Text string }
			}
			if err := json.Unmarshal(r.Result, &res); err != nil {
				t.Fatal(err)
			}
			want := []struct{ URI, MIMEType, Text string }{{tt.uri, tt.mime, tt.text}}
			if !reflect.DeepEqual(res.Contents, want) {
				t.Errorf("contents = %+v, want %+v", res.Contents, want)
			}
		})
	}
}

func TestHandleEmptyResourceIsValidForStrictClients(t *testing.T) {
	// Every item of contents must carry "text" or "blob": the TypeScript
	// SDK refuses the whole result otherwise.
	s := mcp.NewServer("empty", "v1", nil)
	s.AddResources(mcp.Resource{URI: "notes://index", Read: func(context.Context) (string, error) { return "", nil }})
	c := connect(t, s)
	r := handle(t, c, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes://index"}}`)
	if r.Error != nil {
		t.Fatalf("error %+v", r.Error)
	}
	var res struct {
		Contents []map[string]any `json:"contents"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil || res.Contents == nil {
		t.Fatalf("result %s: %v; want a contents list", r.Result, err)
	}
	for _, item := range res.Contents {
		_, text := item["text"]
		_, blob := item["blob"]
		if !text && !blob {
			t.Errorf("contents item %v has neither text nor blob", item)
		}
	}
}

func TestHandleIsSafeForConcurrentCallersWithTheSameID(t *testing.T) {
	c := connect(t, mcp.FixtureServer())
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%d"}}}`, i)
			out, err := c.Handle(context.Background(), []byte(line))
			if err != nil {
				errs <- err
				return
			}
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"%d"}]}}`, i)
			if string(out) != want {
				errs <- fmt.Errorf("call %d gave %s", i, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestHandleCancelsTheCallWhenTheContextEnds(t *testing.T) {
	s := mcp.NewServer("slow", "v1", nil)
	started, stopped := make(chan struct{}), make(chan error, 1)
	s.AddTools(tool.New("wait", "Waits to be cancelled.", tool.Read, func(ctx context.Context, _ struct{}) (string, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return "", ctx.Err()
	}))
	c := connect(t, s)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	out, err := c.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}`))
	if !errors.Is(err, context.Canceled) || out != nil {
		t.Fatalf("Handle = %q, %v; want context.Canceled", out, err)
	}
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("the tool saw %v, want its context cancelled", err)
	}
	// The session goes on.
	if r := handle(t, c, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.Error != nil {
		t.Errorf("ping after a cancelled call: %+v", r.Error)
	}
}

func TestToolsAddedLaterAreServed(t *testing.T) {
	s := mcp.FixtureServer()
	c := connect(t, s)
	ctx := t.Context()
	if _, err := c.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); err != nil {
		t.Fatal(err)
	}
	s.AddTools(tool.New("late", "Added while serving.", tool.Read, func(context.Context, struct{}) (string, error) {
		return "here", nil
	}))
	if got := callText(t, c, "late", `{}`); got.Text != "here" || got.IsError {
		t.Errorf("late tool gave %+v", got)
	}
}

func TestServerOptionsReachTheSDK(t *testing.T) {
	c := connect(t, mcp.FixtureServer())
	var res struct {
		Instructions string `json:"instructions"`
		ServerInfo   struct {
			Name, Version string
		} `json:"serverInfo"`
	}
	handleResult(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, &res)
	if res.Instructions != "Use echo to test." || res.ServerInfo.Name != "fixture" || res.ServerInfo.Version != "v0.1.0" {
		t.Errorf("initialize result = %+v", res)
	}
}
