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

func TestEndToEndCodingTools(t *testing.T) {
	bin := agentBinary(t)
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{
			{Name: "list_files", Args: `{}`},
			{Name: "glob", Args: `{"pattern":"**/*.go"}`},
			{Name: "grep", Args: `{"pattern":"TODO","include":"*.go"}`},
			{Name: "bash", Args: `{"command":"echo from-bash; ls"}`},
		}},
		llmtest.Reply{Text: "Looked."},
	))
	defer srv.Close()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":              "/dist/\n",
		"cmd/app/main.go":         "package main\n\n// TODO: flags\nfunc main() {}\n",
		"dist/bundle.go":          "// TODO built\n",
		"node_modules/x/index.js": "x\n",
	})
	res := runAgent(t, bin, invocation{args: []string{"--autonomy", "auto", "look around"}, dir: dir, env: modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")})
	if res.code != 0 || res.stdout != "Looked.\n" {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{"[tool] glob **/*.go", "[tool] grep TODO", "[tool] bash echo from-bash; ls"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	reqs := srv.Requests()
	for _, name := range []string{"glob", "grep", "bash"} {
		if !slices.Contains(reqs[0].Tools, name) {
			t.Errorf("the model was not offered %s: %v", name, reqs[0].Tools)
		}
	}
	results := reqs[1].LastToolResults()
	if len(results) != 4 {
		t.Fatalf("%d tool results; want 4: %+v", len(results), results)
	}
	for i, want := range []struct{ has, hasNot string }{
		{"cmd/app/main.go\n", "dist"},
		{"cmd/app/main.go\n", "bundle"},
		{"cmd/app/main.go:3: // TODO: flags\n", "built"},
		{"from-bash\n", ""},
	} {
		r := results[i]
		if r.IsError || !strings.Contains(r.Text, want.has) || (want.hasNot != "" && strings.Contains(r.Text, want.hasNot)) {
			t.Errorf("result %d: %q (error %v); want %q in it and not %q", i, r.Text, r.IsError, want.has, want.hasNot)
		}
	}
	if !strings.Contains(results[0].Text, "node_modules/ (never walked)") {
		t.Errorf("list_files does not say node_modules was left out:\n%s", results[0].Text)
	}
	if !strings.Contains(results[3].Text, "[exit code 0; sandbox: ") {
		t.Errorf("bash does not report its exit code and sandbox:\n%s", results[3].Text)
	}
}

func TestEndToEndBashAsksWithoutAuto(t *testing.T) {
	bin := agentBinary(t)
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{{Name: "bash", Args: `{"command":"touch made"}`}}},
		llmtest.Reply{Text: "Declined."},
	))
	defer srv.Close()
	dir := t.TempDir()
	res := runAgent(t, bin, invocation{args: []string{"--autonomy", "edits", "make a file"}, dir: dir, env: modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")})
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Error("bash ran under --autonomy edits without a terminal to ask")
	}
}

func TestEndToEndInstructionsAndMaxTokens(t *testing.T) {
	bin := agentBinary(t)
	home := t.TempDir()
	repo := t.TempDir()
	work := filepath.Join(repo, "svc")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(work, 0o755)
	os.MkdirAll(filepath.Join(home, "config", "agent-cli"), 0o755)
	os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte("Run make check before you answer."), 0o644)
	os.WriteFile(filepath.Join(work, "CLAUDE.md"), []byte("Tabs, not spaces."), 0o644)
	os.WriteFile(filepath.Join(home, "config", "agent-cli", "AGENTS.md"), []byte("Answer in French."), 0o644)

	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"the model's limit by default", nil, `"max_tokens":128000`},
		{"AGENT_MAX_TOKENS overrides it", []string{"AGENT_MAX_TOKENS=2000"}, `"max_tokens":2000`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "Oui."}))
			defer srv.Close()
			env := append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "AGENT_MODEL=claude-sonnet-5")
			res := runAgent(t, bin, invocation{args: []string{"hi"}, dir: work, home: home, env: append(env, tc.env...)})
			if res.code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", res.code, res.stderr)
			}
			req := srv.Requests()[0]
			if !strings.Contains(string(req.Body), tc.want) {
				t.Errorf("the request lacks %s", tc.want)
			}
			sys := req.System
			iUser, iRoot, iWork := strings.Index(sys, "Answer in French."), strings.Index(sys, "Run make check"), strings.Index(sys, "Tabs, not spaces.")
			if iUser < 0 || iRoot < iUser || iWork < iRoot {
				t.Errorf("the system prompt does not hold the user's, the root's and the folder's instructions in that order:\n%s", sys)
			}
			if !strings.Contains(sys, `file="`+filepath.Join(work, "CLAUDE.md")+`"`) {
				t.Errorf("the folder's instructions are not labelled by their path:\n%s", sys)
			}
		})
	}

	res := runAgent(t, bin, invocation{args: []string{"doctor"}, dir: work, home: home, env: []string{"AGENT_MAX_TOKENS=2000"}})
	for _, want := range []string{
		"instructions " + filepath.Join(home, "config", "agent-cli", "AGENTS.md") + " (user,",
		"instructions " + filepath.Join(repo, "AGENTS.md") + " (project,",
		"instructions " + filepath.Join(work, "CLAUDE.md") + " (project,",
		"max tokens 2000 (AGENT_MAX_TOKENS)",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, res.stdout)
		}
	}
}

func TestEndToEndConfiguredGotoolsReplacesTheBuiltIn(t *testing.T) {
	bin := agentBinary(t)
	gotools := withGotools(t)
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "ok"}))
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/x\n\ngo 1.25\n"), 0o644)
	cfg := filepath.Join(t.TempDir(), "servers.json")
	os.WriteFile(cfg, []byte(`{"mcpServers":{"gotools":{"command":"`+gotools+`","args":["--root","."]}}}`), 0o644)
	env := append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "GOTOOLS_BIN="+gotools)
	res := runAgent(t, bin, invocation{args: []string{"--mcp-config", cfg, "hi"}, dir: dir, env: env})
	if res.code != 0 || strings.Contains(res.stderr, "warning") {
		t.Fatalf("exit %d\nstderr:\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "replaces the built-in gotools-mcp") {
		t.Errorf("stderr does not say the configured gotools replaces the built-in one:\n%s", res.stderr)
	}
	tools := srv.Requests()[0].Tools
	if n := slices.Index(tools, "mcp__gotools__go_check"); n < 0 || slices.Contains(tools[n+1:], "mcp__gotools__go_check") {
		t.Errorf("go_check is offered %d times; want once: %v", strings.Count(strings.Join(tools, " "), "mcp__gotools__go_check"), tools)
	}

	// Unapproved, and no terminal to ask: the project's gotools is skipped,
	// and the built-in one is used.
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers":{"gotools":{"command":"`+gotools+`"}}}`), 0o644)
	srv2 := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "ok"}))
	defer srv2.Close()
	env = append(modelEnv(srv2, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "GOTOOLS_BIN="+gotools)
	res = runAgent(t, bin, invocation{args: []string{"hi"}, dir: dir, env: env})
	if res.code != 0 || strings.Contains(res.stderr, "replaces") || !slices.Contains(srv2.Requests()[0].Tools, "mcp__gotools__go_check") {
		t.Errorf("with an unapproved .mcp.json gotools and no terminal: exit %d, tools %v; want the built-in one\nstderr:\n%s", res.code, srv2.Requests()[0].Tools, res.stderr)
	}

	res = runAgent(t, bin, invocation{args: []string{"doctor", "--mcp-config", cfg}, dir: dir, env: []string{"GOTOOLS_BIN=" + gotools}})
	if !strings.Contains(res.stdout, "gotools    the server gotools of "+cfg+" replaces the built-in gotools-mcp") {
		t.Errorf("doctor does not say gotools is replaced:\n%s", res.stdout)
	}
}

func TestEndToEndDoctorFlagsUnsetVariables(t *testing.T) {
	bin := agentBinary(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers":{"docs":{"type":"http","url":"https://example.com/mcp","headers":{"Authorization":"Bearer ${DOCS_TOKEN}"}},"ok":{"command":"x","args":["${HOME_MISSING:-fine}"]}}}`), 0o644)
	res := runAgent(t, bin, invocation{args: []string{"doctor"}, dir: dir, env: []string{"AGENT_FALLBACK=openai:gpt-5-mini"}})
	for _, want := range []string{
		"MCP server docs uses ${DOCS_TOKEN}, which is unset: set DOCS_TOKEN",
		"fallback   openai: model gpt-5-mini at https://api.openai.com/v1 (AGENT_FALLBACK)",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, res.stdout)
		}
	}
	if strings.Contains(res.stdout, "uses ${HOME_MISSING") {
		t.Errorf("doctor flags a variable with a default:\n%s", res.stdout)
	}
}
