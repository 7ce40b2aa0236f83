//go:build unix

package mcp

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/internal/peers"
	"github.com/bridle-dev/bridle/tool"
)

// TestServerEverything runs our client against the reference server from
// npm over stdio.
func TestServerEverything(t *testing.T) {
	node := peers.Node(t)
	entry := peers.Path(t, "@modelcontextprotocol/server-everything/dist/index.js")
	ctx := t.Context()
	var stderr bytes.Buffer
	logs := &countHandler{}
	// server-everything does not exit when its stdin closes: Close has to
	// signal it, so keep the grace period short.
	s, err := ConnectCommand(ctx, "everything", Command{Path: node, Args: []string{entry, "stdio"}, Stderr: &stderr},
		&ClientOptions{CloseTimeout: 200 * time.Millisecond, Hints: HintsTrusted, Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close() = %v", err)
		}
		assertReaped(t, s)
		t.Logf("server stderr: %d bytes", stderr.Len())
	}()
	if s.Instructions() == "" {
		t.Error("no instructions from server-everything")
	}

	tools := toolMap(t, s)
	t.Logf("%d tools", len(tools))
	if n := logs.count("mcp server tool left out"); n > 0 {
		t.Errorf("%d of server-everything's tools were left out", n)
	}
	want := map[string]tool.Risk{
		"echo":                      tool.Read,
		"get-sum":                   tool.Read,
		"get-env":                   tool.Read,
		"get-tiny-image":            tool.Read,
		"toggle-simulated-logging":  tool.Write, // closed world, trusted
		"gzip-file-as-resource":     tool.Exec,  // reaches the network
		"get-structured-content":    tool.Read,
		"get-resource-links":        tool.Read,
		"toggle-subscriber-updates": tool.Write,
	}
	for name, risk := range want {
		tl, ok := tools[name]
		if !ok {
			t.Errorf("server-everything has no tool %q", name)
			continue
		}
		if tl.Risk != risk {
			t.Errorf("%s: risk %v, want %v", name, tl.Risk, risk)
		}
	}

	calls := []struct {
		name, tool, args string
		check            func(out string) bool
	}{
		{"echo says the message back", "echo", `{"message":"hello from bridle"}`,
			func(out string) bool { return out == "Echo: hello from bridle" }},
		{"get-sum adds", "get-sum", `{"a":2,"b":40}`,
			func(out string) bool { return strings.Contains(out, "42") }},
		{"an image is described", "get-tiny-image", `{}`,
			func(out string) bool { return strings.Contains(out, "[image image/png, ") }},
		{"structured content comes back", "get-structured-content", `{"location":"Chicago"}`,
			func(out string) bool { return strings.Contains(out, "temperature") }},
		{"resource links are described", "get-resource-links", `{"count":2}`,
			func(out string) bool { return strings.Count(out, "[resource link ") == 2 }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			tl, ok := tools[c.tool]
			if !ok {
				t.Skipf("no tool %q", c.tool)
			}
			out, err := tl.Call(ctx, json.RawMessage(c.args))
			if err != nil {
				t.Fatalf("%s(%s): %v", c.tool, c.args, err)
			}
			t.Logf("%s: %q", c.tool, out)
			if !c.check(out) {
				t.Errorf("%s(%s) = %q", c.tool, c.args, out)
			}
		})
	}
	t.Run("a missing argument stops at the client", func(t *testing.T) {
		_, err := tools["get-sum"].Call(ctx, json.RawMessage(`{"a":1}`))
		if err == nil || !strings.Contains(err.Error(), `missing required argument "b"`) {
			t.Errorf("get-sum({a:1}) = %v", err)
		}
	})
	t.Run("resources list and read", func(t *testing.T) {
		rs, err := s.Resources(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 {
			t.Fatal("no resources")
		}
		text, err := s.ReadResource(ctx, rs[0].URI)
		if err != nil || text == "" {
			t.Errorf("ReadResource(%s) = %q, %v", rs[0].URI, text, err)
		}
	})
}
