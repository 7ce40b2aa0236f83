package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/tool"
)

// HintPolicy says how far a [Session] believes the tool annotations a
// server sends. Annotations are claims made by the server about its own
// tools, so by default only the claim that lowers nothing is trusted.
type HintPolicy int

const (
	// HintsDefault gives a tool announced with readOnlyHint the risk
	// [tool.Read] and every other tool [tool.Exec].
	HintsDefault HintPolicy = iota
	// HintsTrusted also gives [tool.Write] to a tool that is not read-only
	// but says it stays within its own closed world (openWorldHint false):
	// it changes the server's data and reaches nothing outside. A tool
	// that may reach outside stays [tool.Exec] even when it claims to only
	// add (destructiveHint false). Use it for servers you wrote or trust;
	// servers made with [NewServer] announce [tool.Write] tools this way.
	HintsTrusted
	// HintsIgnored gives every tool [tool.Exec], whatever it claims.
	HintsIgnored
)

// String returns "default", "trusted" or "ignored".
func (p HintPolicy) String() string {
	switch p {
	case HintsDefault:
		return "default"
	case HintsTrusted:
		return "trusted"
	case HintsIgnored:
		return "ignored"
	}
	return fmt.Sprintf("HintPolicy(%d)", int(p))
}

// DefaultCloseTimeout is how long [Session.Close] waits for a server
// process at each step of its shutdown when [ClientOptions.CloseTimeout]
// is zero.
const DefaultCloseTimeout = 2 * time.Second

// ClientOptions configures a [Session]. A nil *ClientOptions, like the zero
// value, means the defaults.
type ClientOptions struct {
	// Hints says how tool annotations become risks; the zero value is
	// [HintsDefault].
	Hints HintPolicy
	// Risks sets the risk of named tools (by the server's tool name),
	// whatever their annotations say.
	Risks map[string]tool.Risk
	// Logger receives the session's events and, for a command whose
	// [Command.Stderr] is nil, the lines the server writes on stderr.
	// Nil means no logging.
	Logger *slog.Logger
	// CloseTimeout is how long Close waits for a server process to exit
	// after its stdin is closed, and again after it is sent SIGTERM, before
	// it is killed. Zero means [DefaultCloseTimeout].
	CloseTimeout time.Duration
	// Elicit answers the server's questions to the person (elicitation,
	// forms and URLs). Nil means the client tells servers it cannot be
	// asked.
	Elicit Elicitor
}

// A Session is a connection to one MCP server. Its methods may be called
// from several goroutines at once; the tools it returns keep working until
// the session is closed.
type Session struct {
	name         string
	cs           *sdk.ClientSession
	conn         *holdTransport
	hints        HintPolicy
	risks        map[string]tool.Risk
	logger       *slog.Logger
	closeTimeout time.Duration

	// proc is the server process for a command session, else nil.
	proc *process
	// onClose runs after the client session is closed (in-process
	// sessions close their server side there).
	onClose func() error
	// redact, when set, hides secrets in errors (an HTTP URL's query).
	redact func(error) error

	closeOnce sync.Once
	closeErr  error
}

// clientImplementation is how the client introduces itself to servers.
func clientImplementation() *sdk.Implementation {
	version := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/bridle-dev/bridle" {
				version = m.Version
			}
		}
		if info.Main.Path == "github.com/bridle-dev/bridle" && info.Main.Version != "" {
			version = info.Main.Version
		}
	}
	return &sdk.Implementation{Name: "bridle", Version: version}
}

// settle checks the session name and options and fills in the defaults.
// Every Connect calls it before starting anything.
func settle(name string, opts *ClientOptions) (ClientOptions, error) {
	var o ClientOptions
	if opts != nil {
		o = *opts
	}
	if name == "" {
		return o, errors.New("mcp server name is empty: give the session a name such as \"notes\"; errors and tool prefixes use it")
	}
	if o.Hints < HintsDefault || o.Hints > HintsIgnored {
		return o, fmt.Errorf("mcp server %q: unknown hint policy %d: use HintsDefault, HintsTrusted or HintsIgnored", name, int(o.Hints))
	}
	for tn, r := range o.Risks {
		if r < tool.Read || r > tool.Exec {
			return o, fmt.Errorf("mcp server %q: tool %q has unknown risk %d: use tool.Read, tool.Write or tool.Exec", name, tn, int(r))
		}
	}
	o.Risks = maps.Clone(o.Risks)
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = DefaultCloseTimeout
	}
	return o, nil
}

// connect runs the MCP handshake over t and wraps the result in a Session.
// o comes from settle. On failure nothing is left open by the SDK; the
// caller cleans up what it started itself.
func connect(ctx context.Context, name string, t sdk.Transport, o ClientOptions) (*Session, error) {
	ht := &holdTransport{Transport: t}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("mcp_server", name)
	copts := &sdk.ClientOptions{
		Logger: logger,
		// No roots: a session offers the server nothing to ask for.
		Capabilities: &sdk.ClientCapabilities{},
	}
	if o.Elicit != nil {
		copts.Capabilities.Elicitation = &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}
		copts.ElicitationHandler = elicitHandler(name, o.Elicit)
	}
	client := sdk.NewClient(clientImplementation(), copts)
	cs, err := client.Connect(ctx, ht, nil)
	if err != nil {
		return nil, err
	}
	s := &Session{
		name:         name,
		cs:           cs,
		conn:         ht,
		hints:        o.Hints,
		risks:        o.Risks,
		logger:       logger,
		closeTimeout: o.CloseTimeout,
	}
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil {
		logger.Debug("mcp session started", "server_name", r.ServerInfo.Name, "server_version", r.ServerInfo.Version, "protocol", r.ProtocolVersion)
	}
	return s, nil
}

// Name returns the name the session was connected under (not the name the
// server gives itself).
func (s *Session) Name() string { return s.name }

// Instructions returns what the server says a model should know about
// using it, or "" when it says nothing.
func (s *Session) Instructions() string {
	if r := s.cs.InitializeResult(); r != nil {
		return r.Instructions
	}
	return ""
}

// Close ends the session. For a command it closes the server's stdin, waits
// up to [ClientOptions.CloseTimeout] for it to exit, then sends SIGTERM,
// waits again, then kills it; the process is always reaped. Otherwise it
// waits up to CloseTimeout for calls in flight to finish, then cuts the
// connection. Calls still in flight fail. Close is safe to call more than
// once and from several goroutines; later calls return the first call's
// result.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		var err error
		if s.proc != nil {
			// Stop the process first: the SDK's Close waits for calls in
			// flight, which a hung server would never answer. Once the
			// process is gone they fail, and the SDK's error on the closed
			// pipes is noise next to what stop reports.
			err = s.proc.stop()
			_ = s.cs.Close()
		} else {
			err = s.closeConn()
		}
		if s.onClose != nil {
			err = errors.Join(err, s.onClose())
		}
		if err != nil {
			s.closeErr = fmt.Errorf("mcp server %q: closing: %w", s.name, err)
		}
	})
	return s.closeErr
}

// fail turns an error from talking to the server into one that names the
// server and what was being done, and adds what the process said when it
// died.
func (s *Session) fail(op string, err error) error {
	if ae := authFailure(err); ae != nil {
		return fmt.Errorf("mcp server %q: %s: %w", s.name, op, ae)
	}
	if s.redact != nil {
		err = s.redact(err)
	}
	note := ""
	if s.proc != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		note = s.proc.deathNote(err)
	}
	return fmt.Errorf("mcp server %q: %s: %w%s", s.name, op, err, note)
}

// closeConn closes the SDK session, which waits for calls in flight; a
// server that never answers would hold it forever, so after closeTimeout
// the connection is cut under it, which fails those calls.
func (s *Session) closeConn() error {
	done := make(chan error, 1)
	go func() { done <- s.cs.Close() }()
	t := time.NewTimer(s.closeTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	}
	s.logger.Debug("mcp calls still in flight at close; cutting the connection")
	s.conn.cut()
	t.Reset(s.closeTimeout)
	select {
	case <-done:
		return nil
	case <-t.C:
		return errors.New("the connection did not close after it was cut; calls may still be in flight")
	}
}

// holdTransport keeps the connection the SDK makes, so that Close can cut
// it. The connection itself is handed over untouched: the SDK looks for
// optional methods on it.
type holdTransport struct {
	sdk.Transport
	mu   sync.Mutex
	conn sdk.Connection
}

func (t *holdTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err == nil {
		t.mu.Lock()
		t.conn = c
		t.mu.Unlock()
	}
	return c, err
}

// cut closes the connection without waiting for anything.
func (t *holdTransport) cut() {
	t.mu.Lock()
	c := t.conn
	t.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}
