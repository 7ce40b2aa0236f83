package llmtest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/bridle-dev/bridle/llm"
)

// maxBody bounds a request body the server reads.
const maxBody = 64 << 20

// Server is a scripted model server on the loopback interface. It answers
// POST /v1/messages in the Anthropic dialect and POST /v1/chat/completions in
// the OpenAI dialect, whole or streamed as the request's "stream" field asks,
// and records every request to those two paths. Other paths are answered with
// 404 in the error shape of the dialect the request looks like.
//
// Like the providers, the server refuses with 400 a request that is not
// JSON, lacks a required field (model, messages, Anthropic's max_tokens), or
// leaves a tool call without its result (or a result without its call);
// such a request is recorded but does not reach the script. A stream is
// written as fast as the client reads it, so events may share a read.
type Server struct {
	// URL is the server's root, "http://127.0.0.1:PORT", with no trailing
	// slash. Use [Server.Config] for a client configuration.
	URL string

	srv      *httptest.Server
	script   Script
	scriptMu sync.Mutex // one script call at a time

	mu   sync.Mutex
	reqs []*Request

	calls     atomic.Int64 // tool call ids made up so far
	done      chan struct{}
	closeOnce sync.Once
}

// NewServer starts a server that answers with script. A nil script answers
// every request as a script that ran out does. Close the server when done.
func NewServer(script Script) *Server {
	if script == nil {
		script = Replies()
	}
	s := &Server{script: script, done: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, false)
	}))
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down, releasing stalled answers first, and waits
// for the requests in flight. It may be called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.Close()
	})
}

// Config returns a client configuration for s in dialect d: the base URL
// that dialect expects (URL for Anthropic, URL+"/v1" for OpenAI), model
// "test-model" and key "test-key". It panics when d is neither [llm.Anthropic]
// nor [llm.OpenAI].
func (s *Server) Config(d llm.Dialect) llm.Config {
	cfg := llm.Config{Dialect: d, Model: "test-model", APIKey: "test-key"}
	switch d {
	case llm.Anthropic:
		cfg.BaseURL = s.URL
	case llm.OpenAI:
		cfg.BaseURL = s.URL + "/v1"
	default:
		panic(fmt.Sprintf("llmtest: unknown dialect %q: use llm.Anthropic or llm.OpenAI", d))
	}
	return cfg
}

// Requests returns the requests received so far, oldest first, including
// those refused as malformed (which the script never saw).
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// route returns the dialect a path belongs to.
func route(path string) (llm.Dialect, bool) {
	switch path {
	case "/v1/messages":
		return llm.Anthropic, true
	case "/v1/chat/completions":
		return llm.OpenAI, true
	}
	return "", false
}

// guessDialect picks the error shape for a request to an unknown path.
func guessDialect(r *http.Request) llm.Dialect {
	if r.Header.Get("Anthropic-Version") != "" || r.Header.Get("X-Api-Key") != "" {
		return llm.Anthropic
	}
	return llm.OpenAI
}

// serve answers one request. mem says the request came through
// [Server.Transport] rather than the network.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, mem bool) {
	d, ok := route(r.URL.Path)
	if !ok || r.Method != http.MethodPost {
		status, msg := http.StatusNotFound, fmt.Sprintf("llmtest: no route for %s %s: the server answers POST /v1/messages (Anthropic) and POST /v1/chat/completions (OpenAI); take the base URL from (*Server).Config", r.Method, r.URL.Path)
		if ok {
			status, msg = http.StatusMethodNotAllowed, fmt.Sprintf("llmtest: %s %s is not allowed; use POST", r.Method, r.URL.Path)
		} else {
			d = guessDialect(r)
		}
		writeBody(w, status, errorJSON(d, status, errorInfo{message: msg}, ""))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return // the client went away
	}
	req := &Request{Dialect: d, Path: r.URL.Path, Body: body}
	req.Header, req.keys = redact(r.Header)
	var bad *badRequest
	if len(body) > maxBody {
		bad = &badRequest{message: fmt.Sprintf("llmtest: the request body is over %d bytes; send less", maxBody)}
	} else {
		bad = req.decode()
	}

	s.scriptMu.Lock()
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	s.mu.Unlock()
	var rep Reply
	var scriptErr error
	if bad == nil {
		rep, scriptErr = s.run(req)
	}
	s.scriptMu.Unlock()

	reqID := fmt.Sprintf("req_%04d", n)
	if d == llm.Anthropic {
		w.Header().Set("Request-Id", reqID)
	} else {
		w.Header().Set("X-Request-Id", reqID)
	}
	switch {
	case bad != nil:
		info := errorInfo{message: bad.message, param: bad.param, code: bad.code}
		writeBody(w, http.StatusBadRequest, errorJSON(d, http.StatusBadRequest, info, reqID))
		return
	case scriptErr != nil:
		writeBody(w, http.StatusInternalServerError, errorJSON(d, http.StatusInternalServerError, errorInfo{message: scriptErr.Error()}, reqID))
		return
	}

	f := rep.Fault
	if f == nil {
		f = &Fault{}
	}
	for k, vs := range f.Header {
		w.Header()[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	a := &answer{req: req, n: n}
	if f.Status != 0 {
		body := []byte(f.Body)
		if f.Body == "" {
			body = errorJSON(d, f.Status, errorInfo{f.Type, f.Message, f.Param, f.Code}, reqID)
		}
		s.writeWhole(w, r, f.Status, body, f, mem)
		return
	}
	if err := a.fill(rep, s.newCallID(d)); err != nil {
		writeBody(w, http.StatusInternalServerError, errorJSON(d, http.StatusInternalServerError, errorInfo{message: err.Error()}, reqID))
		return
	}
	switch {
	case req.Stream:
		s.writeStream(w, r, a.events(), f, mem)
	case rep.StreamError != "":
		status := http.StatusServiceUnavailable
		if d == llm.Anthropic {
			status = 529
		}
		s.writeWhole(w, r, status, errorJSON(d, status, errorInfo{message: rep.StreamError}, reqID), f, mem)
	default:
		s.writeWhole(w, r, http.StatusOK, a.whole(), f, mem)
	}
}

// run calls the script, turning a panic into an error.
func (s *Server) run(req *Request) (rep Reply, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("llmtest: the script panicked: %v", v)
		}
	}()
	return s.script(req), nil
}

// newCallID returns a function making up tool call ids for dialect d.
func (s *Server) newCallID(d llm.Dialect) func() string {
	prefix := "call_"
	if d == llm.Anthropic {
		prefix = "toolu_"
	}
	return func() string { return fmt.Sprintf("%s%04d", prefix, s.calls.Add(1)) }
}

// writeBody writes a whole JSON answer.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeWhole writes a whole answer, cut or stalled as f says.
func (s *Server) writeWhole(w http.ResponseWriter, r *http.Request, status int, body []byte, f *Fault, mem bool) {
	if f.Stall && f.DropAfter <= 0 {
		s.stall(r, mem)
		drop(w)
		return
	}
	if f.DropAfter <= 0 {
		writeBody(w, status, body)
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body[:len(body)/2])
	_ = http.NewResponseController(w).Flush()
	if f.Stall {
		s.stall(r, mem)
	}
	drop(w)
}

// sseEvent is one server-sent event; an empty name writes no event line.
type sseEvent struct {
	name string
	data []byte
}

// writeStream writes events as server-sent events, cut or stalled as f says.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, events []sseEvent, f *Fault, mem bool) {
	if f.Stall && f.DropAfter <= 0 {
		s.stall(r, mem)
		drop(w)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	cut := len(events)
	if f.DropAfter > 0 && f.DropAfter < cut {
		cut = f.DropAfter
	}
	buf := make([]byte, 0, 512)
	for _, ev := range events[:cut] {
		buf = buf[:0]
		if ev.name != "" {
			buf = append(buf, "event: "...)
			buf = append(buf, ev.name...)
			buf = append(buf, '\n')
		}
		buf = append(buf, "data: "...)
		buf = append(buf, ev.data...)
		buf = append(buf, "\n\n"...)
		if _, err := w.Write(buf); err != nil {
			return // the client went away
		}
	}
	_ = rc.Flush()
	if f.DropAfter > 0 || f.Stall {
		if f.Stall {
			s.stall(r, mem)
		}
		drop(w)
	}
}

// stall waits until the client gives up or, on the network, the server
// closes. In memory it waits on the request alone, so that a test under
// testing/synctest sees the wait as durably blocked.
func (s *Server) stall(r *http.Request, mem bool) {
	if mem {
		<-r.Context().Done()
		return
	}
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// drop ends the connection without finishing the response.
func drop(w http.ResponseWriter) {
	if mw, ok := w.(*memWriter); ok {
		mw.abort()
		return
	}
	// Hijack sends what was written; a flush here would send a status line
	// for an answer that never started.
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}
