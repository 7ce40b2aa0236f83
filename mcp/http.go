package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configures serving over Streamable HTTP. A nil *HTTPOptions
// means the defaults: no token, only loopback origins, a 4 MiB body limit,
// sessions kept for 30 minutes of quiet, at most 1000 of them.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// ("Authorization: Bearer <Token>"). A request without it, or with
	// another, is refused with 401. The comparison takes constant time.
	Token string

	// AllowedOrigins are the browser origins ("https://app.example.com")
	// allowed besides localhost, 127.0.0.1 and [::1] on any port. A request
	// with any other Origin header is refused with 403, which stops DNS
	// rebinding; a request with no Origin header (not from a browser) is
	// allowed.
	AllowedOrigins []string

	// MaxBodyBytes limits the size of a request body; a larger one is
	// refused with 413. Zero means 4 MiB; a negative value means no limit.
	MaxBodyBytes int64

	// Stateless serves every request on its own: no Mcp-Session-Id, no
	// initialize needed, no server-to-client requests, GET and DELETE
	// refused with 405. It suits servers behind a load balancer and
	// servers with many short-lived clients. Without it, requests of the
	// stateless protocol revision (2026-07-28 and later) are still served
	// statelessly, and initialize opens a session, on the same endpoint.
	Stateless bool

	// SessionTimeout closes a session that received no request for that
	// long. Zero means 30 minutes; a negative value means sessions stay
	// until the client ends them.
	SessionTimeout time.Duration

	// MaxSessions bounds the sessions open at once. When a client opens
	// one more, the session that has been quiet longest, with no call
	// running, is closed to make room; when every session has a call
	// running, the new one is refused with 503. Zero means 1000; a
	// negative value means no bound.
	MaxSessions int

	// ShutdownTimeout bounds how long [Server.Serve] waits, once its
	// context is done, for calls in flight to finish before it closes the
	// connections. Zero means 5 seconds.
	ShutdownTimeout time.Duration

	// Logger receives the HTTP layer's activity. Nil means the server's
	// logger.
	Logger *slog.Logger
}

const (
	// defaultMaxBodyBytes is the body limit when HTTPOptions.MaxBodyBytes is 0.
	defaultMaxBodyBytes = 4 << 20
	// defaultSessionTimeout is HTTPOptions.SessionTimeout when it is 0.
	defaultSessionTimeout = 30 * time.Minute
	// defaultMaxSessions is HTTPOptions.MaxSessions when it is 0.
	defaultMaxSessions = 1000
)

// connLimits are the deadlines of the connections [Server.Serve] accepts.
// A request's body must arrive within body of its headers; a long call or
// an event stream is not bounded by them.
type connLimits struct {
	header, body, idle time.Duration
}

var serveLimits = connLimits{header: 10 * time.Second, body: 30 * time.Second, idle: 2 * time.Minute}

// HTTPHandler returns an http.Handler serving s over Streamable HTTP at
// whatever path it is mounted on, with the checks [HTTPOptions] describes:
// Origin, then bearer token, then body size. The SDK's handler also
// refuses, with 403, a request reaching a loopback address with a Host
// header that is not a loopback name.
//
// One endpoint serves both eras of the protocol: a request that carries
// MCP-Protocol-Version 2026-07-28 or later (or asks for server/discover)
// is served on its own, with no session, and an initialize request opens
// a session that later requests name in Mcp-Session-Id.
func (s *Server) HTTPHandler(opts *HTTPOptions) http.Handler {
	return s.newHTTPHandler(opts, nil)
}

// httpHandler guards the SDK's Streamable HTTP handlers and sends each
// request to the stateful or the stateless one.
type httpHandler struct {
	stateful  http.Handler
	stateless http.Handler
	token     [sha256.Size]byte
	hasToken  bool
	origins   map[string]bool
	maxBody   int64
	onlyFlat  bool // HTTPOptions.Stateless: every request to the stateless handler
	logger    *slog.Logger
	srv       *sdk.Server

	// Set when Serve runs the handler: done when shutdown starts, so that
	// long-lived event streams end and sessions can be closed.
	closing     context.Context
	bodyTimeout time.Duration

	maxSessions int // 0: no bound
	mu          sync.Mutex
	sessions    map[string]*sessionUse // the sessions opened here, by id
}

// sessionUse is what the handler knows of a session it opened.
type sessionUse struct {
	last  time.Time // when its latest request arrived
	calls int       // POSTs being served
}

func (s *Server) newHTTPHandler(opts *HTTPOptions, closing context.Context) *httpHandler {
	if opts == nil {
		opts = &HTTPOptions{}
	}
	h := &httpHandler{
		origins:     make(map[string]bool, len(opts.AllowedOrigins)),
		maxBody:     opts.MaxBodyBytes,
		onlyFlat:    opts.Stateless,
		logger:      opts.Logger,
		closing:     closing,
		srv:         s.sdk,
		sessions:    make(map[string]*sessionUse),
		maxSessions: opts.MaxSessions,
	}
	if h.logger == nil {
		h.logger = s.logger
	}
	if opts.Token != "" {
		h.token, h.hasToken = sha256.Sum256([]byte(opts.Token)), true
	}
	for _, o := range opts.AllowedOrigins {
		h.origins[normalizeOrigin(o)] = true
	}
	if h.maxBody == 0 {
		h.maxBody = defaultMaxBodyBytes
	}
	switch {
	case h.maxSessions == 0:
		h.maxSessions = defaultMaxSessions
	case h.maxSessions < 0:
		h.maxSessions = 0
	}
	timeout := opts.SessionTimeout
	switch {
	case timeout == 0:
		timeout = defaultSessionTimeout
	case timeout < 0:
		timeout = 0
	}
	getServer := func(*http.Request) *sdk.Server { return s.sdk }
	h.stateless = sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{
		Stateless:           true,
		Logger:              h.logger,
		MaxRequestBodyBytes: h.maxBody,
	})
	if !opts.Stateless {
		h.stateful = sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{
			Logger:              h.logger,
			SessionTimeout:      timeout,
			MaxRequestBodyBytes: h.maxBody,
		})
	}
	return h
}

const (
	sessionHeader  = "Mcp-Session-Id"
	versionHeader  = "Mcp-Protocol-Version"
	methodHeader   = "Mcp-Method"
	methodDiscover = "server/discover"
)

// statelessRevision is the first protocol revision without an initialize
// handshake or sessions.
const statelessRevision = "2026-07-28"

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin) {
		h.logger.Warn("refused a request from a foreign origin", "origin", origin)
		http.Error(w, fmt.Sprintf("forbidden: origin %q is not allowed", origin), http.StatusForbidden)
		return
	}
	if h.hasToken && !h.authorized(r) {
		challenge := `Bearer realm="mcp"`
		if r.Header.Get("Authorization") != "" {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		http.Error(w, "unauthorized: send the server's token as \"Authorization: Bearer <token>\"", http.StatusUnauthorized)
		return
	}
	if h.maxBody > 0 && r.ContentLength > h.maxBody {
		http.Error(w, fmt.Sprintf("request body exceeds %d bytes", h.maxBody), http.StatusRequestEntityTooLarge)
		return
	}
	if h.closing != nil {
		select {
		case <-h.closing.Done():
			w.Header().Set("Connection", "close")
			http.Error(w, "the server is shutting down", http.StatusServiceUnavailable)
			return
		default:
		}
		if r.Method == http.MethodPost && !h.readBody(w, r) {
			return
		}
	}
	if h.onlyFlat || isStateless(r) {
		h.stateless.ServeHTTP(w, r)
		return
	}
	h.serveSession(w, r)
}

// isStateless reports whether r belongs to the stateless era of the
// protocol: it says so in MCP-Protocol-Version, or it asks which
// revisions the server speaks, outside any session.
func isStateless(r *http.Request) bool {
	if r.Header.Get(sessionHeader) != "" {
		return false
	}
	if v := r.Header.Get(versionHeader); v != "" {
		return v >= statelessRevision
	}
	return r.Method == http.MethodPost && r.Header.Get(methodHeader) == methodDiscover
}

// readBody reads r's body within bodyTimeout, so that a client that sends
// headers and then nothing does not hold its connection, and then lifts
// the deadline for the call itself. It answers r and reports false when
// the body did not come.
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request) bool {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(h.bodyTimeout)) != nil {
		return true // not a connection of Serve's: its server's deadlines apply
	}
	body := io.Reader(r.Body)
	if h.maxBody > 0 {
		body = io.LimitReader(r.Body, h.maxBody+1)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		// The deadline stays: the connection is closed after this answer.
		w.Header().Set("Connection", "close")
		http.Error(w, "reading the request body: "+err.Error(), http.StatusRequestTimeout)
		return false
	}
	if h.maxBody > 0 && int64(len(data)) > h.maxBody {
		http.Error(w, fmt.Sprintf("request body exceeds %d bytes", h.maxBody), http.StatusRequestEntityTooLarge)
		return false
	}
	rc.SetReadDeadline(time.Time{})
	r.Body = io.NopCloser(bytes.NewReader(data))
	return true
}

// serveSession serves a request of the session era, keeping count of the
// sessions it opens so that they stay within bounds and shutdown can close
// them, and ending event streams when shutdown starts.
func (h *httpHandler) serveSession(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(sessionHeader)
	switch r.Method {
	case http.MethodGet:
		if h.closing != nil {
			ctx, cancel := context.WithCancel(r.Context())
			stop := context.AfterFunc(h.closing, cancel)
			defer func() { stop(); cancel() }()
			r = r.WithContext(ctx)
		}
	case http.MethodDelete:
		defer h.forget(id)
	case http.MethodPost:
		if id == "" {
			if !h.makeRoom() {
				h.logger.Warn("refused a new session: every session has a call running", "sessions", h.maxSessions)
				w.Header().Set("Retry-After", "5")
				http.Error(w, fmt.Sprintf("too many sessions: all %d have a call running; try again later, or raise the server's session limit", h.maxSessions), http.StatusServiceUnavailable)
				return
			}
		} else {
			defer h.busy(id)()
		}
	}
	if id == "" && r.Method == http.MethodPost {
		// The session is recorded as its id is sent, not after the handler
		// returns: by then the client may have used it, and other sessions.
		w = &sessionRecorder{ResponseWriter: w, h: h}
	}
	h.stateful.ServeHTTP(w, r)
}

// sessionRecorder remembers the session a response opens when its header
// is written.
type sessionRecorder struct {
	http.ResponseWriter
	h    *httpHandler
	done bool
}

func (w *sessionRecorder) record() {
	if !w.done {
		w.done = true
		if id := w.Header().Get(sessionHeader); id != "" {
			w.h.remember(id)
		}
	}
}

func (w *sessionRecorder) WriteHeader(code int) {
	w.record()
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionRecorder) Write(b []byte) (int, error) {
	w.record()
	return w.ResponseWriter.Write(b)
}

// Flush passes on to the writer beneath, so event streams still flush.
func (w *sessionRecorder) Flush() {
	w.record()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer beneath.
func (w *sessionRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// busy marks a call of session id as running until the returned func is
// called.
func (h *httpHandler) busy(id string) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	u := h.sessions[id]
	if u == nil {
		return func() {}
	}
	u.calls++
	u.last = time.Now()
	return func() {
		h.mu.Lock()
		u.calls--
		u.last = time.Now()
		h.mu.Unlock()
	}
}

// makeRoom reports whether a new session may open, closing the session
// quiet longest when the bound is reached.
func (h *httpHandler) makeRoom() bool {
	if h.maxSessions <= 0 {
		return true
	}
	h.mu.Lock()
	if len(h.sessions) >= h.maxSessions {
		h.pruneLocked()
	}
	if len(h.sessions) < h.maxSessions {
		h.mu.Unlock()
		return true
	}
	var oldest string
	var at time.Time
	for id, u := range h.sessions {
		if u.calls == 0 && (oldest == "" || u.last.Before(at)) {
			oldest, at = id, u.last
		}
	}
	if oldest == "" {
		h.mu.Unlock()
		return false
	}
	delete(h.sessions, oldest)
	h.mu.Unlock()
	h.logger.Info("closed the session quiet longest to make room for a new one", "session", oldest, "idle", time.Since(at).Round(time.Second))
	h.closeSession(oldest)
	return true
}

// pruneLocked drops the sessions that ended without a DELETE (timed out,
// closed by the server) from the record.
func (h *httpHandler) pruneLocked() {
	live := make(map[string]bool, len(h.sessions))
	for ss := range h.srv.Sessions() {
		if id := ss.ID(); id != "" {
			live[id] = true
		}
	}
	for id := range h.sessions {
		if !live[id] {
			delete(h.sessions, id)
		}
	}
}

// remember records a session opened here.
func (h *httpHandler) remember(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sessions[id] = &sessionUse{last: time.Now()}
}

func (h *httpHandler) forget(id string) {
	h.mu.Lock()
	delete(h.sessions, id)
	h.mu.Unlock()
}

// closeSession closes the session with that id, if the SDK still has it.
func (h *httpHandler) closeSession(id string) {
	for ss := range h.srv.Sessions() {
		if ss.ID() == id {
			ss.Close()
			return
		}
	}
}

// closeSessions closes the sessions this handler opened.
func (h *httpHandler) closeSessions() {
	h.mu.Lock()
	ids := h.sessions
	h.sessions = make(map[string]*sessionUse)
	h.mu.Unlock()
	for ss := range h.srv.Sessions() {
		if id := ss.ID(); id != "" && ids[id] != nil {
			ss.Close()
		}
	}
}

func (h *httpHandler) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(sum[:], h.token[:]) == 1
}

func (h *httpHandler) originAllowed(origin string) bool {
	if u, err := url.Parse(origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		switch u.Hostname() {
		case "localhost", "127.0.0.1", "::1":
			return true
		}
	}
	return h.origins[normalizeOrigin(origin)]
}

// normalizeOrigin puts an origin in the form browsers send: lower case,
// no trailing slash.
func normalizeOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}

// ListenAndServe serves s over Streamable HTTP at addr until ctx is done,
// then shuts down gracefully (see [Server.Serve]). An address without a
// host, such as ":8080", is bound to 127.0.0.1 only; to listen on every
// interface say so, as in "0.0.0.0:8080", and set a token.
func (s *Server) ListenAndServe(ctx context.Context, addr string, opts *HTTPOptions) error {
	if addr == "" {
		return errors.New("mcp: no address to listen on: pass host:port, such as 127.0.0.1:8080")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mcp: address %q is not host:port (such as 127.0.0.1:8080): %v", addr, err)
	}
	if host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return s.Serve(ctx, ln, opts)
}

// Serve serves s over Streamable HTTP on ln, at every path, until ctx is
// done. A connection must send a request's headers within 10 seconds and
// its body within 30 seconds more, and an idle connection is closed after
// 2 minutes; a call may run, and an event stream stay open, for as long
// as it needs. It then stops accepting connections, ends open event streams,
// waits up to [HTTPOptions.ShutdownTimeout] for calls in flight, closes
// the sessions it opened and returns nil. It returns an error only when
// serving failed. Serve closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener, opts *HTTPOptions) error {
	return s.serve(ctx, ln, opts, serveLimits)
}

func (s *Server) serve(ctx context.Context, ln net.Listener, opts *HTTPOptions, limits connLimits) error {
	closing, startClosing := context.WithCancel(context.WithoutCancel(ctx))
	defer startClosing()
	h := s.newHTTPHandler(opts, closing)
	h.bodyTimeout = limits.body
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: limits.header,
		IdleTimeout:       limits.idle,
		ErrorLog:          slog.NewLogLogger(h.logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		startClosing()
		h.closeSessions()
		return fmt.Errorf("mcp: %w", err)
	case <-ctx.Done():
	}

	startClosing()
	wait := 5 * time.Second
	if opts != nil && opts.ShutdownTimeout > 0 {
		wait = opts.ShutdownTimeout
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if err != nil {
		h.logger.Warn("calls still running at shutdown were cut off", "error", err)
		srv.Close()
	}
	h.closeSessions()
	<-served
	return nil
}
