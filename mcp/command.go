package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/bridle-dev/bridle/internal/childenv"
	"github.com/bridle-dev/bridle/internal/clip"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Command is an MCP server run as a child process that speaks the protocol
// on its stdin and stdout.
type Command struct {
	// Path is the program to run: a path, or a name looked up in PATH.
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Env holds "KEY=value" entries the child gets besides the variables
	// it inherits; they win over inherited entries of the same name.
	Env []string
	// InheritEnv passes this process's whole environment to the child.
	// False (the default) passes only an allow-list, as the official MCP
	// SDKs do: HOME, LOGNAME, PATH, SHELL, TERM, USER, LANG, LC_*, TMPDIR
	// and TZ on Unix (their equivalents on Windows), plus the names in
	// EnvNames, so that the person's keys and tokens do not reach a server
	// that was not given them.
	InheritEnv bool
	// EnvNames are more variables to pass from this process's environment
	// when set (exact names, or prefixes ending in '*'), for a server that
	// needs them, such as a Go toolchain's.
	EnvNames []string
	// Dir is the child's working directory; "" means this process's.
	Dir string
	// Stderr receives everything the server writes on stderr, as it comes,
	// from one goroutine. Nil means each line goes to
	// [ClientOptions.Logger] (at level Info), or nowhere when that is nil
	// too. The pipe is always drained, so a chatty server never blocks,
	// but a Stderr whose Write blocks stalls it.
	Stderr io.Writer
}

// ConnectCommand starts c and runs the MCP handshake with it. ctx bounds
// the start and the handshake only: the process lives until
// [Session.Close]. An error names the server as name, and when the process
// died it says how, with the last line it wrote on stderr.
func ConnectCommand(ctx context.Context, name string, c Command, opts *ClientOptions) (*Session, error) {
	o, err := settle(name, opts)
	if err != nil {
		return nil, err
	}
	if c.Path == "" {
		return nil, fmt.Errorf("mcp server %q: command path is empty: set Command.Path to the server program", name)
	}
	for _, kv := range c.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, fmt.Errorf("mcp server %q: environment entry %q is not KEY=value", name, kv)
		}
	}
	p, err := startProcess(name, c, o.CloseTimeout, o.Logger)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: starting %s: %w", name, c.Path, err)
	}
	t := &sdk.IOTransport{Reader: keepOpen{p.stdout}, Writer: p.stdin}
	s, err := connect(ctx, name, t, o)
	if err != nil {
		note := p.deathNote(err)
		p.kill()
		_ = p.stop()
		return nil, fmt.Errorf("mcp server %q: connecting: %w%s", name, err, note)
	}
	s.proc = p
	return s, nil
}

// Environ returns the environment the child gets when this process's is
// env: all of env with InheritEnv, else the allow-listed entries of env and
// of EnvNames; then Env, whose entries win over those of the same name.
func (c Command) Environ(env []string) []string {
	if !c.InheritEnv {
		env = childenv.Filter(env, c.EnvNames...)
	}
	if len(c.Env) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(c.Env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !setIn(c.Env, name) {
			out = append(out, kv)
		}
	}
	return append(out, c.Env...)
}

// setIn reports whether entries set name.
func setIn(entries []string, name string) bool {
	for _, kv := range entries {
		if k, _, _ := strings.Cut(kv, "="); k == name || runtime.GOOS == "windows" && strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// keepOpen hands the server's stdout to the SDK without letting it close
// the pipe: the process is stopped through stdin, and the read end is
// closed once it has exited, so nothing the server wrote last is cut off.
type keepOpen struct{ io.Reader }

func (keepOpen) Close() error { return nil }

// process is a running server and the goroutines that watch it.
type process struct {
	cmd     *exec.Cmd
	stdin   *os.File // our write end of the child's stdin
	stdout  *os.File // our read end of the child's stdout
	stderr  *os.File // our read end of the child's stderr
	timeout time.Duration
	kill    context.CancelFunc // kills the process group through exec
	logger  *slog.Logger

	exited     chan struct{} // closed when Wait has returned
	waitErr    error         // Wait's result, set before exited is closed
	stderrDone chan struct{} // closed when stderr reached EOF
	tail       tail

	stopOnce sync.Once
	stopErr  error
}

// startProcess starts c with pipes of its own (so that exec starts no
// copying goroutines and Wait never races a reader) and starts watching it.
func startProcess(name string, c Command, timeout time.Duration, logger *slog.Logger) (*process, error) {
	life, kill := context.WithCancel(context.Background())
	cmd := exec.CommandContext(life, c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Environ(os.Environ())
	// After a kill, Wait returns within WaitDelay even if something the
	// child started still holds a pipe open.
	cmd.WaitDelay = timeout
	ownProcessGroup(cmd)

	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		kill()
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		kill()
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		kill()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		kill()
		return nil, err
	}
	// The child has its own copies now.
	inR.Close()
	outW.Close()
	errW.Close()

	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	p := &process{
		cmd:        cmd,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		timeout:    timeout,
		kill:       kill,
		logger:     logger.With("mcp_server", name, "pid", cmd.Process.Pid),
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	go p.copyStderr(c.Stderr, c.Stderr == nil && logger.Enabled(context.Background(), slog.LevelInfo))
	return p, nil
}

// copyStderr drains the child's stderr into w (or the logger), keeping the
// tail for error messages.
func (p *process) copyStderr(w io.Writer, log bool) {
	defer close(p.stderrDone)
	br := bufio.NewReader(p.stderr)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			p.tail.add(line)
			if w != nil {
				// A failing writer must not stop the draining.
				_, _ = w.Write(line)
			} else if log {
				p.logger.Info("mcp server stderr", "line", strings.TrimRight(string(line), "\r\n"))
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// stop shuts the process down gently: close stdin, wait, SIGTERM, wait,
// kill. It returns once the process is reaped and stderr is drained (or
// given up on). A server that had to be signalled is not an error: it was
// asked to go.
func (p *process) stop() error {
	p.stopOnce.Do(func() {
		if err := p.stdin.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			p.stopErr = err
		}
		if !p.waitExit(p.timeout) {
			p.logger.Debug("mcp server still running after stdin closed; sending SIGTERM")
			terminate(p.cmd)
			if !p.waitExit(p.timeout) {
				p.logger.Debug("mcp server still running after SIGTERM; killing it")
				p.kill()
				<-p.exited
			}
		} else if p.waitErr != nil {
			p.logger.Debug("mcp server exited", "status", p.waitErr.Error())
		}
		p.kill() // releases the context
		select {
		case <-p.stderrDone:
		case <-time.After(p.timeout):
			// A grandchild still holds stderr open; stop listening to it.
		}
		p.stdout.Close()
		p.stderr.Close()
	})
	return p.stopErr
}

// waitExit reports whether the process exited within d.
func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// deathWait is how long an error on a closed connection waits for the
// process to be reaped, so the error can say how it ended.
const deathWait = time.Second

// deathNote explains err from the process's side: how it exited and the
// last thing it said on stderr, or that it wrote something other than
// JSON-RPC on stdout. It returns "" when there is nothing to add.
func (p *process) deathNote(err error) string {
	var b strings.Builder
	if notJSON(err) {
		b.WriteString("; the server wrote something that is not JSON-RPC on stdout (a server must keep stdout for the protocol and log on stderr)")
	}
	closed := errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	exited := false
	select {
	case <-p.exited:
		exited = true
	default:
		if closed {
			exited = p.waitExit(deathWait)
		}
	}
	if exited {
		// Let the last of stderr arrive: it often says why.
		t := time.NewTimer(deathWait)
		select {
		case <-p.stderrDone:
		case <-t.C:
		}
		t.Stop()
	}
	switch {
	case exited && p.waitErr != nil:
		fmt.Fprintf(&b, "; the server exited (%v)", p.waitErr)
	case exited && closed:
		// A clean exit matters only when it is why the pipe closed.
		b.WriteString("; the server exited")
	}
	if line := p.tail.lastLine(); line != "" && (exited || b.Len() > 0) {
		fmt.Fprintf(&b, "; its last stderr line: %q", line)
	}
	return b.String()
}

// notJSON reports whether err comes from decoding something that is not
// JSON. The SDK does not always wrap the decoder's error, so its text
// decides when the type cannot.
func notJSON(err error) bool {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "invalid character") && strings.Contains(msg, "looking for")
}

// tail keeps the end of what a server wrote on stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const (
	tailKeep    = 4 << 10
	tailLineMax = 300
)

func (t *tail) add(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailKeep; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
}

// lastLine returns the last non-blank line, cut to a length that reads
// well inside an error message.
func (t *tail) lastLine() string {
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		return clip.String(l, tailLineMax)
	}
	return ""
}
