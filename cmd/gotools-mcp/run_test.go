package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// programs written for go_run's faults.
const (
	readsStdin = `package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	b, err := io.ReadAll(os.Stdin)
	fmt.Printf("read %d bytes: %q, err %v\n", len(b), b, err)
}
`
	neverEnds = `package main

func main() {
	for {
	}
}
`
	floods = `package main

import (
	"bytes"
	"os"
)

func main() {
	line := append(bytes.Repeat([]byte("x"), 1023), '\n')
	for {
		os.Stdout.Write(line)
	}
}
`
	fails = `package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "something went wrong")
	os.Exit(3)
}
`
)

func TestRun(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, testdataRoot(t))
	runCases(t, s, "go_run", []toolCase{
		{"a main package runs with its arguments", map[string]any{"path": "clean", "args": []string{"Ada", "Bob"}},
			expect{prefix: "exit code: 0\n\nstdout:\nhello, Ada\nhello, Bob\n\nstderr: (empty)\n\nsandbox: "}},
		{"a file means its package", map[string]any{"path": "clean/main.go", "args": []string{"Ada"}},
			expect{has: []string{"hello, Ada"}}},
		{"a program using a module from the cache runs", map[string]any{"path": "withdep"},
			expect{has: []string{"exit code: 0", `["x","y"]`}}},
		{"code runs", map[string]any{"code": "package main\n\nfunc main() { println(\"hi\") }\n"},
			expect{prefix: "exit code: 0\n\nstdout: (empty)\n\nstderr:\nhi\n\nsandbox: "}},
		{"the exit code and stderr of a failing program are reported", map[string]any{"code": fails},
			expect{has: []string{"exit code: 3", "stderr:\nsomething went wrong\n"}}},
		{"stdin is given to the program", map[string]any{"code": readsStdin, "stdin": "abc"},
			expect{has: []string{`read 3 bytes: "abc", err <nil>`}}},
		{"a program reading stdin gets its end when none is given", map[string]any{"code": readsStdin},
			expect{has: []string{`read 0 bytes: "", err <nil>`, "exit code: 0"}}},
		{"a program that never ends is stopped at the time limit", map[string]any{"code": neverEnds, "timeout_seconds": 1},
			expect{has: []string{"the program did not finish within 1s and was stopped (its whole process group was killed)", "exit code: none (killed)"}}},
		{"a program that prints without end is stopped and its output cut", map[string]any{"code": floods},
			expect{has: []string{"the program wrote more than 16 MiB of output and was stopped", "left out …", "stdout:\nxxxx"}}},
		{"a build failure gives the diagnostics", map[string]any{"path": "typeerror"},
			expect{fails: true, has: []string{"the build failed:\ntypeerror/main.go:6:14: cannot use"}}},
		{"code that does not parse gives the diagnostics", map[string]any{"code": "package main\n\nfunc main() {"},
			expect{fails: true, has: []string{"the build failed:\nmain.go:3:14: syntax error"}}},
		{"code that is not package main is refused", map[string]any{"code": "package shapes\n"},
			expect{fails: true, has: []string{"the code is package shapes: go_run needs package main"}}},
		{"a package that is not main is refused", map[string]any{"path": "clean/greet"},
			expect{fails: true, has: []string{"clean/greet is not a main package (package greet)"}}},
		{"a time limit over the cap is refused", map[string]any{"code": neverEnds, "timeout_seconds": 1000},
			expect{fails: true, has: []string{"timeout_seconds is 1000: the limit is 120"}}},
		{"a path outside the root is refused", map[string]any{"path": "/"},
			expect{fails: true, has: []string{"outside the project root"}}},
	}, func(t *testing.T, text string) {
		if len(text) > 3*defaultCapture {
			t.Errorf("answer is %d bytes long", len(text))
		}
	})
}

func TestRunLeavesNoTemporaryFilesBehind(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s := newTestServer(t, testdataRoot(t))
	call(t, s, "go_run", map[string]any{"code": "package main\n\nfunc main() {}\n"})
	call(t, s, "go_check", map[string]any{"code": "package main\n\nfunc main() {}\n"})
	call(t, s, "go_run", map[string]any{"path": "clean"})
	matches, err := filepath.Glob(filepath.Join(tmp, "gotools-mcp-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) > 0 {
		t.Errorf("left behind: %s", strings.Join(matches, ", "))
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatal(err)
	}
}

func TestTheServerIsUnharmedByFaults(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, testdataRoot(t))
	faults := []struct {
		tool string
		args map[string]any
	}{
		{"go_run", map[string]any{"code": neverEnds, "timeout_seconds": 1}},
		{"go_run", map[string]any{"code": floods}},
		{"go_run", map[string]any{"code": readsStdin}},
		{"go_run", map[string]any{"code": "package main\n\nfunc main() { panic(\"boom\") }\n"}},
		{"go_check", map[string]any{"code": "this is not Go"}},
		{"go_fmt", map[string]any{"code": "package"}},
		{"go_test", map[string]any{"path": "/"}},
		{"go_doc", map[string]any{"symbol": "nosuchpackage.Nothing"}},
	}
	for _, f := range faults {
		text, _ := call(t, s, f.tool, f.args)
		if text == "" {
			t.Errorf("%s %v: empty answer", f.tool, f.args)
		}
	}
	text, failed := call(t, s, "go_run", map[string]any{"path": "clean", "args": []string{"Ada"}})
	expect{has: []string{"exit code: 0", "hello, Ada"}}.check(t, text, failed)
}
