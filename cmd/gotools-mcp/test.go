package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/sandbox"
	"github.com/bridle-dev/bridle/tool"
)

type testIn struct {
	Path           string `json:"path" jsonschema:"a folder of the project (its packages and all below it) or a file (its package), relative to the project root"`
	Run            string `json:"run,omitempty" jsonschema:"a regular expression selecting the tests to run, as go test -run; empty runs them all"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"how long each test binary may run before it is stopped, in seconds: default 30, at most 120"`
}

const testDescription = `Run go test on the package at path, or on every package in and below a folder, and summarise: how many tests passed, failed and were skipped, the output of each failed test, build failures with file:line:col diagnostics, and the result per package.
The answer says whether the tests ran in the sandbox (no network; writes only inside the project root and a private /tmp).
A test binary that runs longer than timeout_seconds (default 30, at most 120) is stopped and the tests still running are reported with their output.`

func (g *gotools) testTool() tool.Tool {
	return tool.New("go_test", testDescription, tool.Exec, g.test)
}

func (g *gotools) test(ctx context.Context, in testIn) (string, error) {
	timeout, err := callTimeout(in.TimeoutSeconds)
	if err != nil {
		return "", err
	}
	if in.Path == "" {
		return "", fmt.Errorf("go_test needs path: a folder or file of the project, relative to its root")
	}
	p, err := g.locatePlace("go_test", in.Path, "")
	if err != nil {
		return "", err
	}
	defer p.cleanup()
	if strings.HasPrefix(in.Run, "-") {
		return "", fmt.Errorf("run %q starts with '-': give a regular expression matching test names, like TestParse or TestParse/empty", in.Run)
	}

	args := []string{"test", "-json", "-timeout=" + timeout.String()}
	if in.Run != "" {
		args = append(args, "-run="+in.Run)
	}
	// The test binaries are built in a folder of the call's own, which the
	// sandbox lets them read; go test runs each through bwrap (-exec), so
	// the compiler runs as the server does and only the tests are confined.
	work, cleanup, err := tempDir("gotools-mcp-test-")
	if err != nil {
		return "", fmt.Errorf("cannot make a folder for the test binaries: %v", err)
	}
	defer cleanup()
	env := append(p.env[:len(p.env):len(p.env)], "GOTMPDIR="+work)
	readOnly := []string{work}
	if !within(g.ws.root, p.dir) {
		readOnly = append(readOnly, p.dir)
	}
	policy, err := g.box.policy("go_test", g.ws.root, readOnly...)
	if err != nil {
		return "", err
	}
	if policy != nil {
		wrap, err := sandbox.Wrapper(*policy)
		if err != nil {
			return "", fmt.Errorf("cannot confine the tests: %v", err)
		}
		prefix, err := quoteArgs(wrap)
		if err != nil {
			return "", fmt.Errorf("cannot confine the tests: %v", err)
		}
		args = append(args, "-exec="+prefix)
	}
	pattern := p.packages
	if strings.HasSuffix(in.Path, ".go") {
		pattern = p.pkg
	}
	args = append(args, pattern)

	results := newTestRun()
	var stderr capture
	c := command{
		dir:    p.dir,
		path:   "go",
		args:   args,
		env:    env,
		reaper: g.box.reaper,
		// The test binary stops itself at timeout; building it gets more.
		timeout:   timeout + goTimeout/2,
		stdout:    results,
		stderr:    &stderr,
		maxOutput: 4 * maxOutput,
	}
	o, err := execute(ctx, c)
	if err != nil {
		return "", fmt.Errorf("cannot run go test: %v", err)
	}
	if o.cancelled {
		return "", ctx.Err()
	}
	results.flush()
	out := results.summary(p)
	if how := o.describe(c); how != "" {
		out = "go test " + how + "\n\n" + out
	}
	if e := strings.TrimSpace(p.show(stderr.String())); e != "" {
		out += "\ngo test said:\n" + e + "\n"
	}
	return out + "\n" + g.box.status(policy, "the project root") + "\n", nil
}

// testEvent is one line of go test -json (test2json, and the build
// events of go build -json).
type testEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	Elapsed     float64
	ImportPath  string
	FailedBuild string
}

type testCase struct {
	pkg, name string
	state     string // "run", "pass", "fail" or "skip"
	output    *capture
}

type pkgResult struct {
	name        string
	state       string // "", "pass", "fail" or "skip"
	elapsed     float64
	cached      bool
	noTests     bool
	failedBuild string
	output      *capture
}

// testRun reads go test -json as it is written and keeps what a summary
// needs, with each test's output capped.
type testRun struct {
	pending []byte
	tests   []*testCase
	byKey   map[[2]string]*testCase
	pkgs    []*pkgResult
	byPkg   map[string]*pkgResult
	build   map[string]*capture
	other   capture
}

func newTestRun() *testRun {
	return &testRun{
		byKey: map[[2]string]*testCase{},
		byPkg: map[string]*pkgResult{},
		build: map[string]*capture{},
	}
}

// maxLine is the longest line kept whole; go test -json splits longer
// output, so only a line that is not JSON can reach it.
const maxLine = 1 << 20

func (r *testRun) Write(p []byte) (int, error) {
	r.pending = append(r.pending, p...)
	for {
		i := bytes.IndexByte(r.pending, '\n')
		if i < 0 {
			break
		}
		r.line(r.pending[:i])
		r.pending = r.pending[i+1:]
	}
	if len(r.pending) > maxLine {
		r.other.Write(r.pending)
		r.pending = r.pending[:0]
	}
	// Keep the buffer from growing without bound on a steady stream.
	if cap(r.pending) > 4*maxLine {
		r.pending = append([]byte(nil), r.pending...)
	}
	return len(p), nil
}

func (r *testRun) flush() {
	if len(r.pending) > 0 {
		r.line(r.pending)
		r.pending = nil
	}
}

func (r *testRun) line(b []byte) {
	var e testEvent
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &e) != nil {
		r.other.Write(append(b, '\n'))
		return
	}
	switch e.Action {
	case "build-output":
		c := r.build[e.ImportPath]
		if c == nil {
			c = &capture{Limit: 16 << 10}
			r.build[e.ImportPath] = c
		}
		c.Write([]byte(e.Output))
		return
	case "build-fail":
		return
	}
	if e.Package == "" {
		return
	}
	pkg := r.byPkg[e.Package]
	if pkg == nil {
		pkg = &pkgResult{name: e.Package, output: &capture{Limit: 8 << 10}}
		r.byPkg[e.Package] = pkg
		r.pkgs = append(r.pkgs, pkg)
	}
	if e.Test == "" {
		switch e.Action {
		case "output":
			if strings.Contains(e.Output, "[no test files]") {
				pkg.noTests = true
			}
			if strings.Contains(e.Output, "(cached)") {
				pkg.cached = true
			}
			pkg.output.Write([]byte(e.Output))
		case "pass", "fail", "skip":
			pkg.state = e.Action
			pkg.elapsed = e.Elapsed
			pkg.failedBuild = e.FailedBuild
		}
		return
	}
	key := [2]string{e.Package, e.Test}
	t := r.byKey[key]
	if t == nil {
		t = &testCase{pkg: e.Package, name: e.Test, state: "run", output: &capture{Limit: 8 << 10}}
		r.byKey[key] = t
		r.tests = append(r.tests, t)
	}
	switch e.Action {
	case "output":
		if !frameworkLine(e.Output) {
			t.output.Write([]byte(e.Output))
		}
	case "pass", "fail", "skip":
		t.state = e.Action
	}
}

// frameworkLine reports the lines go test writes about a test rather than
// the test itself.
func frameworkLine(s string) bool {
	t := strings.TrimLeft(s, " ")
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS:", "--- FAIL:", "--- SKIP:"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// counted reports which tests the totals count: every test that has no
// subtests, and a parent that failed on its own account.
func (r *testRun) counted() map[*testCase]bool {
	parents := map[[2]string]bool{}
	for _, t := range r.tests {
		for i := range len(t.name) {
			if t.name[i] == '/' {
				parents[[2]string{t.pkg, t.name[:i]}] = true
			}
		}
	}
	counted := map[*testCase]bool{}
	for _, t := range r.tests {
		if !parents[[2]string{t.pkg, t.name}] ||
			t.state == "fail" && strings.TrimSpace(t.output.String()) != "" {
			counted[t] = true
		}
	}
	return counted
}

// maxSummary bounds the failure section of a summary.
const maxSummary = 64 << 10

func (r *testRun) summary(p place) string {
	var passed, failed, skipped, unfinished int
	var fails, skips strings.Builder
	counted := r.counted()
	for _, t := range r.tests {
		if !counted[t] {
			continue
		}
		switch t.state {
		case "pass":
			passed++
		case "skip":
			skipped++
			why := strings.TrimSpace(t.output.String())
			if why != "" {
				why = ": " + strings.Join(strings.Fields(why), " ")
			}
			fmt.Fprintf(&skips, "  %s (%s)%s\n", t.name, t.pkg, why)
		case "fail", "run":
			head := "--- FAIL"
			if t.state == "fail" {
				failed++
			} else {
				unfinished++
				head = "--- DID NOT FINISH"
			}
			if fails.Len() > maxSummary {
				fmt.Fprintf(&fails, "%s: %s (%s): output left out, the summary is long\n", head, t.name, t.pkg)
				continue
			}
			fmt.Fprintf(&fails, "%s: %s (%s)\n", head, t.name, t.pkg)
			if out := strings.TrimRight(t.output.String(), "\n"); out != "" {
				fails.WriteString(out + "\n")
			}
			fails.WriteString("\n")
		}
	}

	var pkgs strings.Builder
	var ok, bad, none int
	importPaths := make([]string, 0, len(r.build))
	for ip := range r.build {
		importPaths = append(importPaths, ip)
	}
	slices.Sort(importPaths)
	for _, ip := range importPaths {
		out := strings.TrimSpace(p.show(r.build[ip].String()))
		if out != "" {
			fmt.Fprintf(&fails, "--- BUILD FAILED: %s\n%s\n\n", strings.Fields(ip)[0], out)
		}
	}
	for _, pkg := range r.pkgs {
		switch {
		case pkg.noTests:
			none++
			fmt.Fprintf(&pkgs, "  ?     %s [no test files]\n", pkg.name)
		case pkg.state == "pass" || pkg.state == "skip":
			ok++
			fmt.Fprintf(&pkgs, "  ok    %s %s\n", pkg.name, elapsed(pkg))
		default:
			bad++
			note := elapsed(pkg)
			if pkg.failedBuild != "" {
				note = "[build failed]"
			} else if !r.anyFailed(pkg.name) {
				// The package failed outside any test: in init, TestMain,
				// or a crash. Its own output says how.
				if out := packageOutput(pkg); out != "" {
					fmt.Fprintf(&fails, "--- FAIL: package %s\n%s\n\n", pkg.name, out)
				}
			}
			fmt.Fprintf(&pkgs, "  FAIL  %s %s\n", pkg.name, note)
		}
	}

	var sb strings.Builder
	verdict := "PASS"
	if failed+unfinished > 0 || bad > 0 {
		verdict = "FAIL"
	} else if passed+skipped == 0 {
		verdict = "NO TESTS RAN"
	}
	fmt.Fprintf(&sb, "%s: %d passed, %d failed, %d skipped", verdict, passed, failed, skipped)
	if unfinished > 0 {
		fmt.Fprintf(&sb, ", %d did not finish", unfinished)
	}
	fmt.Fprintf(&sb, " (packages: %d ok, %d failed, %d without tests)\n\n", ok, bad, none)
	sb.WriteString(fails.String())
	if skips.Len() > 0 {
		sb.WriteString("skipped:\n" + skips.String() + "\n")
	}
	if pkgs.Len() > 0 {
		sb.WriteString("packages:\n" + pkgs.String())
	}
	if other := strings.TrimSpace(r.other.String()); other != "" {
		sb.WriteString("\n" + p.show(other) + "\n")
	}
	return sb.String()
}

func (r *testRun) anyFailed(pkg string) bool {
	return slices.ContainsFunc(r.tests, func(t *testCase) bool {
		return t.pkg == pkg && (t.state == "fail" || t.state == "run")
	})
}

// packageOutput is what a failed package wrote outside its tests, without
// go test's own result lines.
func packageOutput(pkg *pkgResult) string {
	var b strings.Builder
	for line := range strings.Lines(pkg.output.String()) {
		l := strings.TrimRight(line, "\n")
		if l == "PASS" || l == "FAIL" || strings.HasPrefix(l, "FAIL\t") || strings.HasPrefix(l, "ok  \t") {
			continue
		}
		b.WriteString(line)
	}
	return strings.TrimRight(b.String(), "\n")
}

func elapsed(pkg *pkgResult) string {
	if pkg.cached {
		return "(cached)"
	}
	return (time.Duration(pkg.elapsed * float64(time.Second))).Round(time.Millisecond).String()
}
