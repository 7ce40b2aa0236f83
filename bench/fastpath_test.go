package bench

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestFastPathAnswersAsTheSDK checks that Bridle's server, which answers
// tool calls itself over stdio, and the bridle-conn experiment answer byte
// for byte what Bridle's server answers through the SDK (bridle-sdk), in a
// stateless (2026-07-28) session and in a legacy one, so that their
// figures are for the same work.
func TestFastPathAnswersAsTheSDK(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	sessions := map[string][]string{
		"stateless": {
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + meta + `,"name":"add","arguments":{"a":2,"b":3}}}`,
			`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{` + meta + `,"name":"add","arguments":{"a":2}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{` + meta + `,"name":"nope","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{` + meta + `,"name":"add","arguments":{"a":2,"b":3,"c":4}}}`,
		},
		"legacy": {
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25","capabilities":{}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":0.5,"b":3}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add"}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}`,
		},
	}
	for name, lines := range sessions {
		t.Run("a "+name+" session gets the same answers", func(t *testing.T) {
			want := serveLines(t, "bridle-sdk", lines)
			for _, impl := range []string{"bridle", "bridle-conn"} {
				got := serveLines(t, impl, lines)
				for id, w := range want {
					if got[id] != w {
						t.Errorf("%s answered id %s with\n%s\nwant\n%s", impl, id, got[id], w)
					}
				}
				if len(got) != len(want) {
					t.Errorf("%s gave %d answers, want %d", impl, len(got), len(want))
				}
			}
		})
	}
}

// serveLines sends lines to mcpserver -impl impl and returns its answers
// by request id, closing its input once every request is answered.
func serveLines(t *testing.T, impl string, lines []string) map[string]string {
	t.Helper()
	cmd := exec.Command(serverBin, "-impl", impl)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	requests := 0
	for _, line := range lines {
		if strings.Contains(line, `"id":`) {
			requests++
		}
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answers := make(map[string]string)
	sc := bufio.NewScanner(stdout)
	for len(answers) < requests && sc.Scan() {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("%s wrote %q: %v", impl, sc.Bytes(), err)
		}
		answers[string(msg.ID)] = sc.Text()
	}
	return answers
}
