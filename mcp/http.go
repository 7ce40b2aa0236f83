package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
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
// sessions kept.
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
	// servers with many short-lived clients.
	Stateless bool

	// SessionTimeout closes a session that received no request for that
	// long. Zero means sessions stay until the client ends them.
	SessionTimeout time.Duration

	// ShutdownTimeout bounds how long [Server.Serve] waits, once its
	// context is done, for calls in flight to finish before it closes the
	// connections. Zero means 5 seconds.
	ShutdownTimeout time.Duration

	// Logger receives the HTTP layer's activity. Nil means the server's
	// logger.
	Logger *slog.Logger
}

// defaultMaxBodyBytes is the body limit when HTTPOptions.MaxBodyBytes is 0.
const defaultMaxBodyBytes = 4 << 20

// HTTPHandler returns an http.Handler serving s over Streamable HTTP at
// whatever path it is mounted on, with the checks [HTTPOptions] describes:
// Origin, then bearer token, then body size. The SDK's handler also
// refuses, with 403, a request reaching a loopback address with a Host
// header that is not a loopback name.
func (s *Server) HTTPHandler(opts *HTTPOptions) http.Handler {
	return s.newHTTPHandler(opts, nil)
}

// httpHandler guards the SDK's Streamable HTTP handler.
type httpHandler struct {
	next      http.Handler
	token     [sha256.Size]byte
	hasToken  bool
	origins   map[string]bool
	maxBody   int64
	stateless bool
	logger    *slog.Logger

	// Set when Serve runs the handler: done when shutdown starts, so that
	// long-lived event streams end and sessions can be closed.
	closing  context.Context
	srv      *sdk.Server
	mu       sync.Mutex
	sessions map[string]bool // ids of the sessions opened here
	pruneAt  int             // when len(sessions) reaches it, drop the ended ones
}

func (s *Server) newHTTPHandler(opts *HTTPOptions, closing context.Context) *httpHandler {
	if opts == nil {
		opts = &HTTPOptions{}
	}
	h := &httpHandler{
		origins:   make(map[string]bool, len(opts.AllowedOrigins)),
		maxBody:   opts.MaxBodyBytes,
		stateless: opts.Stateless,
		logger:    opts.Logger,
		closing:   closing,
		srv:       s.sdk,
		sessions:  make(map[string]bool),
		pruneAt:   64,
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
	h.next = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, &sdk.StreamableHTTPOptions{
		Stateless:           opts.Stateless,
		Logger:              h.logger,
		SessionTimeout:      opts.SessionTimeout,
		MaxRequestBodyBytes: h.maxBody,
	})
	return h
}

const sessionHeader = "Mcp-Session-Id"

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
	if h.closing == nil || h.stateless {
		h.next.ServeHTTP(w, r)
		return
	}
	h.serveTracked(w, r)
}

// serveTracked serves a stateful request under Serve, remembering the
// sessions it opens so that shutdown can close them, and ending event
// streams when shutdown starts.
func (h *httpHandler) serveTracked(w http.ResponseWriter, r *http.Request) {
	select {
	case <-h.closing.Done():
		w.Header().Set("Connection", "close")
		http.Error(w, "the server is shutting down", http.StatusServiceUnavailable)
		return
	default:
	}
	id := r.Header.Get(sessionHeader)
	switch r.Method {
	case http.MethodGet:
		ctx, cancel := context.WithCancel(r.Context())
		stop := context.AfterFunc(h.closing, cancel)
		defer func() { stop(); cancel() }()
		r = r.WithContext(ctx)
	case http.MethodDelete:
		defer h.forget(id)
	}
	h.next.ServeHTTP(w, r)
	if id == "" && r.Method == http.MethodPost {
		if id = w.Header().Get(sessionHeader); id != "" {
			h.remember(id)
		}
	}
}

// remember records a session opened here. Sessions that end without a
// DELETE (timed out, abandoned) are dropped from the record now and then.
func (h *httpHandler) remember(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sessions[id] = true
	if len(h.sessions) < h.pruneAt {
		return
	}
	live := make(map[string]bool, len(h.sessions))
	for ss := range h.srv.Sessions() {
		if id := ss.ID(); h.sessions[id] {
			live[id] = true
		}
	}
	h.sessions = live
	h.pruneAt = max(64, 2*len(live))
}

func (h *httpHandler) forget(id string) {
	h.mu.Lock()
	delete(h.sessions, id)
	h.mu.Unlock()
}

// closeSessions closes the sessions this handler opened.
func (h *httpHandler) closeSessions() {
	h.mu.Lock()
	ids := h.sessions
	h.sessions = make(map[string]bool)
	h.mu.Unlock()
	for ss := range h.srv.Sessions() {
		if id := ss.ID(); id != "" && ids[id] {
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
// done. It then stops accepting connections, ends open event streams,
// waits up to [HTTPOptions.ShutdownTimeout] for calls in flight, closes
// the sessions it opened and returns nil. It returns an error only when
// serving failed. Serve closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener, opts *HTTPOptions) error {
	closing, startClosing := context.WithCancel(context.WithoutCancel(ctx))
	defer startClosing()
	h := s.newHTTPHandler(opts, closing)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
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
