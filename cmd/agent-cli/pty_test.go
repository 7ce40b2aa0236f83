//go:build linux || darwin || freebsd

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/creack/pty"
)

// console is agent-cli running with stdin and stderr on a pseudo-terminal
// and stdout on a pipe, as in `agent-cli "…" > answer.md` typed at a
// terminal.
type console struct {
	t      *testing.T
	cmd    *exec.Cmd
	pty    *os.File
	stdout bytes.Buffer

	mu      sync.Mutex
	screen  bytes.Buffer  // everything written to the terminal
	seen    int           // how far waitFor has read
	changed chan struct{} // closed when screen grows or the reader ends
	ended   bool
}

func startConsole(t *testing.T, inv invocation) *console {
	t.Helper()
	bin := agentBinary(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	c := &console{t: t, pty: ptmx, changed: make(chan struct{})}
	c.cmd = exec.Command(bin, inv.args...)
	c.cmd.Dir = inv.dir
	home := inv.home
	if home == "" {
		home = t.TempDir()
	}
	c.cmd.Env = append(baseEnv(home), inv.env...)
	c.cmd.Stdin, c.cmd.Stderr, c.cmd.Stdout = tty, tty, &c.stdout
	if inv.ttyOut {
		c.cmd.Stdout = tty
	}
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	go c.read()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		ptmx.Close()
	})
	return c
}

func (c *console) read() {
	buf := make([]byte, 4096)
	for {
		n, err := c.pty.Read(buf)
		c.mu.Lock()
		c.screen.Write(buf[:n])
		// DEBUG_SCREEN names a file that gets what the terminal showed so
		// far: what a test waiting for text that never came was looking at.
		if f := os.Getenv("DEBUG_SCREEN"); f != "" {
			os.WriteFile(f, c.screen.Bytes(), 0o644)
		}
		close(c.changed)
		c.changed = make(chan struct{})
		if err != nil {
			c.ended = true
		}
		c.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// waitFor waits until the terminal shows s after what earlier waits read,
// and fails the test if the program leaves the terminal first.
func (c *console) waitFor(s string) {
	c.t.Helper()
	for {
		c.mu.Lock()
		rest := c.screen.String()[c.seen:]
		if i := strings.Index(rest, s); i >= 0 {
			c.seen += i + len(s)
			c.mu.Unlock()
			return
		}
		if c.ended {
			screen := c.screen.String()
			c.mu.Unlock()
			c.t.Fatalf("the terminal never showed %q; it showed:\n%s", s, screen)
		}
		ch := c.changed
		c.mu.Unlock()
		<-ch
	}
}

func (c *console) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.pty, s); err != nil {
		c.t.Fatal(err)
	}
}

// wait waits for the program to exit and returns its exit status.
func (c *console) wait() int {
	c.t.Helper()
	err := c.cmd.Wait()
	// What the program wrote last may still be in the terminal: read on
	// until it reports the end, when the last process holding it is gone.
	for {
		c.mu.Lock()
		ended, ch := c.ended, c.changed
		c.mu.Unlock()
		if ended {
			break
		}
		<-ch
	}
	c.t.Logf("terminal:\n%q\nstdout:\n%s", c.screenText(), c.stdout.String())
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		c.t.Fatal(err)
	}
	return 0
}

func (c *console) screenText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.screen.String()
}

const prompt = "[y]es / [a]lways / [N]o "

func TestApprovalOnATerminal(t *testing.T) {
	anthropic := func(srv *llmtest.Server) []string {
		return modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")
	}

	t.Run("y runs the call", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(
			llmtest.Reply{Calls: []llmtest.Call{writeCall("hello.txt", `hello\n`)}},
			llmtest.Reply{Text: "Done."},
		))
		defer srv.Close()
		dir := t.TempDir()
		// With colour and the spinner: the prompt must still be there.
		c := startConsole(t, invocation{args: []string{"write hello.txt"}, dir: dir, env: anthropic(srv)})
		c.waitFor("write_file hello.txt: creates it (6 bytes, 1 line)")
		c.waitFor("write_file")
		c.waitFor("(write)? " + prompt)
		c.send("y\r")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d\n%s", code, c.screenText())
		}
		if data, err := os.ReadFile(filepath.Join(dir, "hello.txt")); string(data) != "hello\n" {
			t.Errorf("hello.txt = %q, %v; want it written", data, err)
		}
		if got := c.stdout.String(); got != "Done.\n" {
			t.Errorf("stdout = %q; want the answer alone", got)
		}
		if !strings.Contains(c.screenText(), "\x1b[") {
			t.Errorf("no colour on a terminal without NO_COLOR:\n%q", c.screenText())
		}
	})

	t.Run("a runs the call and later calls of the tool without asking", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(
			llmtest.Reply{Calls: []llmtest.Call{writeCall("a.txt", `a`)}},
			llmtest.Reply{Calls: []llmtest.Call{writeCall("b.txt", `b`)}},
			llmtest.Reply{Text: "Both written."},
		))
		defer srv.Close()
		dir := t.TempDir()
		c := startConsole(t, invocation{args: []string{"write two files"}, dir: dir, env: append(anthropic(srv), "NO_COLOR=1")})
		c.waitFor("run write_file (write)? " + prompt)
		c.send("a\r")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d\n%s", code, c.screenText())
		}
		if n := strings.Count(c.screenText(), prompt); n != 1 {
			t.Errorf("asked %d times; want once:\n%s", n, c.screenText())
		}
		for _, name := range []string{"a.txt", "b.txt"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Errorf("%s was not written: %v", name, err)
			}
		}
		if strings.Contains(c.screenText(), "\x1b[") {
			t.Errorf("colour despite NO_COLOR:\n%q", c.screenText())
		}
	})

	t.Run("n declines the call and the run goes on", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(
			llmtest.Reply{Calls: []llmtest.Call{writeCall("hello.txt", `hello\n`)}},
			llmtest.Reply{Text: "Not written, as you wish."},
		))
		defer srv.Close()
		dir := t.TempDir()
		c := startConsole(t, invocation{args: []string{"write hello.txt"}, dir: dir, env: append(anthropic(srv), "NO_COLOR=1")})
		c.waitFor(prompt)
		c.send("n\r")
		c.waitFor("[tool] write_file was not run")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d\n%s", code, c.screenText())
		}
		if _, err := os.Stat(filepath.Join(dir, "hello.txt")); err == nil {
			t.Error("hello.txt was written after n")
		}
		if got := c.stdout.String(); got != "Not written, as you wish.\n" {
			t.Errorf("stdout = %q", got)
		}
	})

	t.Run("an edit is shown as a small diff before the prompt", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(
			llmtest.Reply{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"greet.go","old":"hello","new":"goodbye"}`}}},
			llmtest.Reply{Text: "Edited."},
		))
		defer srv.Close()
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "greet.go"), []byte("package greet // hello\n"), 0o644)
		c := startConsole(t, invocation{args: []string{"say goodbye"}, dir: dir, env: append(anthropic(srv), "NO_COLOR=1")})
		c.waitFor("edit_file greet.go")
		c.waitFor("- hello")
		c.waitFor("+ goodbye")
		c.waitFor("run edit_file (write)? " + prompt)
		c.send("y\r")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d\n%s", code, c.screenText())
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "greet.go")); string(data) != "package greet // goodbye\n" {
			t.Errorf("greet.go = %q", data)
		}
	})
}

func TestConversationOnATerminal(t *testing.T) {
	t.Run("each line is a turn on the same conversation and Ctrl-D leaves", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(
			llmtest.Reply{Text: "Hello!"},
			llmtest.Reply{Text: "You said hi before."},
		))
		defer srv.Close()
		c := startConsole(t, invocation{dir: t.TempDir(), env: append(modelEnv(srv, "openai", llm.OpenAI, "OPENAI_API_KEY"), "NO_COLOR=1")})
		c.waitFor("> ")
		c.send("hi\r")
		c.waitFor("> ")
		c.send("what did I say?\r")
		c.waitFor("> ")
		c.send("\x04")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d\n%s", code, c.screenText())
		}
		if got := c.stdout.String(); got != "Hello!\nYou said hi before.\n" {
			t.Errorf("stdout = %q", got)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 || len(reqs[1].Messages) != 3 {
			t.Fatalf("the second turn did not carry the first: %d requests", len(reqs))
		}
	})

	t.Run("Ctrl-C cancels the turn in progress and /exit leaves", func(t *testing.T) {
		asked := make(chan struct{}, 1)
		srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
			if r.LastMessage().Text() == "wait" {
				asked <- struct{}{}
				return llmtest.Reply{Fault: &llmtest.Fault{Stall: true}}
			}
			return llmtest.Reply{Text: "Still here."}
		})
		defer srv.Close()
		c := startConsole(t, invocation{dir: t.TempDir(), env: append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "NO_COLOR=1")})
		c.waitFor("> ")
		c.send("wait\r")
		<-asked
		c.send("\x03")
		c.waitFor("stopped: cancelled")
		c.waitFor("> ")
		c.send("half a line\x03") // Ctrl-C at the prompt drops the line
		c.waitFor("> ")
		c.send("are you there?\r")
		c.waitFor("> ")
		c.send("/exit\r")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d\n%s", code, c.screenText())
		}
		if got := c.stdout.String(); got != "Still here.\n" {
			t.Errorf("stdout = %q", got)
		}
		if last := srv.Requests()[len(srv.Requests())-1]; last.LastMessage().Text() != "are you there?" {
			t.Errorf("the last turn sent %q", last.LastMessage().Text())
		}
	})
}

func TestKeyIsReadWithoutEcho(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("agent-cli key set would store the key in the login Keychain")
	}
	const secret = "sk-typed-secret-5e4d3c"
	c := startConsole(t, invocation{args: []string{"key", "set", "anthropic"}, dir: t.TempDir(), env: []string{"NO_COLOR=1"}})
	c.waitFor("typing is hidden): ")
	c.send(secret + "\r")
	c.wait() // without a keychain service it fails; either way the key must not show
	if screen := c.screenText(); strings.Contains(screen, secret) || strings.Contains(c.stdout.String(), secret) {
		t.Fatalf("the key was shown:\n%s", screen)
	}
}

func TestProjectServersAreApprovedOnATerminal(t *testing.T) {
	dir := projectWithMCP(t)
	home := t.TempDir()
	srv := llmtest.NewServer(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	defer srv.Close()
	env := append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "NO_COLOR=1")
	ask := func(answer string) (asked bool) {
		t.Helper()
		before := len(srv.Requests())
		c := startConsole(t, invocation{args: []string{"hi"}, dir: dir, home: home, env: env})
		if answer != "" {
			c.waitFor(".mcp.json server extra: run ")
			c.waitFor("start extra? " + prompt)
			c.send(answer + "\r")
		}
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d\n%s", code, c.screenText())
		}
		reqs := srv.Requests()
		if len(reqs) != before+1 {
			t.Fatalf("%d requests; want one more than %d", len(reqs), before)
		}
		return strings.Contains(c.screenText(), "start extra?")
	}
	connected := func() bool {
		reqs := srv.Requests()
		return slices.Contains(reqs[len(reqs)-1].Tools, "mcp__extra__go_doc")
	}

	t.Run("n leaves the server out", func(t *testing.T) {
		ask("n")
		if connected() {
			t.Error("connected after n")
		}
	})
	t.Run("y connects it this time only", func(t *testing.T) {
		ask("y")
		if !connected() {
			t.Error("not connected after y")
		}
	})
	t.Run("a connects it and remembers", func(t *testing.T) {
		ask("a")
		if !connected() {
			t.Error("not connected after a")
		}
	})
	t.Run("once remembered it is connected without asking", func(t *testing.T) {
		if ask("") {
			t.Error("asked again after a")
		}
		if !connected() {
			t.Error("not connected")
		}
	})
	t.Run("doctor says it is approved", func(t *testing.T) {
		res := runAgent(t, agentBinary(t), invocation{args: []string{"doctor"}, dir: dir, home: home, env: env})
		if !strings.Contains(res.stdout, "extra: run ") || !strings.Contains(res.stdout, "(.mcp.json; approved)") {
			t.Errorf("doctor does not say extra is approved:\n%s", res.stdout)
		}
	})
}

func TestCtrlCExits130(t *testing.T) {
	bin := agentBinary(t)
	asked := make(chan struct{}, 1)
	srv := llmtest.NewServer(func(*llmtest.Request) llmtest.Reply {
		asked <- struct{}{}
		return llmtest.Reply{Fault: &llmtest.Fault{Stall: true}}
	})
	defer srv.Close()
	cmd := exec.Command(bin, "take your time")
	cmd.Dir = t.TempDir()
	cmd.Env = append(baseEnv(t.TempDir()), modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-asked
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit: %v; want status 130\nstderr:\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), "stopped: cancelled") {
		t.Errorf("stdout %q, stderr:\n%s", stdout.String(), stderr.String())
	}
}

func TestReadHidden(t *testing.T) {
	tests := []struct {
		name, typed, want string
		err               error
	}{
		{"Enter ends the key", "sk-abc\r", "sk-abc", nil},
		{"Backspace removes a character", "sk-abx\x7fc\r", "sk-abc", nil},
		{"Ctrl-U starts again", "wrong\x15sk-abc\r", "sk-abc", nil},
		{"Ctrl-C gives up", "sk-a\x03", "", errInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pseudo-terminal here: %v", err)
			}
			defer ptmx.Close()
			defer tty.Close()
			go io.Copy(io.Discard, ptmx)
			type result struct {
				key string
				err error
			}
			done := make(chan result)
			prompt := &firstWrite{shown: make(chan struct{})}
			go func() {
				k, err := readHidden(t.Context(), tty, prompt, "key: ")
				done <- result{k, err}
			}()
			<-prompt.shown // echo is off from here on
			ptmx.Write([]byte(tt.typed))
			res := <-done
			if res.key != tt.want || !errors.Is(res.err, tt.err) {
				t.Fatalf("readHidden = %q, %v; want %q, %v", res.key, res.err, tt.want, tt.err)
			}
			if got := prompt.String(); got != "key: \n" {
				t.Errorf("prompt %q", got)
			}
		})
	}
}

// firstWrite is a writer that says when it was first written to.
type firstWrite struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	shown chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() == 0 {
		close(w.shown)
	}
	return w.buf.Write(p)
}

func (w *firstWrite) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
