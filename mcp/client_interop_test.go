//go:build unix

package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
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

// TestTypeScriptClientOverStdio has the official TypeScript SDK's client
// call our server over stdio, with answers that need escaping.
func TestTypeScriptClientOverStdio(t *testing.T) {
	node := peers.Node(t)
	sdkDir := peers.Path(t, "@modelcontextprotocol/sdk/dist/esm")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "client.mjs")
	code := fmt.Sprintf(`
import { Client } from %q;
import { StdioClientTransport } from %q;
const transport = new StdioClientTransport({ command: %q, env: { ...process.env, %s: "fixture" }, stderr: "inherit" });
const client = new Client({ name: "ts-client", version: "1.0.0" });
await client.connect(transport);
const calls = [
  ["echo", { text: "hi", times: 2 }], ["echo", { text: "hi", times: 2 }], ["echo", { text: "<b>&" }],
  ["html", { tag: "i" }], ["fail", {}], ["echo", { times: "x" }], ["explode", {}],
];
const out = [];
for (const [name, args] of calls) out.push(await client.callTool({ name, arguments: args }));
console.log(JSON.stringify(out));
await client.close();
`, filepath.Join(sdkDir, "client/index.js"), filepath.Join(sdkDir, "client/stdio.js"), exe, helperEnv)
	if err := os.WriteFile(script, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client failed: %v\n%s", err, stderr.String())
	}
	var results []struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	want := []struct {
		text    string
		isError bool
	}{
		{"hihi", false}, {"hihi", false}, {"<b>&", false},
		{"<i> & \"quotes\" \u2028 é \x01", false},
		{"the disk is full: free some space and retry", true},
		{`invalid arguments: missing required argument "text"`, true},
		{"tool explode panicked: kaboom", true},
	}
	if len(results) != len(want) {
		t.Fatalf("%d results, want %d: %s", len(results), len(want), out)
	}
	for i, w := range want {
		r := results[i]
		if len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != w.text || r.IsError != w.isError {
			t.Errorf("call %d: got %+v, want text %q isError %v", i, r, w.text, w.isError)
		}
	}
}
