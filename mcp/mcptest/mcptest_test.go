package mcptest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/mcp/mcptest"
	"github.com/bridle-dev/bridle/tool"
)

func TestConnAfterClose(t *testing.T) {
	s := mcp.NewServer("s", "1", nil)
	s.AddTools(tool.New("ok", "Says ok.", tool.Read, func(context.Context, struct{}) (string, error) { return "ok", nil }))
	c, err := mcptest.Connect(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := c.Handle(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil || !strings.Contains(string(out), `"result":{}`) {
		t.Fatalf("ping = %s, %v", out, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("a second Close = %v", err)
	}
	if out, err := c.Handle(t.Context(), []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)); !errors.Is(err, mcptest.ErrClosed) {
		t.Errorf("Handle after Close = %s, %v; want ErrClosed", out, err)
	}
	// The server itself goes on: a new connection works.
	c2, err := mcptest.Connect(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if out, err := c2.Handle(t.Context(), []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ok","arguments":{}}}`)); err != nil || !strings.Contains(string(out), `"text":"ok"`) {
		t.Errorf("a call on a new connection = %s, %v", out, err)
	}
}

func TestHandleAnswersLinesThatAreNotMessages(t *testing.T) {
	c, err := mcptest.Connect(t.Context(), mcp.NewServer("s", "1", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tt := range []struct{ line, want string }{
		{`{"jsonrpc":`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not valid JSON"}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} more`, `"code":-32700`},
		{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, `"id":5,"error":{"code":-32600`},
	} {
		out, err := c.Handle(t.Context(), []byte(tt.line))
		if err != nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("Handle(%s) = %s, %v; want %s", tt.line, out, err, tt.want)
		}
	}
}
