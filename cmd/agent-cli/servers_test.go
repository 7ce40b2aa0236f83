package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func TestGoTools(t *testing.T) {
	bin := agentBinary(t)
	withGotools(t)

	t.Run("the agent writes a program, runs it with gotools-mcp found next to it, and answers", func(t *testing.T) {
		srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
			switch len(r.Messages) {
			case 1:
				return llmtest.Reply{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"hello/main.go","content":"package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n"}`}}}
			case 3:
				return llmtest.Reply{Calls: []llmtest.Call{{Name: "mcp__gotools__go_run", Args: `{"path":"hello"}`}}}
			}
			out := ""
			if res := r.LastToolResults(); len(res) == 1 {
				out = res[0].Text
			}
			return llmtest.Reply{Text: "It ran. Output:\n" + out}
		})
		defer srv.Close()
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/hello\n\ngo 1.25\n"), 0o644)
		res := runAgent(t, bin, invocation{
			args: []string{"--autonomy", "auto", "write a hello world program and run it"},
			dir:  dir,
			env:  append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "GOTOOLS_BIN="),
		})
		if res.code != 0 || !strings.HasPrefix(res.stdout, "It ran. Output:\n") || !strings.Contains(res.stdout, "hello, world") {
			t.Fatalf("exit %d, stdout %q\nstderr:\n%s", res.code, res.stdout, res.stderr)
		}
		for _, want := range []string{"[tool] write_file hello/main.go", "[tool] mcp__gotools__go_run"} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
			}
		}
		req := srv.Requests()[0]
		for _, name := range []string{"mcp__gotools__go_check", "mcp__gotools__go_run", "mcp__gotools__go_test", "mcp__gotools__go_doc"} {
			if !slices.Contains(req.Tools, name) {
				t.Errorf("the model was not offered %s: %v", name, req.Tools)
			}
		}
		if !strings.Contains(req.System, `MCP server "gotools"`) {
			t.Errorf("the system prompt lacks the gotools instructions:\n%s", req.System)
		}
	})

	t.Run("gotools-mcp that does not start is a warning and the agent carries on", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "Fine without it."}))
		defer srv.Close()
		res := runAgent(t, bin, invocation{args: []string{"hi"}, env: append(modelEnv(srv, "openai", llm.OpenAI, "OPENAI_API_KEY"), "GOTOOLS_BIN=/does/not/exist/gotools-mcp")})
		if res.code != 0 || res.stdout != "Fine without it.\n" {
			t.Fatalf("exit %d, stdout %q\nstderr:\n%s", res.code, res.stdout, res.stderr)
		}
		if !strings.Contains(res.stderr, "warning: gotools-mcp did not start") || !strings.Contains(res.stderr, "carrying on without the Go tools") {
			t.Errorf("stderr lacks the warning:\n%s", res.stderr)
		}
	})
}

// projectWithMCP makes a working folder whose .mcp.json starts gotools-mcp
// under the name "extra".
func projectWithMCP(t *testing.T) string {
	t.Helper()
	gotools := withGotools(t)
	dir := t.TempDir()
	cfg := `{"mcpServers": {"extra": {"command": "` + gotools + `", "args": ["--root", "."]}}}`
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func offered(srv *llmtest.Server, name string) bool {
	reqs := srv.Requests()
	return len(reqs) > 0 && slices.Contains(reqs[0].Tools, name)
}

func TestProjectMCPServers(t *testing.T) {
	bin := agentBinary(t)
	dir := projectWithMCP(t)

	t.Run("without a terminal the servers of .mcp.json are skipped with a notice", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "ok"}))
		defer srv.Close()
		res := runAgent(t, bin, invocation{args: []string{"hi"}, dir: dir, env: modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")})
		if res.code != 0 || res.stdout != "ok\n" {
			t.Fatalf("exit %d, stdout %q\nstderr:\n%s", res.code, res.stdout, res.stderr)
		}
		if !strings.Contains(res.stderr, "skipped the MCP servers of .mcp.json (extra)") {
			t.Errorf("stderr lacks the notice:\n%s", res.stderr)
		}
		if offered(srv, "mcp__extra__go_doc") {
			t.Error("an unapproved server's tools were offered")
		}
	})

	t.Run("given with --mcp-config the servers are connected without asking", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "ok"}))
		defer srv.Close()
		res := runAgent(t, bin, invocation{args: []string{"--mcp-config", ".mcp.json", "hi"}, dir: dir, env: modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")})
		if res.code != 0 || strings.Contains(res.stderr, "skipped") {
			t.Fatalf("exit %d\nstderr:\n%s", res.code, res.stderr)
		}
		if !offered(srv, "mcp__extra__go_doc") {
			t.Errorf("the server's tools were not offered: %v", srv.Requests()[0].Tools)
		}
	})

	t.Run("a server that does not start is a warning", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "ok"}))
		defer srv.Close()
		cfg := filepath.Join(t.TempDir(), "servers.json")
		os.WriteFile(cfg, []byte(`{"mcpServers": {"broken": {"command": "/does/not/exist"}}}`), 0o644)
		res := runAgent(t, bin, invocation{args: []string{"--mcp-config", cfg, "hi"}, env: modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")})
		if res.code != 0 || res.stdout != "ok\n" || !strings.Contains(res.stderr, "warning: MCP server broken did not start") {
			t.Fatalf("exit %d, stdout %q\nstderr:\n%s", res.code, res.stdout, res.stderr)
		}
	})
}

func TestDoctor(t *testing.T) {
	bin := agentBinary(t)
	tests := []struct {
		name   string
		args   []string
		env    []string
		fault  bool
		code   int
		stdout []string
	}{
		{"with a key in the variable it is ready", []string{"doctor"}, []string{"ANTHROPIC_API_KEY=" + fakeKey}, false, 0,
			[]string{"provider   anthropic (default)", "model      claude", "(preset anthropic)", "key        found in ANTHROPIC_API_KEY", "keychain", "gotools    off", "online     not tried", "ready:"}},
		{"flags and variables are named as the sources", []string{"doctor", "--model", "m1"}, []string{"AGENT_PROVIDER=openai", "OPENAI_API_KEY=" + fakeKey, "AGENT_BASE_URL=http://127.0.0.1:9/v1"}, false, 0,
			[]string{"provider   openai (AGENT_PROVIDER)", "model      m1 (--model)", "base URL   http://127.0.0.1:9/v1 (AGENT_BASE_URL)"}},
		{"a local server needs no key", []string{"doctor"}, []string{"AGENT_PROVIDER=llamacpp", "AGENT_MODEL=local"}, false, 0,
			[]string{"key        none needed for llamacpp", "ready:"}},
		{"without a key it is not ready", []string{"doctor"}, nil, false, 1,
			[]string{"set ANTHROPIC_API_KEY", "not ready:"}},
		{"--online sends one request", []string{"doctor", "--online"}, []string{"ANTHROPIC_API_KEY=" + fakeKey}, false, 0,
			[]string{"online     the model answered", "ready:"}},
		{"--online reports a refusal", []string{"doctor", "--online"}, []string{"ANTHROPIC_API_KEY=" + fakeKey}, true, 1,
			[]string{"online     the anthropic provider refused the key", "not ready:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := llmtest.Reply{Text: "ok"}
			if tt.fault {
				reply = llmtest.Reply{Fault: &llmtest.Fault{Status: 401}}
			}
			srv := llmtest.NewServer(llmtest.Replies(reply))
			defer srv.Close()
			env := append([]string{"AGENT_BASE_URL=" + srv.URL}, tt.env...)
			res := runAgent(t, bin, invocation{args: tt.args, env: env})
			if res.code != tt.code {
				t.Fatalf("exit %d; want %d\nstdout:\n%s\nstderr:\n%s", res.code, tt.code, res.stdout, res.stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(res.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
				}
			}
			if got := len(srv.Requests()); (slices.Contains(tt.args, "--online")) != (got == 1) {
				t.Errorf("%d requests reached the model", got)
			}
		})
	}

	t.Run("it starts gotools-mcp and names the .mcp.json servers", func(t *testing.T) {
		dir := projectWithMCP(t)
		res := runAgent(t, bin, invocation{args: []string{"doctor", "--dir", dir}, env: []string{"ANTHROPIC_API_KEY=" + fakeKey, "GOTOOLS_BIN="}})
		for _, want := range []string{"(next to agent-cli) starts and offers 5 tools", "mcp        extra: run ", "not approved"} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
			}
		}
	})
}
