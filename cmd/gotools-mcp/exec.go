package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bridle-dev/bridle/internal/childenv"
	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/sandbox"
)

// command is one subprocess: the go command or a program built from the
// model's code. It runs in its own process group, and the whole group is
// killed when it ends, at its time limit, or when it writes too much, so
// nothing it started outlives the call.
type command struct {
	dir  string
	path string
	args []string
	env  []string // the whole environment; nil means the server's
	// stdin is the program's input; nil means none (it reads end of file).
	stdin *string
	// timeout bounds the run; the group is killed when it passes.
	timeout time.Duration
	// stdout and stderr receive the output; nil discards it.
	stdout, stderr io.Writer
	// maxOutput stops the run when both streams together pass it; 0 means
	// no limit.
	maxOutput int64
	// confine, when set, runs the command inside this sandbox.
	confine *sandbox.Policy
	// reaper, when set, kills whatever the command started, even what left
	// its process group, when it ends.
	reaper *sandbox.Reaper
}

// outcome is how a command ended.
type outcome struct {
	exitCode  int  // -1 when killed by a signal
	timedOut  bool // killed at the time limit
	flooded   bool // killed for writing more than maxOutput
	cancelled bool // the call was cancelled
}

// describe says in words how a run that did not simply exit ended, or "".
func (o outcome) describe(c command) string {
	switch {
	case o.timedOut:
		return fmt.Sprintf("did not finish within %s and was stopped (its whole process group was killed)", c.timeout)
	case o.flooded:
		return fmt.Sprintf("wrote more than %s of output and was stopped (its whole process group was killed)", size(c.maxOutput))
	case o.cancelled:
		return "was cancelled and stopped"
	}
	return ""
}

// grace is how long the output of a finished run may keep flowing from
// processes that left its process group before the pipes are closed.
const grace = 2 * time.Second

// execute runs c and waits until it and its process group are gone. The
// error reports only a failure to start.
func execute(ctx context.Context, c command) (outcome, error) {
	runCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	cmd := exec.CommandContext(runCtx, c.path, c.args...)
	cmd.Dir = c.dir
	cmd.Env = c.env
	if c.confine != nil {
		if err := sandbox.Confine(cmd, *c.confine); err != nil {
			return outcome{}, err
		}
	}
	// A program past its limit gets no gentler end than its group killed:
	// it is either stuck or ignoring us, and its children go with it.
	stopped := sandbox.KillGroupOnCancel(cmd)
	cmd.WaitDelay = grace

	outR, outW, err := os.Pipe()
	if err != nil {
		return outcome{}, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return outcome{}, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	var inR, inW *os.File
	if c.stdin != nil {
		if inR, inW, err = os.Pipe(); err != nil {
			outR.Close()
			outW.Close()
			errR.Close()
			errW.Close()
			return outcome{}, err
		}
		cmd.Stdin = inR
	}

	start, end := cmd.Start, func() {}
	if c.reaper != nil {
		run := c.reaper.NewRun()
		start, end = func() error { return run.Start(cmd) }, run.End
	}
	err = start()
	outW.Close()
	errW.Close()
	if inR != nil {
		inR.Close()
	}
	if err != nil {
		end()
		outR.Close()
		errR.Close()
		if inW != nil {
			inW.Close()
		}
		return outcome{}, err
	}
	pid := cmd.Process.Pid

	var flooded atomic.Bool
	var total atomic.Int64
	var readers sync.WaitGroup
	for _, s := range []struct {
		r *os.File
		w io.Writer
	}{{outR, c.stdout}, {errR, c.stderr}} {
		w := s.w
		if w == nil {
			w = io.Discard
		}
		readers.Go(func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := s.r.Read(buf)
				if n > 0 {
					if c.maxOutput > 0 && total.Add(int64(n)) > c.maxOutput {
						if !flooded.Swap(true) {
							sandbox.KillGroup(pid)
						}
						// Keep reading so the writer is not blocked;
						// the group is dead or dying.
					} else {
						w.Write(buf[:n])
					}
				}
				if err != nil {
					return
				}
			}
		})
	}
	if inW != nil {
		go func() {
			io.Copy(inW, strings.NewReader(*c.stdin))
			inW.Close()
		}()
	}

	cmd.Wait()
	// The leader is gone; whatever it started is not. The reaper kills
	// what was handed to it (left behind, or even out of the group) and
	// reaps it; then the group goes, for what the reaper cannot see.
	end()
	sandbox.KillGroup(pid)

	done := make(chan struct{})
	go func() {
		readers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
		// A process that left the group still holds the pipes.
		outR.Close()
		errR.Close()
		<-done
	}
	outR.Close()
	errR.Close()
	if inW != nil {
		inW.Close()
	}

	o := outcome{exitCode: cmd.ProcessState.ExitCode(), flooded: flooded.Load()}
	if !o.flooded && stopped() {
		if ctx.Err() != nil {
			o.cancelled = true
		} else {
			o.timedOut = true
		}
	}
	return o, nil
}

// capture keeps the start and the end of a program's output.
type capture = clip.Capture

// defaultCapture is what a capture keeps of a stream when its Limit is 0.
const defaultCapture = clip.DefaultLimit

// size says a number of bytes the way a person reads it.
func size(n int64) string { return clip.Size(n) }

// errNoGo reports a machine without the go command.
var errNoGo = errors.New("the go command is not on PATH: install Go (https://go.dev/dl) and restart the server")

// Time limits. A call may ask for up to maxTimeout for what it runs; the
// go command's own work (build, vet, doc) gets goTimeout.
const (
	defaultTimeout = 30 * time.Second
	maxTimeout     = 120 * time.Second
	goTimeout      = 120 * time.Second
)

// maxOutput is how much a program may write, both streams together, before
// it is stopped; of each stream only defaultCapture bytes, from its start
// and its end, are kept either way.
const maxOutput = 16 << 20

// callTimeout turns a call's timeout_seconds into a duration: 0 means the
// default, more than the cap is an error that says the cap.
func callTimeout(seconds int) (time.Duration, error) {
	switch {
	case seconds == 0:
		return defaultTimeout, nil
	case seconds < 0:
		return 0, fmt.Errorf("timeout_seconds is %d: give a positive number of seconds, at most %d", seconds, int(maxTimeout/time.Second))
	case time.Duration(seconds)*time.Second > maxTimeout:
		return 0, fmt.Errorf("timeout_seconds is %d: the limit is %d", seconds, int(maxTimeout/time.Second))
	}
	return time.Duration(seconds) * time.Second, nil
}

// goEnv is the environment of every go command the server runs, and of the
// programs they build: the allow-listed variables of the server's own (no
// keys), with the toolchain pinned to the installed one and the network
// off, so a module missing from the cache fails at once and says so
// instead of downloading.
func goEnv(extra ...string) []string {
	set := append([]string{"GOTOOLCHAIN=local", "GOPROXY=off"}, extra...)
	base := childenv.Filter(os.Environ(), childenv.Go...)
	env := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		if !slices.ContainsFunc(set, func(s string) bool { return sameKey(s, kv) }) {
			env = append(env, kv)
		}
	}
	return append(env, set...)
}

func sameKey(a, b string) bool {
	ka, _, _ := strings.Cut(a, "=")
	kb, _, _ := strings.Cut(b, "=")
	return ka == kb
}

// goResult is what a go command printed and how it ended.
type goResult struct {
	stdout, stderr string
	outcome
}

// failed reports whether the command did not succeed.
func (r goResult) failed() bool {
	return r.exitCode != 0 || r.timedOut || r.flooded || r.cancelled
}

// runGo runs the go command in dir with args.
func runGo(ctx context.Context, dir string, env []string, stdout io.Writer, args ...string) (goResult, error) {
	var out, errs capture
	c := command{
		dir:       dir,
		path:      "go",
		args:      args,
		env:       env,
		timeout:   goTimeout,
		stdout:    &out,
		stderr:    &errs,
		maxOutput: maxOutput,
	}
	if stdout != nil {
		c.stdout = stdout
		c.maxOutput = 0
	}
	o, err := execute(ctx, c)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return goResult{}, errNoGo
		}
		return goResult{}, fmt.Errorf("cannot run go: %v", err)
	}
	r := goResult{stdout: out.String(), stderr: errs.String(), outcome: o}
	if how := o.describe(c); how != "" {
		r.stderr += fmt.Sprintf("\ngo %s %s\n", args[0], how)
	}
	return r, nil
}

var (
	downloading   = regexp.MustCompile(`(?m)^go: downloading (\S+) (\S+)\n`)
	lookupOff     = regexp.MustCompile(`(\S+)@(\S+): module lookup disabled by GOPROXY=off`)
	missingGoSum  = "missing go.sum entry"
	lookupDisable = "module lookup disabled by GOPROXY=off"
)

// offline explains the go command's complaints about modules it could not
// fetch: the server never reaches the network, so a module that is not in
// the module cache cannot be used until someone downloads it.
func offline(out string) string {
	var mods []string
	for _, m := range downloading.FindAllStringSubmatch(out, -1) {
		mods = append(mods, m[1]+"@"+m[2])
	}
	for _, m := range lookupOff.FindAllStringSubmatch(out, -1) {
		mods = append(mods, m[1]+"@"+m[2])
	}
	slices.Sort(mods)
	mods = slices.Compact(mods)
	out = downloading.ReplaceAllString(out, "")
	switch {
	case strings.Contains(out, lookupDisable):
		what := "a module the project needs is"
		if len(mods) == 1 {
			what = "module " + mods[0] + " is"
		} else if len(mods) > 1 {
			what = "modules " + strings.Join(mods, ", ") + " are"
		}
		out = strings.TrimRight(out, "\n") + "\n\n" + what + " not in the module cache; this server works offline (GOPROXY=off): run `go mod download` in the project with network access, then call again.\n"
	case strings.Contains(out, missingGoSum):
		out = strings.TrimRight(out, "\n") + "\n\nthe project's go.sum lacks entries; this server works offline (GOPROXY=off): run `go mod tidy` in the project with network access, then call again.\n"
	}
	return out
}
