package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/tool"
)

// connectSDK connects a session to a bare SDK server through the in-memory
// transport, for cases our own server would never produce.
func connectSDK(t testing.TB, srv *sdk.Server, opts *ClientOptions) *Session {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := settle("mem", opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := connect(t.Context(), "mem", ct, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		ss.Close()
	})
	return s
}

func findTool(t testing.TB, tools []tool.Tool, name string) tool.Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Name == name {
			return tl
		}
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	t.Fatalf("no tool %q among %v", name, names)
	return tool.Tool{}
}

// callTool lists the session's tools and calls one with JSON args.
func callTool(t testing.TB, s *Session, name, args string) (string, error) {
	t.Helper()
	tools, err := s.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return findTool(t, tools, name).Call(t.Context(), json.RawMessage(args))
}

func TestToolResultsBecomeText(t *testing.T) {
	tests := []struct {
		name    string
		result  *sdk.CallToolResult
		err     error // returned by the handler: a protocol error
		want    string
		wantErr string
	}{
		{
			name:   "text contents are joined with newlines",
			result: &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "one"}, &sdk.TextContent{Text: "two"}}},
			want:   "one\ntwo",
		},
		{
			name:   "an image is described, not dropped",
			result: &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "here:"}, &sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)}}},
			want:   "here:\n[image image/png, 1234 bytes]",
		},
		{
			name:   "audio is described",
			result: &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")}}},
			want:   "[audio audio/wav, 4 bytes]",
		},
		{
			name: "an embedded text resource gives its text",
			result: &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
				URI: "file:///a.md", MIMEType: "text/markdown", Text: "# A"}}}},
			want: "# A",
		},
		{
			name: "an embedded binary resource is described",
			result: &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
				URI: "file:///a.bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2, 3}}}}},
			want: "[resource file:///a.bin application/octet-stream, 3 bytes]",
		},
		{
			name: "a resource link is described",
			result: &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{
				URI: "file:///notes/a.md", Name: "a.md", MIMEType: "text/markdown"}}},
			want: "[resource link file:///notes/a.md (a.md, text/markdown)]",
		},
		{
			name:   "structured content stands in when there is no text",
			result: &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"sum": 3}},
			want:   `{"sum":3}`,
		},
		{
			name: "text wins over structured content",
			result: &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "3"}},
				StructuredContent: map[string]any{"sum": 3}},
			want: "3",
		},
		{
			name:   "an empty result is empty text",
			result: &sdk.CallToolResult{},
			want:   "",
		},
		{
			name:    "an error result is an error with the server's message",
			result:  &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no such note: x"}}},
			wantErr: "no such note: x",
		},
		{
			name:    "an error result without text still says it failed",
			result:  &sdk.CallToolResult{IsError: true},
			wantErr: "tool t failed and the server gave no message",
		},
		{
			name:    "a protocol error names the server and the tool",
			err:     errors.New("database is locked"),
			wantErr: `mcp server "mem": calling tool "t": calling "tools/call": database is locked`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := sdk.NewServer(&sdk.Implementation{Name: "results", Version: "v1"}, nil)
			srv.AddTool(&sdk.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return tt.result, tt.err
				})
			s := connectSDK(t, srv, nil)
			got, err := callTool(t, s, "t", "{}")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("call = %q, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("call = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestRisksFromAnnotations(t *testing.T) {
	f, tr := false, true
	anns := map[string]*sdk.ToolAnnotations{
		"plain":      nil,
		"read":       {ReadOnlyHint: true},
		"additive":   {DestructiveHint: &f},
		"closed":     {OpenWorldHint: &f},
		"gentle":     {DestructiveHint: &f, OpenWorldHint: &f},
		"destroys":   {DestructiveHint: &tr, OpenWorldHint: &tr},
		"overridden": {ReadOnlyHint: true},
	}
	tests := []struct {
		name string
		opts *ClientOptions
		want map[string]tool.Risk
	}{
		{
			name: "by default only read-only tools are Read and the rest Exec",
			want: map[string]tool.Risk{"plain": tool.Exec, "read": tool.Read, "additive": tool.Exec, "closed": tool.Exec, "gentle": tool.Exec, "destroys": tool.Exec, "overridden": tool.Read},
		},
		{
			name: "trusted hints make closed-world tools Write and leave open-world ones Exec",
			opts: &ClientOptions{Hints: HintsTrusted},
			want: map[string]tool.Risk{"plain": tool.Exec, "read": tool.Read, "additive": tool.Exec, "closed": tool.Write, "gentle": tool.Write, "destroys": tool.Exec, "overridden": tool.Read},
		},
		{
			name: "ignored hints make every tool Exec",
			opts: &ClientOptions{Hints: HintsIgnored},
			want: map[string]tool.Risk{"plain": tool.Exec, "read": tool.Exec, "additive": tool.Exec, "closed": tool.Exec, "gentle": tool.Exec, "destroys": tool.Exec, "overridden": tool.Exec},
		},
		{
			name: "a per-tool risk wins over the hints",
			opts: &ClientOptions{Hints: HintsIgnored, Risks: map[string]tool.Risk{"overridden": tool.Write, "plain": tool.Read}},
			want: map[string]tool.Risk{"plain": tool.Read, "read": tool.Exec, "additive": tool.Exec, "closed": tool.Exec, "gentle": tool.Exec, "destroys": tool.Exec, "overridden": tool.Write},
		},
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "risks", Version: "v1"}, nil)
	for name, a := range anns {
		srv.AddTool(&sdk.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, Annotations: a},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return nil, nil })
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := connectSDK(t, srv, tt.opts)
			tools, err := s.Tools(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) != len(tt.want) {
				t.Errorf("got %d tools, want %d", len(tools), len(tt.want))
			}
			for _, tl := range tools {
				if tl.Risk != tt.want[tl.Name] {
					t.Errorf("%s: risk %v, want %v", tl.Name, tl.Risk, tt.want[tl.Name])
				}
			}
		})
	}
}

func TestBadOptionsAreRefused(t *testing.T) {
	tests := []struct {
		name    string
		session string
		opts    *ClientOptions
		want    string
	}{
		{"an unknown hint policy", "x", &ClientOptions{Hints: 7}, "unknown hint policy 7"},
		{"an unknown risk for a tool", "x", &ClientOptions{Risks: map[string]tool.Risk{"t": 9}}, `tool "t" has unknown risk 9`},
		{"an empty session name", "", nil, "mcp server name is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused by every way to connect", func(t *testing.T) {
			errs := map[string]error{}
			_, errs["in-process"] = ConnectInProcess(t.Context(), tt.session, roundTripServer(), tt.opts)
			_, errs["command"] = ConnectCommand(t.Context(), tt.session, Command{Path: "true"}, tt.opts)
			_, errs["http"] = ConnectHTTP(t.Context(), tt.session, HTTP{URL: "http://127.0.0.1:1/mcp"}, tt.opts)
			for way, err := range errs {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: %v, want an error containing %q", way, err, tt.want)
				}
			}
		})
	}
}

func TestToolsKeepTheServersSchemaAndValidate(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "schema", Version: "v1"}, nil)
	schema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
		"required":   []any{"a", "b"},
	}
	calls := 0
	srv.AddTool(&sdk.Tool{Name: "add", Description: "Adds two numbers.", InputSchema: schema},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			calls++
			var in struct{ A, B int }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil
		})
	// A name MCP allows but model providers refuse is left out, not fatal.
	srv.AddTool(&sdk.Tool{Name: "has.dot", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return nil, nil })
	s := connectSDK(t, srv, nil)
	tools, err := s.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 {
		t.Fatalf("got %d tools, want only add", len(tools))
	}
	add := tools[0]
	if add.Description != "Adds two numbers." {
		t.Errorf("description %q", add.Description)
	}
	var got map[string]any
	if err := json.Unmarshal(add.Schema, &got); err != nil || got["required"] == nil {
		t.Errorf("schema %s lost its required list (%v)", add.Schema, err)
	}
	if out, err := add.Call(t.Context(), json.RawMessage(`{"a":2,"b":3}`)); err != nil || out != "5" {
		t.Errorf("add(2,3) = %q, %v", out, err)
	}
	_, err = add.Call(t.Context(), json.RawMessage(`{"a":2}`))
	if !errors.Is(err, tool.ErrInvalidArgs) || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("add(2) = %v, want invalid arguments naming b", err)
	}
	if calls != 1 {
		t.Errorf("server saw %d calls, want 1 (bad arguments stop at the client)", calls)
	}
}

func TestResources(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "res", Version: "v1"}, &sdk.ServerOptions{PageSize: 2})
	read := func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		uri := req.Params.URI
		switch {
		case strings.HasSuffix(uri, ".bin"):
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/octet-stream", Blob: make([]byte, 10)}}}, nil
		case strings.HasSuffix(uri, "missing.txt"):
			return nil, sdk.ResourceNotFoundError(uri)
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "text of " + uri}}}, nil
	}
	for i := range 5 {
		srv.AddResource(&sdk.Resource{URI: fmt.Sprintf("test://r/%d.txt", i), Name: fmt.Sprintf("r%d", i), MIMEType: "text/plain"}, read)
	}
	srv.AddResource(&sdk.Resource{URI: "test://r/blob.bin", Name: "blob", Description: "Ten zero bytes.", MIMEType: "application/octet-stream"}, read)
	srv.AddResource(&sdk.Resource{URI: "test://r/missing.txt", Name: "missing"}, read)
	s := connectSDK(t, srv, nil)

	t.Run("listing follows every page", func(t *testing.T) {
		rs, err := s.Resources(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 7 {
			t.Fatalf("got %d resources, want 7: %+v", len(rs), rs)
		}
		for _, r := range rs {
			if r.Name == "blob" && (r.Description != "Ten zero bytes." || r.MIMEType != "application/octet-stream") {
				t.Errorf("blob listed as %+v", r)
			}
		}
	})
	tests := []struct {
		name, uri, want, wantErr string
	}{
		{"a text resource reads as its text", "test://r/3.txt", "text of test://r/3.txt", ""},
		{"a binary resource is described", "test://r/blob.bin", "[resource test://r/blob.bin application/octet-stream, 10 bytes]", ""},
		{"a missing resource names the server and the URI", "test://r/missing.txt", "", `mcp server "mem": reading resource "test://r/missing.txt"`},
		{"an empty URI says what to pass", "", "", "resource URI is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ReadResource(t.Context(), tt.uri)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("ReadResource(%q) = %q, %v; want error containing %q", tt.uri, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ReadResource(%q) = %q, %v; want %q", tt.uri, got, err, tt.want)
			}
		})
	}
}

func TestCallsHonourTheCallersContext(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "v1"}, nil)
	started := make(chan struct{})
	srv.AddTool(&sdk.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s := connectSDK(t, srv, nil)
	tools, err := s.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	_, err = tools[0].Call(ctx, nil)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), `mcp server "mem"`) {
		t.Errorf("cancelled call = %v, want context.Canceled naming the server", err)
	}
}

func TestServerWithoutToolsOrResources(t *testing.T) {
	s := connectSDK(t, sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "v1"}, nil), nil)
	tools, err := s.Tools(t.Context())
	if err != nil || len(tools) != 0 {
		t.Errorf("Tools() = %v, %v; want none", tools, err)
	}
	rs, err := s.Resources(t.Context())
	if err != nil || len(rs) != 0 {
		t.Errorf("Resources() = %v, %v; want none", rs, err)
	}
}

func TestCloseDoesNotWaitForeverForCalls(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "stuck", Version: "v1"}, nil)
	started := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	srv.AddTool(&sdk.Tool{Name: "stuck", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			close(started)
			<-release // ignores cancellation, like a stuck server
			return &sdk.CallToolResult{}, nil
		})
	s := connectSDK(t, srv, &ClientOptions{CloseTimeout: time.Millisecond})
	tools, err := s.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan error, 1)
	go func() {
		_, err := tools[0].Call(context.Background(), nil)
		called <- err
	}()
	<-started
	if err := s.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	err = <-called
	if err == nil || !strings.Contains(err.Error(), `mcp server "mem": calling tool "stuck"`) {
		t.Errorf("call cut by Close = %v", err)
	}
}

// FuzzStderrTail feeds a server's stderr, which is untrusted, to the tail
// that error messages quote.
func FuzzStderrTail(f *testing.F) {
	f.Add([]byte("starting\npanic: boom\n"), 3)
	f.Add([]byte(strings.Repeat("é", 400)), 7)
	f.Add([]byte("\n\n\r\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, chunk int) {
		if chunk <= 0 {
			chunk = 1
		}
		var tl tail
		for rest := data; len(rest) > 0; {
			n := min(chunk, len(rest))
			tl.add(rest[:n])
			rest = rest[n:]
		}
		line := tl.lastLine()
		if len(line) > tailLineMax+len("…") {
			t.Errorf("line of %d bytes", len(line))
		}
		if strings.ContainsAny(line, "\n") {
			t.Errorf("line %q holds a newline", line)
		}
		if utf8.ValidString(string(data)) && len(data) <= tailKeep && !utf8.ValidString(line) {
			t.Errorf("line %q is not valid UTF-8", line)
		}
	})
}
