package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// The end-to-end tests build agent-cli (and, for some, gotools-mcp next to
// it) once, into a temporary folder, and run it against an llmtest server.

var bins struct {
	mu    sync.Mutex
	dir   string
	built map[string]error
}

func TestMain(m *testing.M) {
	if os.Getenv(hostileEnv) != "" {
		// The test binary plays a hostile MCP server for agent-cli.
		serveHostile()
		return
	}
	code := m.Run()
	if bins.dir != "" {
		os.RemoveAll(bins.dir)
	}
	os.Exit(code)
}

// binary builds the command in pkg (relative to this folder) once and
// returns its path. With race set it is built with the race detector when
// the tests run with it.
func binary(t *testing.T, name, pkg string, race bool) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds binaries; skipped with -short")
	}
	bins.mu.Lock()
	defer bins.mu.Unlock()
	if bins.dir == "" {
		dir, err := os.MkdirTemp("", "agent-cli-test-")
		if err != nil {
			t.Fatal(err)
		}
		bins.dir, bins.built = dir, map[string]error{}
	}
	path := filepath.Join(bins.dir, name)
	if err, done := bins.built[name]; done {
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	args := []string{"build", "-o", path}
	if race && raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, pkg)...).CombinedOutput()
	if err != nil {
		err = errors.New("go build " + pkg + ": " + err.Error() + "\n" + string(out))
	}
	bins.built[name] = err
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func agentBinary(t *testing.T) string { return binary(t, "agent-cli", ".", true) }

// withGotools builds gotools-mcp next to agent-cli, where agent-cli finds it.
func withGotools(t *testing.T) string { return binary(t, "gotools-mcp", "../gotools-mcp", false) }

const fakeKey = "sk-fake-key-9f8e7d6c5b4a"

// dialects are the two wire protocols, each reached through its preset.
var dialects = []struct {
	name    string
	dialect llm.Dialect
	keyEnv  string
}{
	{"anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"},
	{"openai", llm.OpenAI, "OPENAI_API_KEY"},
}

type result struct {
	stdout, stderr string
	code           int
}

// invocation is one run of the agent-cli binary.
type invocation struct {
	args  []string
	env   []string // added to a clean environment
	dir   string   // the working folder; empty means a new one
	stdin string
	home  string // HOME and the configuration folder; empty means a new one
	// ttyOut puts stdout on the pseudo-terminal too (startConsole only).
	ttyOut bool
}

// baseEnv is a clean environment: no key, no keychain (on systems with a
// Secret Service), no gotools-mcp, a home of its own; the Go variables pass
// through for gotools-mcp.
func baseEnv(home string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"GOTOOLS_BIN=off",
		// No Secret Service: the tests never touch a real keychain.
		"DBUS_SESSION_BUS_ADDRESS=unix:path=" + filepath.Join(home, "no-bus"),
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GO") && !strings.HasPrefix(kv, "GOTOOLS_BIN=") {
			env = append(env, kv)
		}
	}
	if _, ok := os.LookupEnv("GOCACHE"); !ok {
		if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output(); err == nil {
			f := strings.Fields(string(out))
			if len(f) == 2 {
				env = append(env, "GOCACHE="+f[0], "GOMODCACHE="+f[1])
			}
		}
	}
	return env
}

func runAgent(t *testing.T, bin string, inv invocation) result {
	t.Helper()
	home := inv.home
	if home == "" {
		home = t.TempDir()
	}
	cmd := exec.Command(bin, inv.args...)
	cmd.Dir = inv.dir
	if cmd.Dir == "" {
		cmd.Dir = t.TempDir()
	}
	cmd.Env = append(baseEnv(home), inv.env...)
	cmd.Stdin = strings.NewReader(inv.stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	t.Logf("agent-cli %s\nstdout:\n%s\nstderr:\n%s", strings.Join(inv.args, " "), res.stdout, res.stderr)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	for _, out := range []string{res.stdout, res.stderr} {
		if strings.Contains(out, fakeKey) || strings.Contains(out, fakeKey[8:]) {
			t.Fatalf("the key appears in the output:\n%s", out)
		}
	}
	return res
}

// modelEnv points agent-cli at srv through the preset of dialect d.
func modelEnv(srv *llmtest.Server, name string, d llm.Dialect, keyEnv string) []string {
	return []string{"AGENT_PROVIDER=" + name, "AGENT_BASE_URL=" + srv.Config(d).BaseURL, keyEnv + "=" + fakeKey}
}

func writeCall(path, content string) llmtest.Call {
	return llmtest.Call{Name: "write_file", Args: `{"path":"` + path + `","content":"` + content + `"}`}
}

func TestEndToEnd(t *testing.T) {
	bin := agentBinary(t)
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			t.Run("stdout holds only the answer and stderr the activity", func(t *testing.T) {
				srv := llmtest.NewServer(llmtest.Replies(
					llmtest.Reply{Text: "Let me look at the folder.", Calls: []llmtest.Call{{Name: "list_files", Args: `{}`}}},
					llmtest.Reply{Text: "The folder holds notes.txt."},
				))
				defer srv.Close()
				dir := t.TempDir()
				os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hi\n"), 0o644)
				res := runAgent(t, bin, invocation{args: []string{"what is in this folder?"}, dir: dir, env: modelEnv(srv, d.name, d.dialect, d.keyEnv)})
				if res.code != 0 || res.stdout != "The folder holds notes.txt.\n" {
					t.Fatalf("exit %d, stdout %q; want 0 and the answer alone\nstderr:\n%s", res.code, res.stdout, res.stderr)
				}
				for _, want := range []string{"[tool] list_files", "Let me look at the folder."} {
					if !strings.Contains(res.stderr, want) {
						t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
					}
				}
				reqs := srv.Requests()
				if len(reqs) != 2 {
					t.Fatalf("%d requests; want 2", len(reqs))
				}
				if !reqs[0].HasKey(fakeKey) {
					t.Error("the request did not carry the key from " + d.keyEnv)
				}
				for _, name := range []string{"read_file", "list_files", "write_file", "edit_file"} {
					if !slices.Contains(reqs[0].Tools, name) {
						t.Errorf("the model was not offered %s: %v", name, reqs[0].Tools)
					}
				}
				if res := reqs[1].LastToolResults(); len(res) != 1 || !strings.Contains(res[0].Text, "notes.txt") {
					t.Errorf("the model read %+v from list_files; want notes.txt in it", res)
				}
			})

			for _, tc := range []struct {
				autonomy string
				written  bool
				stderr   string
			}{
				{"read-only", false, "[tool] write_file was not run"},
				{"ask", false, "[tool] write_file was not run"},
				{"edits", true, "[tool] write_file hello.txt"},
				{"auto", true, "[tool] write_file hello.txt"},
			} {
				what := "does not write the file"
				if tc.written {
					what = "writes the file"
				}
				t.Run("autonomy "+tc.autonomy+" without a terminal "+what, func(t *testing.T) {
					srv := llmtest.NewServer(llmtest.Replies(
						llmtest.Reply{Calls: []llmtest.Call{writeCall("hello.txt", `hello\n`)}},
						llmtest.Reply{Text: "Done."},
					))
					defer srv.Close()
					dir := t.TempDir()
					res := runAgent(t, bin, invocation{args: []string{"--autonomy", tc.autonomy, "write hello.txt"}, dir: dir, env: modelEnv(srv, d.name, d.dialect, d.keyEnv)})
					if res.code != 0 || res.stdout != "Done.\n" {
						t.Fatalf("exit %d, stdout %q; want 0 and Done.\nstderr:\n%s", res.code, res.stdout, res.stderr)
					}
					if !strings.Contains(res.stderr, tc.stderr) {
						t.Errorf("stderr lacks %q:\n%s", tc.stderr, res.stderr)
					}
					data, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
					if tc.written && string(data) != "hello\n" {
						t.Errorf("hello.txt = %q, %v; want it written", data, err)
					}
					if !tc.written && err == nil {
						t.Errorf("hello.txt was written under autonomy %s", tc.autonomy)
					}
				})
			}

			t.Run("a run that reaches the step limit says so and exits 0", func(t *testing.T) {
				srv := llmtest.NewServer(llmtest.Replies(
					llmtest.Reply{Calls: []llmtest.Call{{Name: "list_files"}}},
				))
				defer srv.Close()
				res := runAgent(t, bin, invocation{args: []string{"--max-steps", "1", "look around"}, env: modelEnv(srv, d.name, d.dialect, d.keyEnv)})
				if res.code != 0 || res.stdout != "" {
					t.Fatalf("exit %d, stdout %q; want 0 and nothing\nstderr:\n%s", res.code, res.stdout, res.stderr)
				}
				if !strings.Contains(res.stderr, "stopped: step limit after 1 step") {
					t.Errorf("stderr lacks the stop:\n%s", res.stderr)
				}
			})

			t.Run("a failed tool call is shown and the run goes on", func(t *testing.T) {
				srv := llmtest.NewServer(llmtest.Replies(
					llmtest.Reply{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"../etc/passwd"}`}}},
					llmtest.Reply{Text: "I may not read that."},
				))
				defer srv.Close()
				res := runAgent(t, bin, invocation{args: []string{"read /etc/passwd"}, env: modelEnv(srv, d.name, d.dialect, d.keyEnv)})
				if res.code != 0 || res.stdout != "I may not read that.\n" {
					t.Fatalf("exit %d, stdout %q\nstderr:\n%s", res.code, res.stdout, res.stderr)
				}
				if !strings.Contains(res.stderr, "[tool] read_file failed") {
					t.Errorf("stderr lacks the failure:\n%s", res.stderr)
				}
			})

			t.Run("the question can come on stdin, whole replies with --no-stream", func(t *testing.T) {
				srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "Four."}))
				defer srv.Close()
				res := runAgent(t, bin, invocation{args: []string{"--no-stream"}, stdin: "what is 2+2?\n", env: modelEnv(srv, d.name, d.dialect, d.keyEnv)})
				if res.code != 0 || res.stdout != "Four.\n" {
					t.Fatalf("exit %d, stdout %q\nstderr:\n%s", res.code, res.stdout, res.stderr)
				}
				req := srv.Requests()[0]
				if req.Stream || req.LastMessage().Text() != "what is 2+2?" {
					t.Errorf("request: stream %v, question %q; want a whole reply to the question", req.Stream, req.LastMessage().Text())
				}
			})

			t.Run("a refusal from the provider exits 1 without showing the key", func(t *testing.T) {
				srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Fault: &llmtest.Fault{Status: 401}}))
				defer srv.Close()
				res := runAgent(t, bin, invocation{args: []string{"hi"}, env: modelEnv(srv, d.name, d.dialect, d.keyEnv)})
				if res.code != 1 || res.stdout != "" || !strings.Contains(res.stderr, "401") {
					t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant 1, nothing, and the status", res.code, res.stdout, res.stderr)
				}
			})

			t.Run("a rate limit is retried and shown", func(t *testing.T) {
				srv := llmtest.NewServer(llmtest.Replies(
					llmtest.Reply{Fault: &llmtest.Fault{Status: 429, Header: map[string][]string{"Retry-After-Ms": {"1"}}}},
					llmtest.Reply{Text: "ok"},
				))
				defer srv.Close()
				res := runAgent(t, bin, invocation{args: []string{"hi"}, env: modelEnv(srv, d.name, d.dialect, d.keyEnv)})
				if res.code != 0 || res.stdout != "ok\n" {
					t.Fatalf("exit %d, stdout %q\nstderr:\n%s", res.code, res.stdout, res.stderr)
				}
				if !strings.Contains(res.stderr, "retrying in 1ms (rate limited)") {
					t.Errorf("stderr lacks the retry:\n%s", res.stderr)
				}
			})
		})
	}
}

func TestConfigurationErrors(t *testing.T) {
	bin := agentBinary(t)
	tests := []struct {
		name   string
		inv    invocation
		stderr []string
	}{
		{"an unknown provider is named with the known ones", invocation{args: []string{"hi"}, env: []string{"AGENT_PROVIDER=x"}},
			[]string{"unknown AGENT_PROVIDER 'x'", "anthropic, openai"}},
		{"an unknown --provider is named as the flag", invocation{args: []string{"--provider", "y", "hi"}},
			[]string{"unknown --provider 'y'"}},
		{"a missing key says which variable to set", invocation{args: []string{"hi"}, env: []string{"AGENT_BASE_URL=http://127.0.0.1:1"}},
			[]string{"set ANTHROPIC_API_KEY"}},
		{"a preset without a default model asks for AGENT_MODEL", invocation{args: []string{"hi"}, env: []string{"AGENT_PROVIDER=ollama"}},
			[]string{"set AGENT_MODEL"}},
		{"an unknown autonomy lists the known ones", invocation{args: []string{"--autonomy", "yolo", "hi"}},
			[]string{`unknown autonomy "yolo"`, "read-only, ask, edits or auto"}},
		{"an unknown flag points at --help", invocation{args: []string{"--frobnicate", "hi"}},
			[]string{"-frobnicate", "--help"}},
		{"a missing folder is named", invocation{args: []string{"--dir", "/does/not/exist", "hi"}, env: []string{"ANTHROPIC_API_KEY=" + fakeKey}},
			[]string{`working folder "/does/not/exist" does not exist`}},
		{"a broken --mcp-config is an error", invocation{args: []string{"--mcp-config", "/does/not/exist.json", "hi"}, env: []string{"ANTHROPIC_API_KEY=" + fakeKey}},
			[]string{"MCP config /does/not/exist.json does not exist"}},
		{"no question and no terminal says what to give", invocation{env: []string{"ANTHROPIC_API_KEY=" + fakeKey}},
			[]string{"no question"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runAgent(t, bin, tt.inv)
			if res.code != 1 || res.stdout != "" {
				t.Fatalf("exit %d, stdout %q; want 1 and nothing\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(res.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
				}
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	bin := agentBinary(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"--help shows the flags, examples and variables", []string{"--help"},
			[]string{"--autonomy", "--max-steps", "--dir", "--mcp-config", "--no-stream", "--provider", "--model", "--version", "Examples:", "AGENT_PROVIDER", "AGENT_MODEL", "AGENT_BASE_URL"}},
		{"--version prints the version", []string{"--version"}, []string{"agent-cli "}},
		{"doctor --help shows --online", []string{"doctor", "--help"}, []string{"--online"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runAgent(t, bin, invocation{args: tt.args})
			if res.code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", res.code, res.stderr)
			}
			for _, want := range tt.want {
				if !strings.Contains(res.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
				}
			}
		})
	}
}
