package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The test binary doubles as the program: started with NOTES_MCP_BE=main
// it runs main with its own arguments, so subprocess tests and the MCP
// peers exercise the real command line without a separate build.
const beEnv = "NOTES_MCP_BE"

func TestMain(m *testing.M) {
	switch os.Getenv(beEnv) {
	case "main":
		main()
		os.Exit(0)
	case "writer":
		writeForever(os.Args[1])
	}
	os.Exit(m.Run())
}

// program returns the command that runs notes-mcp with args, and the
// environment variable that makes the test binary do so.
func program(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), beEnv+"=main")
	cmd.WaitDelay = 10 * time.Second
	return cmd, beEnv + "=main"
}

// lineWriter collects what a process writes and hands each line to
// whoever waits for one matching a pattern.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
}

func newLineWriter() *lineWriter { return &lineWriter{lines: make(chan string, 100)} }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	start := w.buf.Len()
	w.buf.Write(p)
	for _, l := range strings.SplitAfter(w.buf.String()[start:], "\n") {
		if strings.HasSuffix(l, "\n") {
			select {
			case w.lines <- strings.TrimSuffix(l, "\n"):
			default:
			}
		}
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

var urlPattern = regexp.MustCompile(`http://\S+/mcp`)

// startHTTP starts notes-mcp --http 0 over dir with args, with token in
// NOTES_MCP_TOKEN when it is not empty, and returns its URL. The server is
// interrupted and must exit cleanly when the test ends.
func startHTTP(t *testing.T, dir, token string, args ...string) string {
	t.Helper()
	cmd, _ := program(t, append([]string{"--dir", dir, "--http", "0"}, args...)...)
	cmd.Env = append(cmd.Env, "NOTES_MCP_TOKEN="+token)
	stderr := newLineWriter()
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if runtime.GOOS == "windows" {
			cmd.Process.Kill()
			<-done
			return
		}
		cmd.Process.Signal(os.Interrupt)
		if err := <-done; err != nil {
			t.Errorf("notes-mcp --http did not exit cleanly when interrupted: %v\n%s", err, stderr)
		}
	})
	for {
		select {
		case line := <-stderr.lines:
			if u := urlPattern.FindString(line); u != "" {
				return u
			}
		case err := <-done:
			t.Fatalf("notes-mcp --http exited before serving: %v\n%s", err, stderr)
		}
	}
}

// writeForever replaces the note "Torn" in dir by one whole body after
// another, alternating two, and reports each write on stdout, until it is
// killed.
func writeForever(dir string) {
	s, err := openStore(dir)
	if err != nil {
		panic(err)
	}
	bodies := tornBodies()
	for i := 0; ; i++ {
		if _, err := s.put("Torn", bodies[i%2]); err != nil {
			panic(err)
		}
		os.Stdout.WriteString("wrote\n")
	}
}

func tornBodies() [2]string {
	return [2]string{strings.Repeat("a", 300_000), strings.Repeat("b", 200_000)}
}

func TestAKilledWriteLeavesAWholeNote(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the kill test uses Unix signals")
	}
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bodies := tornBodies()
	for round := range 5 {
		cmd := exec.Command(exe, dir)
		cmd.Env = append(os.Environ(), beEnv+"=writer")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill it somewhere in the middle of a later write.
		r := bufio.NewReader(out)
		for range 3 + round {
			if _, err := r.ReadString('\n'); err != nil {
				t.Fatalf("writer stopped: %v", err)
			}
		}
		cmd.Process.Kill()
		io.Copy(io.Discard, r)
		var exit *exec.ExitError
		if err := cmd.Wait(); !errors.As(err, &exit) {
			t.Fatalf("writer was not killed: %v", err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "Torn.md"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != bodies[0] && string(got) != bodies[1] {
			t.Fatalf("round %d: after a kill the note is %d bytes and neither body", round, len(got))
		}
	}
	s, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if titles, err := s.titles(); err != nil || len(titles) != 1 {
		t.Errorf("after kills the notes are %q, %v; want only Torn (leftover temporary files hidden)", titles, err)
	}
}

func TestRunCommandLine(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		out   string // in stdout
		err   string // in the error
		usage bool   // the error is a usage error
	}{
		{name: "--help prints the usage", args: []string{"--help"}, out: "notes-mcp [--dir DIR] --http PORT"},
		{name: "-h prints the usage", args: []string{"-h"}, out: "NOTES_MCP_TOKEN"},
		{name: "--version prints the version", args: []string{"--version"}, out: "notes-mcp "},
		{name: "an unknown flag is a usage error", args: []string{"--bogus"}, err: "flag provided but not defined: -bogus", usage: true},
		{name: "a stray argument is a usage error", args: []string{"notes"}, err: `unexpected argument "notes"`, usage: true},
		{name: "a port that is not a number is a usage error", args: []string{"--http", "eighty"}, err: `--http wants a port number from 0 to 65535, not "eighty"`, usage: true},
		{name: "a port out of range is a usage error", args: []string{"--http", "70000"}, err: "from 0 to 65535", usage: true},
		{name: "--addr without --http is a usage error", args: []string{"--addr", "127.0.0.1"}, err: "--addr only applies with --http", usage: true},
		{name: "listening beyond loopback without a token is refused", args: []string{"--http", "0", "--addr", "0.0.0.0"}, err: "without a token: set NOTES_MCP_TOKEN", usage: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), c.args, strings.NewReader(""), &stdout, &stderr)
			if c.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(stdout.String(), c.out) {
					t.Errorf("stdout = %q, want it to contain %q", stdout.String(), c.out)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("run(%q) = %v, want an error containing %q", c.args, err, c.err)
			}
			var u usageError
			if errors.As(err, &u) != c.usage {
				t.Errorf("usage error = %v, want %v", !c.usage, c.usage)
			}
		})
	}
}

func TestRunServesStdioUntilStdinEnds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "notes")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"--dir", dir}, inR, outW, &stderr)
		outW.Close()
	}()
	go io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer on stdout: %v", err)
	}
	if !strings.Contains(line, `"notes-mcp"`) {
		t.Errorf("stdout = %q, want an initialize result naming notes-mcp", line)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the notes folder was not created: %v", err)
	}
}

func TestNotesDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the defaults below are the Unix ones")
	}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, flag string
		getenv     func(string) string
		want       string
	}{
		{"--dir comes first", "/a", env("NOTES_DIR", "/b", "XDG_DATA_HOME", "/c", "HOME", "/h"), "/a"},
		{"NOTES_DIR comes next", "", env("NOTES_DIR", "/b", "XDG_DATA_HOME", "/c", "HOME", "/h"), "/b"},
		{"XDG_DATA_HOME comes next", "", env("XDG_DATA_HOME", "/c", "HOME", "/h"), "/c/notes-mcp"},
		{"a relative XDG_DATA_HOME is ignored", "", env("XDG_DATA_HOME", "rel", "HOME", "/h"), "/h/.local/share/notes-mcp"},
		{"the home folder is the last resort", "", env("HOME", "/h"), "/h/.local/share/notes-mcp"},
		{"a leading ~/ in --dir is the home folder", "~/Notes", env("HOME", "/h"), "/h/Notes"},
		{"a leading ~/ in NOTES_DIR is the home folder", "", env("NOTES_DIR", "~/N", "HOME", "/h"), "/h/N"},
		{"a relative --dir is made absolute", "rel", env(), filepath.Join(cwd, "rel")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := notesDir(c.flag, c.getenv)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("notesDir = %q, want %q", got, c.want)
			}
		})
	}
	t.Run("no home folder and nothing set is an error that says what to set", func(t *testing.T) {
		_, err := notesDir("", env())
		wantErr(t, err, "set NOTES_DIR or pass --dir")
	})
}
