package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/bridle-dev/bridle/sandbox"
)

// confinement is how go_run and go_test run the code a model wrote: in the
// sandbox when it works here (or --sandbox on insists), with whatever the
// code starts killed when the call ends either way.
type confinement struct {
	mode   sandbox.Mode
	err    error           // why the sandbox cannot be used here, or nil
	reaper *sandbox.Reaper // nil where there is none
	// toolchain lists GOROOT, GOMODCACHE and GOCACHE, read once.
	toolchain func() []string
}

func newConfinement(mode sandbox.Mode) *confinement {
	c := &confinement{mode: mode, toolchain: sync.OnceValue(goPaths)}
	if mode != sandbox.Off {
		c.err = sandbox.Check()
	}
	// Without it (a kernel that refuses), process groups still go.
	c.reaper, _ = sandbox.Subreaper()
	return c
}

// warning is what the server says once on stderr about the sandbox, or "".
func (c *confinement) warning() string {
	switch {
	case c.err == nil:
		return ""
	case c.mode == sandbox.On:
		return fmt.Sprintf("--sandbox on, and there is no sandbox here, so go_run and go_test will refuse to run code: %v", c.err)
	case c.mode == sandbox.Auto:
		return fmt.Sprintf("go_run and go_test will run code without a sandbox (network, and every file you can reach, open to it): %v", c.err)
	}
	return ""
}

// policy returns the sandbox a call's program runs in, with root
// writable and the other folders readable, or nil when it runs
// unconfined; the error refuses the call (--sandbox on without a sandbox).
func (c *confinement) policy(tool, root string, readOnly ...string) (*sandbox.Policy, error) {
	switch {
	case c.mode == sandbox.Off:
		return nil, nil
	case c.err != nil && c.mode == sandbox.On:
		return nil, fmt.Errorf("%s refuses to run code without a sandbox (the server was started with --sandbox on): %v", tool, c.err)
	case c.err != nil:
		return nil, nil
	}
	return &sandbox.Policy{Root: root, ReadOnly: append(readOnly, c.toolchain()...)}, nil
}

// status is the line a tool result ends with, saying how the code ran;
// where names the folder it could write.
func (c *confinement) status(p *sandbox.Policy, where string) string {
	switch {
	case p != nil:
		return "sandbox: on (no network; writes only inside " + where + " and a private /tmp; home folders hidden)"
	case c.mode == sandbox.Off:
		return "sandbox: off (the server was started with --sandbox off)"
	}
	return "sandbox: off (" + strings.TrimPrefix(c.err.Error(), sandbox.ErrUnavailable.Error()+": ") + ")"
}

// goPaths are the toolchain's folders a confined program may read: a test
// that runs the go command or reads GOROOT needs them.
func goPaths() []string {
	r, err := runGo(context.Background(), "", goEnv(), nil, "env", "-json", "GOROOT", "GOMODCACHE", "GOCACHE")
	if err != nil || r.failed() {
		return nil
	}
	var env map[string]string
	if json.Unmarshal([]byte(r.stdout), &env) != nil {
		return nil
	}
	var paths []string
	for _, k := range []string{"GOROOT", "GOMODCACHE", "GOCACHE"} {
		if v := env[k]; v != "" {
			paths = append(paths, v)
		}
	}
	return paths
}

// quoteArgs joins args into one string the go command splits back into
// them (its -exec flag): fields with spaces are quoted.
func quoteArgs(args []string) (string, error) {
	quoted := make([]string, len(args))
	for i, a := range args {
		switch {
		case a != "" && !strings.ContainsAny(a, " \t\n\r'\""):
			quoted[i] = a
		case !strings.Contains(a, "'"):
			quoted[i] = "'" + a + "'"
		case !strings.Contains(a, `"`):
			quoted[i] = `"` + a + `"`
		default:
			return "", fmt.Errorf("the path %q has both kinds of quote, which go test -exec cannot take", a)
		}
	}
	return strings.Join(quoted, " "), nil
}

// tempDir makes a folder for a call's files, removed by the function
// returned.
func tempDir(pattern string) (string, func(), error) {
	d, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}
