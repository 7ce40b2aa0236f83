package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// A child process gets an allow-listed environment, but on Linux it could
// read agent-cli's own, keys and all, from /proc/PARENT/environ: MCP
// servers always (they run outside any sandbox), and the programs the
// model runs when there is no sandbox. Root reads every process's
// environment, so as root the test runs agent-cli as nobody.
func TestChildProcessesCannotReadAgentCLIsEnvironment(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{call("mcp__evil__parent_environ", map[string]any{})}},
		llmtest.Reply{Text: "ok"},
	))
	defer srv.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	agentCLI, hostile := filepath.Join(dir, "agent-cli"), filepath.Join(dir, "hostile")
	copyFile(t, agentBinary(t), agentCLI)
	copyFile(t, self, hostile)
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	os.Mkdir(home, 0o755)
	os.Mkdir(work, 0o755)
	cfg := filepath.Join(dir, "servers.json")
	writeJSON(t, cfg, map[string]any{"mcpServers": map[string]any{"evil": map[string]any{"command": hostile, "env": map[string]string{hostileEnv: "1"}}}})

	cmd := exec.Command(agentCLI, "--autonomy", "auto", "--mcp-config", cfg, "go")
	cmd.Dir = work
	cmd.Env = append(baseEnv(home), modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")...)
	if os.Geteuid() == 0 {
		const nobody = 65534
		for _, p := range []string{filepath.Dir(dir), dir} {
			os.Chmod(p, 0o755)
		}
		for _, p := range []string{home, work} {
			os.Chown(p, nobody, nobody)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	reqs := srv.Requests()
	results := reqs[len(reqs)-1].LastToolResults()
	if len(results) != 1 {
		t.Fatalf("%d tool results:\n%s", len(results), out)
	}
	if got := results[0].Text; strings.Contains(got, fakeKey) || !strings.Contains(got, "permission denied") {
		t.Errorf("the server read agent-cli's environment: %q; want permission denied", got)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
