package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bridle-dev/bridle/internal/childenv"
	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/sandbox"
	"github.com/bridle-dev/bridle/tool"
)

const (
	defaultBashTimeout = 2 * time.Minute
	maxBashTimeout     = 10 * time.Minute
	bashKept           = 30 << 10 // bytes of output the model reads: the start and the end
	bashFlood          = 64 << 20 // a command writing more than this is stopped
	bashGrace          = 2 * time.Second
)

const bashDescription = "Run a bash command line in the working folder and return its output (stdout and stderr together) and exit code. " +
	"It runs inside a sandbox when this machine has one: no network, only the working folder writable, a private /tmp, home folders out of sight; the result says whether it did. " +
	"Commands get no input and no terminal. Long output keeps its start and end. The command and everything it started are killed at the time limit. " +
	"For Go prefer the Go tools when offered: they keep the build cache."

type bashArgs struct {
	Command        string `json:"command" jsonschema:"the command line, run with bash -c in the working folder, such as make test or ls -la cmd"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"the time limit in seconds; 120 when left out, at most 600"`
}

// shell runs the bash tool's commands. Nothing a command starts outlives
// it: it leads its own process group, which is killed when it ends, and the
// process's sandbox.Reaper kills what left the group.
type shell struct {
	dir     string
	setup   func() // fills the fields below, at the first command
	confine error  // nil when commands run in the sandbox; else why they do not
	reaper  *sandbox.Reaper
	goPaths []string
}

// newShell returns a shell for dir. Nothing is asked of the system until
// the first command: a run that never uses bash neither probes the sandbox
// nor becomes a subreaper.
func newShell(dir string) *shell {
	s := &shell{dir: dir}
	s.setup = sync.OnceFunc(func() {
		s.confine = sandbox.Check()
		s.reaper, _ = sandbox.Subreaper()
		if s.confine == nil {
			s.goPaths = goToolchainPaths()
		}
	})
	return s
}

// bashTool returns the bash tool, running in w's folder.
func bashTool(w *workdir) tool.Tool {
	return tool.New("bash", bashDescription, tool.Exec, newShell(w.abs).run)
}

func (s *shell) run(ctx context.Context, in bashArgs) (string, error) {
	if strings.TrimSpace(in.Command) == "" {
		return "", errors.New("the command is empty: give a command line, such as ls -la")
	}
	timeout := defaultBashTimeout
	switch t := in.TimeoutSeconds; {
	case t < 0:
		return "", fmt.Errorf("timeout_seconds is %d: give a number of seconds from 1 to %d, or leave it out", t, int(maxBashTimeout/time.Second))
	case t > 0:
		timeout = min(time.Duration(t)*time.Second, maxBashTimeout)
	}
	s.setup()
	bash, err := exec.LookPath("bash")
	if err != nil {
		return "", errors.New("bash is not installed on this machine: use the other tools")
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, bash, "-c", in.Command)
	cmd.Dir = s.dir
	cmd.Env = childenv.Filter(os.Environ(), childenv.Go...)
	status := "sandbox: off (" + strings.TrimPrefix(fmt.Sprint(s.confine), sandbox.ErrUnavailable.Error()+": ") + "): the command ran with your access to files and the network"
	if s.confine == nil {
		// The build cache stays read-only: a command could otherwise plant
		// results that later builds outside the sandbox would trust.
		cmd.Env = append(cmd.Env, "GOCACHE=/tmp/go-build")
		err := sandbox.Confine(cmd, sandbox.Policy{Root: s.dir, ReadOnly: s.goPaths})
		if err != nil {
			return "", fmt.Errorf("the sandbox could not be set up: %v", err)
		}
		status = "sandbox: on (no network; writes only inside the working folder and a private /tmp; home folders hidden)"
	}
	stopped := sandbox.KillGroupOnCancel(cmd)
	cmd.WaitDelay = bashGrace

	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	cmd.Stdout, cmd.Stderr = w, w
	start, end := cmd.Start, func() {}
	if s.reaper != nil {
		run := s.reaper.NewRun()
		start, end = func() error { return run.Start(cmd) }, run.End
	}
	err = start()
	w.Close()
	if err != nil {
		end()
		r.Close()
		return "", fmt.Errorf("bash did not start: %v", err)
	}
	pid := cmd.Process.Pid

	out := &clip.Capture{Limit: bashKept, Head: bashKept / 3}
	var flooded atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				if out.Total()+int64(n) > bashFlood && !flooded.Swap(true) {
					sandbox.KillGroup(pid)
				}
				out.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	cmd.Wait()
	// The shell is gone; what it started may not be. The reaper takes what
	// left the group, then the group goes.
	end()
	sandbox.KillGroup(pid)
	select {
	case <-done:
	case <-time.After(bashGrace):
		r.Close() // a process that escaped both still holds the pipe
		<-done
	}
	r.Close()

	var b strings.Builder
	b.WriteString(out.String())
	if out.Total() == 0 {
		b.WriteString("(no output)\n")
	} else if !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	code := cmd.ProcessState.ExitCode()
	var failure string
	switch {
	case flooded.Load():
		failure = fmt.Sprintf("stopped: it wrote more than %d MB (the command and everything it started were killed)", bashFlood>>20)
	case stopped() && ctx.Err() != nil:
		failure = "cancelled (the command and everything it started were killed)"
	case stopped():
		failure = fmt.Sprintf("stopped at the time limit of %s (the command and everything it started were killed): give a larger timeout_seconds, or run less at once", timeout)
	case code != 0:
		failure = fmt.Sprintf("exit code %d", code)
	}
	if failure != "" {
		fmt.Fprintf(&b, "[%s; %s]", failure, status)
		return "", errors.New(b.String())
	}
	fmt.Fprintf(&b, "[exit code 0; %s]", status)
	return b.String(), nil
}

// goToolchainPaths are the Go toolchain's folders a confined command may
// read, so that the go command works inside: GOROOT and GOMODCACHE. None
// when there is no go command.
func goToolchainPaths() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "env", "-json", "GOROOT", "GOMODCACHE")
	cmd.Env = childenv.Filter(os.Environ(), childenv.Go...)
	data, err := cmd.Output()
	if err != nil {
		return nil
	}
	var env map[string]string
	if json.Unmarshal(data, &env) != nil {
		return nil
	}
	var paths []string
	for _, k := range []string{"GOROOT", "GOMODCACHE"} {
		if v := env[k]; v != "" {
			paths = append(paths, v)
		}
	}
	return paths
}
