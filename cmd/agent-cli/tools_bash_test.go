//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/sandbox"
)

func runBash(t *testing.T, dir, args string) (string, error) {
	t.Helper()
	w, err := openWorkdir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return bashTool(w).Call(context.Background(), []byte(args))
}

func TestBashRunsInTheWorkingFolder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "here.txt"), []byte("hello\n"), 0o644)
	out, err := runBash(t, dir, `{"command":"cat here.txt; echo to-stderr >&2; echo made > new.txt"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hello\n", "to-stderr\n", "[exit code 0; sandbox: "} {
		if !strings.Contains(out, want) {
			t.Errorf("the result lacks %q:\n%s", want, out)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "new.txt")); string(data) != "made\n" {
		t.Errorf("new.txt = %q; want the command's write in the working folder", data)
	}
}

func TestBashReportsFailure(t *testing.T) {
	out, err := runBash(t, t.TempDir(), `{"command":"echo before; exit 3"}`)
	if err == nil || out != "" {
		t.Fatalf("got %q, %v; want a failed call", out, err)
	}
	for _, want := range []string{"before\n", "[exit code 3;"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the failure lacks %q:\n%v", want, err)
		}
	}
}

func TestBashGetsOnlyTheAllowedEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-secret-value")
	t.Setenv("GOFLAGS", "-count=1")
	out, err := runBash(t, t.TempDir(), `{"command":"echo key=${ANTHROPIC_API_KEY:-unset} flags=$GOFLAGS"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "key=unset flags=-count=1") {
		t.Errorf("the command saw %q; want no key and the Go variables", out)
	}
}

func TestBashKeepsTheStartAndEndOfLongOutput(t *testing.T) {
	out, err := runBash(t, t.TempDir(), `{"command":"echo first; head -c 200000 /dev/zero | tr '\\0' x; echo; echo last"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "first\n") || !strings.Contains(out, "last\n") || !strings.Contains(out, "left out …") {
		t.Errorf("the result does not keep the start, the end and a note:\n%.200s…", out)
	}
	if len(out) > bashKept+500 {
		t.Errorf("the result is %d bytes; want about %d", len(out), bashKept)
	}
}

// TestBashKillsTheProcessTreeAtTheTimeLimit starts a background process
// under a name of its own and checks that none by that name is left.
func TestBashKillsTheProcessTreeAtTheTimeLimit(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc to look for the processes in")
	}
	marker := "bridle-bash-test-" + strconv.Itoa(os.Getpid())
	_, err := runBash(t, t.TempDir(), `{"command":"(exec -a `+marker+` sleep 1000) & (setsid bash -c 'exec -a `+marker+` sleep 1000') & echo started; wait","timeout_seconds":1}`)
	if err == nil || !strings.Contains(err.Error(), "stopped at the time limit of 1s") || !strings.Contains(err.Error(), "started") {
		t.Fatalf("got %v; want the run stopped at its time limit, with its output", err)
	}
	if pids := processesNamed(marker); len(pids) > 0 {
		t.Errorf("processes %v outlived the command", pids)
	}
}

func processesNamed(name string) []string {
	entries, _ := os.ReadDir("/proc")
	var pids []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.HasPrefix(cmdline, []byte(name+"\x00")) {
			stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if !bytes.Contains(stat, []byte(") Z ")) {
				pids = append(pids, e.Name())
			}
		}
	}
	return pids
}

func TestBashSaysWhetherItWasSandboxed(t *testing.T) {
	outside := t.TempDir()
	out, err := runBash(t, t.TempDir(), `{"command":"echo x > `+filepath.Join(outside, "escaped")+`"}`)
	_, wrote := os.Stat(filepath.Join(outside, "escaped"))
	switch serr := sandbox.Check(); {
	case serr == nil:
		if err == nil || !strings.Contains(err.Error(), "sandbox: on") || wrote == nil {
			t.Errorf("in the sandbox, writing outside: %q, %v, file written %v; want a failure that says sandbox: on", out, err, wrote == nil)
		}
	case errors.Is(serr, sandbox.ErrUnavailable):
		if err != nil || !strings.Contains(out, "sandbox: off (") || wrote != nil {
			t.Errorf("without a sandbox: %q, %v; want the write done and sandbox: off with the reason", out, err)
		}
	}
}

func TestBashRefusesBadArguments(t *testing.T) {
	for _, args := range []string{`{"command":"  "}`, `{"command":"true","timeout_seconds":-1}`} {
		if _, err := runBash(t, t.TempDir(), args); err == nil {
			t.Errorf("%s was run", args)
		}
	}
}
