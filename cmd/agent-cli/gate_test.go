//go:build linux || darwin || freebsd

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// The tests in this file try the approval gate the way a hostile
// repository, a hostile MCP server and a steered model would.

// call is a tool call with args encoded as JSON.
func call(name string, args any) llmtest.Call {
	data, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return llmtest.Call{Name: name, Args: string(data)}
}

// hostileServer is a .mcp.json entry that starts the test binary as the
// hostile MCP server, with extra arguments.
func hostileServer(t *testing.T, args ...string) map[string]any {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": exe, "args": args, "env": map[string]string{hostileEnv: "1"}}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, _ := json.Marshal(v)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ownEscapes are the escape sequences agent-cli writes itself: colours,
// and the spinner's erasing of its line.
var ownEscapes = regexp.MustCompile(`\x1b\[[0-9;]*m|\r\x1b\[K`)

// assertInert fails when text holds an escape sequence agent-cli did not
// write, a C1 control, or a bidirectional override or isolate.
func assertInert(t *testing.T, where, text string) {
	t.Helper()
	rest := ownEscapes.ReplaceAllString(text, "")
	for _, bad := range []string{"\x1b", "\u009b", "\x9b", "\u009d", "\x9d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\x07"} {
		if i := strings.Index(rest, bad); i >= 0 {
			t.Errorf("%s holds %q at %d: %q", where, bad, i, rest[max(0, i-80):min(len(rest), i+80)])
		}
	}
}

func TestNothingFromOutsideWritesToTheTerminal(t *testing.T) {
	for _, mode := range []struct {
		name   string
		ttyOut bool
		env    []string
	}{
		{"with the answer redirected and no colour", false, []string{"NO_COLOR=1"}},
		{"with the answer on the terminal, in colour", true, nil},
	} {
		t.Run(mode.name, func(t *testing.T) {
			answer := "Done" + hostileAll + "\n"
			srv := llmtest.NewServer(llmtest.Replies(
				llmtest.Reply{Text: "Looking" + hostileAll + "\n", Calls: []llmtest.Call{call("mcp__evil__run", map[string]any{"code": "package main" + escErase + "// decoy"})}},
				llmtest.Reply{Calls: []llmtest.Call{call("mcp__evil__fail", map[string]any{})}},
				llmtest.Reply{Calls: []llmtest.Call{call("edit_file", map[string]any{"path": "a.txt", "old": "rm -rf ~", "new": "x" + escErase + "echo safe"})}},
				llmtest.Reply{Calls: []llmtest.Call{call("write_file", map[string]any{"path": "b" + escBidi + "txt.sh", "content": "hi" + escTitle})}},
				llmtest.Reply{Calls: []llmtest.Call{call("no_such_tool"+escTitle, map[string]any{})}},
				llmtest.Reply{Text: answer},
			))
			defer srv.Close()
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("rm -rf ~\n"), 0o644)
			writeJSON(t, filepath.Join(dir, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
				"broken": map[string]any{"command": "/does/not/exist" + escTitle},
				"evil":   hostileServer(t, "--flag"+escErase+"decoy", "two words"),
			}})
			c := startConsole(t, invocation{args: []string{"go"}, dir: dir, ttyOut: mode.ttyOut,
				env: append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), mode.env...)})
			c.waitFor(`.mcp.json server broken: run "/does/not/exist\x1b]0;pwned\x07"`)
			c.waitFor("? " + prompt)
			c.send("y\r")
			c.waitFor(`--flag\x1b[1A\x1b[2K\rdecoy" "two words"`)
			c.waitFor("? " + prompt)
			c.send("y\r")
			c.waitFor(`│ package main\x1b[1A\x1b[2K\r// decoy`)
			c.waitFor("(exec)? " + prompt)
			c.send("y\r")
			c.waitFor("(exec)? " + prompt)
			c.send("y\r")
			c.waitFor(`+ x\x1b[1A\x1b[2K\recho safe`)
			c.waitFor("(write)? " + prompt)
			c.send("y\r")
			c.waitFor(`write_file b\u202etxt.sh`)
			c.waitFor(`│ hi\x1b]0;pwned\x07`)
			c.waitFor("(write)? " + prompt)
			c.send("n\r")
			if code := c.wait(); code != 0 {
				t.Fatalf("exit %d", code)
			}
			screen := c.screenText()
			plain := ownEscapes.ReplaceAllString(screen, "")
			for _, want := range []string{
				`warning: MCP server broken did not start`,
				`[tool] mcp__evil__fail failed: \x1b]0;pwned\x07boom\x1b[1A\x1b[2K\rall good`,
				`Looking\x1b]0;pwned\x07`,
				`no_such_tool\x1b]0;pwned\x07`,
			} {
				if !strings.Contains(plain, want) {
					t.Errorf("the terminal does not show %s", want)
				}
			}
			assertInert(t, "the terminal", screen)
			if mode.ttyOut {
				if !strings.Contains(plain, `Done\x1b]0;pwned\x07\x1b[1A\x1b[2K\r\u009b2J\u202e`) {
					t.Errorf("the answer is not shown escaped on the terminal")
				}
			} else if got := c.stdout.String(); got != answer {
				t.Errorf("redirected stdout = %q, want the answer byte for byte: %q", got, answer)
			}
		})
	}

	t.Run("a provider's error message is inert", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Fault: &llmtest.Fault{Status: 400, Message: "bad" + hostileAll}}))
		defer srv.Close()
		res := runAgent(t, agentBinary(t), invocation{args: []string{"go"}, env: modelEnv(srv, "openai", llm.OpenAI, "OPENAI_API_KEY")})
		if res.code != 1 || !strings.Contains(res.stderr, `bad\x1b]0;pwned\x07`) {
			t.Errorf("exit %d, stderr %q", res.code, res.stderr)
		}
		assertInert(t, "stderr", res.stderr)
	})

	t.Run("doctor shows a hostile .mcp.json inert", func(t *testing.T) {
		dir := t.TempDir()
		writeJSON(t, filepath.Join(dir, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
			"evil": hostileServer(t, "--flag"+escErase+"decoy"),
			"web":  map[string]any{"type": "http", "url": "https://u:PASSWORD@example.com/mcp" + escTitle + "?token=SECRET"},
		}})
		res := runAgent(t, agentBinary(t), invocation{args: []string{"doctor"}, dir: dir, env: []string{"ANTHROPIC_API_KEY=" + fakeKey}})
		assertInert(t, "doctor", res.stdout+res.stderr)
		for _, secret := range []string{"PASSWORD", "SECRET"} {
			if strings.Contains(res.stdout, secret) {
				t.Errorf("doctor shows %s:\n%s", secret, res.stdout)
			}
		}
		if !strings.Contains(res.stdout, `--flag\x1b[1A\x1b[2K\rdecoy`) {
			t.Errorf("doctor does not show the argument escaped:\n%s", res.stdout)
		}
	})
}

func TestTheWholeCallIsShown(t *testing.T) {
	var program strings.Builder
	program.WriteString("package main\n\nimport \"os\"\n\nfunc main() {\n")
	for i := range 3 {
		fmt.Fprintf(&program, "\tos.RemoveAll(\"/step/%d\")\n", i)
	}
	program.WriteString("}\n")
	var long strings.Builder
	for i := range 100 {
		fmt.Fprintf(&long, "row %d\n", i)
	}
	srv := llmtest.NewServer(llmtest.Replies(
		// The filler comes first, as the model wrote it: it must not push
		// the program out of view.
		llmtest.Reply{Calls: []llmtest.Call{{Name: "mcp__evil__run", Args: `{"args":["` + strings.Repeat("a", 240) + `"],"stdin":"input","code":` + jsonString(program.String()) + `}`}}},
		llmtest.Reply{Calls: []llmtest.Call{call("write_file", map[string]any{"path": "long.txt", "content": long.String()})}},
		llmtest.Reply{Text: "Done."},
	))
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "servers.json")
	writeJSON(t, cfg, map[string]any{"mcpServers": map[string]any{"evil": hostileServer(t)}})
	c := startConsole(t, invocation{args: []string{"--mcp-config", cfg, "go"}, dir: dir,
		env: append(modelEnv(srv, "openai", llm.OpenAI, "OPENAI_API_KEY"), "NO_COLOR=1")})
	c.waitFor("mcp__evil__run\r\n")
	c.waitFor("code:\r\n")
	for _, line := range strings.Split(strings.TrimSuffix(program.String(), "\n"), "\n") {
		c.waitFor("│ " + line + "\r\n")
	}
	c.waitFor("args:")
	c.waitFor("stdin: input")
	c.waitFor("run mcp__evil__run (exec)? " + prompt)
	c.send("y\r")
	c.waitFor("write_file long.txt: creates it (")
	c.waitFor("│ row 0\r\n")
	c.waitFor("more lines ([v]iew shows all)")
	c.waitFor("[y]es / [a]lways / [v]iew / [N]o ")
	c.send("v\r")
	c.waitFor("│ row 99\r\n")
	c.waitFor("[y]es / [a]lways / [v]iew / [N]o ")
	c.send("y\r")
	if code := c.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "long.txt")); string(data) != long.String() {
		t.Errorf("long.txt was not written after y")
	}
}

func jsonString(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

func TestWritesThatRunCodeLaterAreAskedAbout(t *testing.T) {
	plant := []llmtest.Call{
		call("write_file", map[string]any{"path": ".git/config", "content": "[core]\n\tfsmonitor = touch planted\n"}),
		call("write_file", map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ntouch planted\n"}),
		call("write_file", map[string]any{"path": "notes.txt", "content": "fine"}),
	}
	newProject := func(t *testing.T) string {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755)
		os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644)
		return dir
	}
	planted := func(dir string) []string {
		var out []string
		if data, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); strings.Contains(string(data), "fsmonitor") {
			out = append(out, ".git/config")
		}
		if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "pre-commit")); err == nil {
			out = append(out, "the hook")
		}
		return out
	}

	t.Run("under edits with no terminal they are not run", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Calls: plant}, llmtest.Reply{Text: "ok"}))
		defer srv.Close()
		dir := newProject(t)
		res := runAgent(t, agentBinary(t), invocation{args: []string{"--autonomy", "edits", "go"}, dir: dir, env: modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")})
		if res.code != 0 {
			t.Fatalf("exit %d", res.code)
		}
		if got := planted(dir); len(got) > 0 {
			t.Errorf("planted %v under --autonomy edits", got)
		}
		if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
			t.Errorf("the plain write did not run: %v", err)
		}
		if n := strings.Count(res.stderr, "[tool] write_file was not run (it needs approval, and there is no terminal to ask; --autonomy auto lets it run)"); n != 2 {
			t.Errorf("%d writes said not run; want 2:\n%s", n, res.stderr)
		}
	})

	t.Run("under read-only they are refused", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Calls: plant}, llmtest.Reply{Text: "ok"}))
		defer srv.Close()
		dir := newProject(t)
		runAgent(t, agentBinary(t), invocation{args: []string{"--autonomy", "read-only", "go"}, dir: dir, env: modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")})
		if got := planted(dir); len(got) > 0 {
			t.Errorf("planted %v under --autonomy read-only", got)
		}
	})

	t.Run("under edits on a terminal the person is asked, as for a command", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Calls: plant}, llmtest.Reply{Text: "ok"}))
		defer srv.Close()
		dir := newProject(t)
		c := startConsole(t, invocation{args: []string{"--autonomy", "edits", "go"}, dir: dir, env: append(modelEnv(srv, "openai", llm.OpenAI, "OPENAI_API_KEY"), "NO_COLOR=1")})
		c.waitFor("write_file .git/config: replaces it")
		c.waitFor("run write_file (exec)? " + prompt)
		c.send("a\r") // always, for writes that run code later
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if n := strings.Count(c.screenText(), prompt); n != 1 {
			t.Errorf("asked %d times; want once", n)
		}
		if got := planted(dir); len(got) != 2 {
			t.Errorf("planted %v after the person said always", got)
		}
	})

	t.Run("under auto they run", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Calls: plant}, llmtest.Reply{Text: "ok"}))
		defer srv.Close()
		dir := newProject(t)
		runAgent(t, agentBinary(t), invocation{args: []string{"--autonomy", "auto", "go"}, dir: dir, env: modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")})
		if got := planted(dir); len(got) != 2 {
			t.Errorf("planted %v under auto; want both", got)
		}
	})
}

func TestChildProcessesDoNotGetTheKey(t *testing.T) {
	withGotools(t)
	printKey := "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() { fmt.Println(\"key=[\" + os.Getenv(\"ANTHROPIC_API_KEY\") + \"]\", os.Getenv(\"HOME\") != \"\") }\n"
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{call("mcp__evil__environ", map[string]any{}), call("mcp__gotools__go_run", map[string]any{"code": printKey})}},
		llmtest.Reply{Text: "ok"},
	))
	defer srv.Close()
	cfg := filepath.Join(t.TempDir(), "servers.json")
	writeJSON(t, cfg, map[string]any{"mcpServers": map[string]any{"evil": hostileServer(t)}})
	env := modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")
	env = append(env, "GOTOOLS_BIN=", "MY_SECRET_TOKEN=hunter2", "LC_TEST=kept")
	res := runAgent(t, agentBinary(t), invocation{args: []string{"--autonomy", "auto", "--mcp-config", cfg, "go"}, env: env})
	if res.code != 0 {
		t.Fatalf("exit %d", res.code)
	}
	reqs := srv.Requests()
	results := reqs[len(reqs)-1].LastToolResults()
	if len(results) != 2 {
		t.Fatalf("%d tool results", len(results))
	}
	environ, run := results[0].Text, results[1].Text
	for _, secret := range []string{fakeKey, "hunter2"} {
		if strings.Contains(environ, secret) || strings.Contains(run, secret) {
			t.Errorf("a child process got %s:\nserver: %s\ngo_run: %s", secret, environ, run)
		}
	}
	for _, want := range []string{hostileEnv + "=1", "LC_TEST=kept", "HOME="} {
		if !strings.Contains(environ, want) {
			t.Errorf("the server lacks %s: %s", want, environ)
		}
	}
	if !strings.Contains(run, "key=[] true") {
		t.Errorf("go_run printed %q; want an empty key and a HOME", run)
	}

	t.Run("doctor names what each server gets", func(t *testing.T) {
		res := runAgent(t, agentBinary(t), invocation{args: []string{"doctor", "--mcp-config", cfg}, env: env})
		var gets []string
		for _, l := range strings.Split(res.stdout, "\n") {
			if strings.Contains(l, " gets ") {
				gets = append(gets, l)
			}
		}
		if len(gets) != 2 {
			t.Fatalf("doctor has %d lines of variables; want gotools and evil:\n%s", len(gets), res.stdout)
		}
		for _, l := range gets {
			if strings.Contains(l, "ANTHROPIC_API_KEY") || strings.Contains(l, "MY_SECRET_TOKEN") || !strings.Contains(l, "HOME") {
				t.Errorf("doctor: %s", l)
			}
		}
		if !strings.Contains(strings.Join(gets, "\n"), hostileEnv) {
			t.Errorf("doctor does not name the variable .mcp.json sets:\n%s", res.stdout)
		}
	})
}

func TestBaseURLCredentials(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{call("list_files", map[string]any{})}},
		llmtest.Reply{Text: "ok"},
	))
	defer srv.Close()
	target, _ := url.Parse(srv.URL)
	var mu sync.Mutex
	var queries []string
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	base := "http://user:PASSWORD@" + strings.TrimPrefix(front.URL, "http://") + "/v1?key=SECRET"
	env := []string{"AGENT_PROVIDER=openai", "AGENT_BASE_URL=" + base, "OPENAI_API_KEY=" + fakeKey}
	noSecrets := func(t *testing.T, res result) {
		t.Helper()
		for _, s := range []string{"PASSWORD", "SECRET"} {
			if strings.Contains(res.stdout+res.stderr, s) {
				t.Errorf("the output shows %s:\n%s\n%s", s, res.stdout, res.stderr)
			}
		}
	}

	t.Run("the query is kept on every request", func(t *testing.T) {
		res := runAgent(t, agentBinary(t), invocation{args: []string{"go"}, env: env})
		if res.code != 0 || res.stdout != "ok\n" {
			t.Fatalf("exit %d, stdout %q", res.code, res.stdout)
		}
		noSecrets(t, res)
		mu.Lock()
		defer mu.Unlock()
		if strings.Join(queries, " ") != "/v1/chat/completions?key=SECRET /v1/chat/completions?key=SECRET" {
			t.Errorf("requests went to %q", queries)
		}
	})
	t.Run("doctor masks the password and the query", func(t *testing.T) {
		res := runAgent(t, agentBinary(t), invocation{args: []string{"doctor", "--online"}, env: env})
		noSecrets(t, res)
		if !strings.Contains(res.stdout, "base URL   http://user:***@") || !strings.Contains(res.stdout, "/v1?key=*** (AGENT_BASE_URL)") {
			t.Errorf("doctor:\n%s", res.stdout)
		}
	})
	t.Run("a connection error masks them too", func(t *testing.T) {
		closed := httptest.NewServer(http.NotFoundHandler())
		addr := strings.TrimPrefix(closed.URL, "http://")
		closed.Close()
		env := []string{"AGENT_PROVIDER=openai", "AGENT_BASE_URL=http://user:PASSWORD@" + addr + "/v1?key=SECRET", "OPENAI_API_KEY=" + fakeKey}
		res := runAgent(t, agentBinary(t), invocation{args: []string{"go"}, env: env})
		if res.code != 1 {
			t.Errorf("exit %d; want 1", res.code)
		}
		noSecrets(t, res)
		res = runAgent(t, agentBinary(t), invocation{args: []string{"doctor", "--online"}, env: env})
		noSecrets(t, res)
	})
}
