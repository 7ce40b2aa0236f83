package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/mcp"
)

func TestStdioSubprocessKeepsServingAfterMalformedLines(t *testing.T) {
	dir := t.TempDir()
	cmd, _ := program(t, "--dir", dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := newLineWriter()
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	// next reads lines until the response with the given id ("null" for
	// an error about a message with no usable id).
	next := func(id string) rpcResponse {
		t.Helper()
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				t.Fatalf("waiting for the response %s: %v\nstderr: %s", id, err, stderr)
			}
			var resp rpcResponse
			if err := json.Unmarshal([]byte(line), &resp); err != nil {
				t.Fatalf("stdout line %q is not JSON: %v", line, err)
			}
			if string(resp.ID) == id || (id == "null" && resp.ID == nil) {
				return resp
			}
		}
	}
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if resp := next("1"); resp.Error != nil {
		t.Fatalf("initialize: %+v", resp.Error)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for _, c := range []struct {
		name, line string
		code       int
	}{
		{"a line that is not JSON gets a parse error", `this is not json`, -32700},
		{"a truncated request gets a parse error", `{"jsonrpc":"2.0","id":5,"method":"tools/li`, -32700},
		{"JSON that is not a request gets an invalid-request error", `[1, 2, 3]`, -32600},
	} {
		t.Run(c.name, func(t *testing.T) {
			send(c.line)
			resp := next("null")
			if resp.Error == nil || resp.Error.Code != c.code {
				t.Fatalf("response = %+v, want error code %d", resp, c.code)
			}
		})
	}

	t.Run("the server still answers tool calls", func(t *testing.T) {
		send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_note","arguments":{"title":"Hello","body":"World"}}}`)
		resp := next("2")
		if resp.Error != nil || !strings.Contains(string(resp.Result), `Created note \"Hello\"`) {
			t.Fatalf("add_note after malformed lines = %s %+v", resp.Result, resp.Error)
		}
		body, err := os.ReadFile(filepath.Join(dir, "Hello.md"))
		if err != nil || string(body) != "World" {
			t.Errorf("Hello.md = %q, %v; want World", body, err)
		}
	})

	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("notes-mcp did not exit cleanly when stdin closed: %v\n%s", err, stderr)
	}
	if s := stderr.String(); s != "" {
		t.Logf("stderr: %s", s)
	}
}

func TestStdioSubprocessWithAClient(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sess, err := mcp.ConnectCommand(ctx, "notes", mcp.Command{
		Path:   exe,
		Args:   []string{"--dir", dir},
		Env:    []string{beEnv + "=main"},
		Stderr: io.Discard,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if !strings.Contains(sess.Instructions(), "Search before you add") {
		t.Errorf("instructions = %q", sess.Instructions())
	}
	tools := connectTools(t, sess)
	big := strings.Repeat("Ünïcödé line\n", maxBody/len("Ünïcödé line\n"))
	if out := callSessionTool(t, tools, "add_note", map[string]any{"title": "Big one", "body": big}); !strings.Contains(out, "Created") {
		t.Errorf("add_note = %q", out)
	}
	if out := callSessionTool(t, tools, "read_note", map[string]any{"title": "Big one"}); out != big {
		t.Errorf("read_note gave %d bytes, want the %d bytes written", len(out), len(big))
	}
	if _, err := tools["read_note"].Call(ctx, json.RawMessage(`{"title":"Missing"}`)); err == nil || !strings.Contains(err.Error(), `there is no note titled "Missing"`) {
		t.Errorf("read_note of a missing note = %v", err)
	}
	index, err := sess.ReadResource(ctx, indexURI)
	if err != nil || index != "Big one\n" {
		t.Errorf("index = %q, %v", index, err)
	}
}

// connectTools lists a session's tools by name and checks they are all there.
func connectTools(t *testing.T, sess *mcp.Session) map[string]toolCaller {
	t.Helper()
	list, err := sess.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]toolCaller{}
	var names []string
	for _, tl := range list {
		tools[tl.Name] = tl
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	want := []string{"add_note", "append_to_note", "delete_note", "edit_note", "read_note", "rename_note", "search_notes"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %q, want %q", names, want)
	}
	return tools
}

type toolCaller interface {
	Call(ctx context.Context, args json.RawMessage) (string, error)
}

func callSessionTool(t *testing.T, tools map[string]toolCaller, name string, args map[string]any) string {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tools[name].Call(context.Background(), raw)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}
