package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeMCP(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadMCPFile(t *testing.T) {
	p := writeMCP(t, `{"mcpServers": {
		"zeta": {"command": "npx", "args": ["-y", "@scope/server"], "env": {"TOKEN": "${TOKEN}"}},
		"alpha": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}},
		"local": {"url": "http://127.0.0.1:9/mcp"}
	}}`)
	servers, err := readMCPFile(p, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range servers {
		got = append(got, s.Name+" "+s.Entry.transport()+": "+s.Entry.describe())
	}
	want := []string{
		"alpha http: connect to https://example.com/mcp with headers Authorization; gives it ${DOCS_TOKEN} from your environment",
		"local http: connect to http://127.0.0.1:9/mcp",
		"zeta stdio: run npx -y @scope/server with TOKEN set; gives it ${TOKEN} from your environment",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("servers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReadMCPFileErrors(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"a file that is not JSON is refused", `{"mcpServers": `, "is not valid"},
		{"a server without a command is refused", `{"mcpServers": {"x": {"args": ["a"]}}}`, `no "command"`},
		{"an http server without a URL is refused", `{"mcpServers": {"x": {"type": "http"}}}`, `no "url"`},
		{"the SSE transport is refused with a hint", `{"mcpServers": {"x": {"type": "sse", "url": "http://h/sse"}}}`, "Streamable HTTP"},
		{"an unknown type is refused", `{"mcpServers": {"x": {"type": "ws", "url": "ws://h"}}}`, `unknown type "ws"`},
		{"a name that cannot prefix tool names is refused", `{"mcpServers": {"my server": {"command": "x"}}}`, "server name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readMCPFile(writeMCP(t, tt.content), false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want %q in it", err, tt.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "EMPTY": ""}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name, in, want string
		missing        string
	}{
		{"a set variable is replaced", "Bearer ${TOKEN}", "Bearer t0k", ""},
		{"a default stands in for a missing variable", "${NOPE:-fallback}/x", "fallback/x", ""},
		{"a default stands in for an empty variable", "${EMPTY:-d}", "d", ""},
		{"a missing variable is reported", "a${NOPE}b", "ab", "NOPE"},
		{"text without variables is kept", "plain $TOKEN {x}", "plain $TOKEN {x}", ""},
		{"an unclosed brace is kept", "${TOKEN", "${TOKEN", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var missing []string
			got := expand(tt.in, getenv, &missing)
			if got != tt.want || strings.Join(missing, ",") != tt.missing {
				t.Fatalf("expand(%q) = %q, missing %v; want %q, missing %q", tt.in, got, missing, tt.want, tt.missing)
			}
		})
	}
}

func TestServerCommandAndHTTP(t *testing.T) {
	getenv := func(k string) string { return map[string]string{"TOKEN": "t0k"}[k] }
	s := mcpServer{Name: "x", Entry: mcpEntry{Command: "srv", Args: []string{"--token=${TOKEN}"}, Env: map[string]string{"B": "2", "A": "${TOKEN}"}}}
	c, err := s.command("/work", getenv)
	if err != nil || c.Path != "srv" || strings.Join(c.Args, " ") != "--token=t0k" || strings.Join(c.Env, " ") != "A=t0k B=2" || c.Dir != "/work" {
		t.Fatalf("command = %+v, %v", c, err)
	}
	h := mcpServer{Name: "y", Entry: mcpEntry{Type: "http", URL: "https://h/${PATHX:-mcp}", Headers: map[string]string{"Authorization": "Bearer ${MISSING}"}}}
	if _, err := h.http(getenv); err == nil || !strings.Contains(err.Error(), "set MISSING") {
		t.Fatalf("http with a missing variable: %v; want it to name MISSING", err)
	}
}

func TestApprovals(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", cfg)
	t.Setenv("AppData", cfg)
	s := mcpServer{Name: "files", Entry: mcpEntry{Command: "npx", Args: []string{"a"}}, File: "/p/.mcp.json"}

	if loadApprovals().approved(s) {
		t.Fatal("a server is approved before anyone approved it")
	}
	if err := loadApprovals().remember(s); err != nil {
		t.Fatal(err)
	}
	t.Run("an approval is remembered", func(t *testing.T) {
		if !loadApprovals().approved(s) {
			t.Fatal("not approved after remember")
		}
	})
	t.Run("a changed entry needs approval again", func(t *testing.T) {
		changed := s
		changed.Entry.Args = []string{"b"}
		if loadApprovals().approved(changed) {
			t.Fatal("a changed entry is still approved")
		}
	})
	t.Run("the same name in another file needs approval", func(t *testing.T) {
		other := s
		other.File = "/q/.mcp.json"
		if loadApprovals().approved(other) {
			t.Fatal("approved for another file")
		}
	})
}
