package llmtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// Transport returns a round tripper that hands requests straight to s in
// memory, with no network connection: requests to any host reach the same
// routes, recorded and scripted as usual. It suits tests that run the client
// under testing/synctest, where waits on a real connection would keep the
// fake clock from moving. A dropped connection shows as
// io.ErrUnexpectedEOF while reading the body, or io.EOF when no answer was
// started; a stalled answer waits for the request's context alone.
//
//	cfg := srv.Config(llm.Anthropic)
//	cfg.HTTPClient = &http.Client{Transport: srv.Transport()}
func (s *Server) Transport() http.RoundTripper { return memTransport{s} }

type memTransport struct{ s *Server }

// memHead is the start of an in-memory answer, or the failure before it.
type memHead struct {
	status int
	header http.Header
	err    error
}

func (t memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err // as a transport that never dialled
	}
	sreq := req.Clone(ctx)
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	sreq.RequestURI = req.URL.RequestURI()
	sreq.RemoteAddr = "memory"
	pr, pw := io.Pipe()
	w := &memWriter{ctx: ctx, header: http.Header{}, head: make(chan memHead, 1), pw: pw}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil && v != http.ErrAbortHandler {
				w.fail(fmt.Errorf("llmtest: the server panicked: %v", v))
				return
			}
			w.finish()
		}()
		defer sreq.Body.Close()
		t.s.serve(w, sreq, true)
	}()
	// The client's context ends the read side, as a closed connection would.
	go func() {
		select {
		case <-ctx.Done():
			pw.CloseWithError(ctx.Err())
		case <-done:
		}
	}()
	select {
	case h := <-w.head:
		if h.err != nil {
			return nil, h.err
		}
		length := int64(-1)
		if n, err := strconv.ParseInt(h.header.Get("Content-Length"), 10, 64); err == nil {
			length = n
		}
		return &http.Response{
			Status:     fmt.Sprintf("%d %s", h.status, http.StatusText(h.status)),
			StatusCode: h.status,
			Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:        h.header,
			Body:          pr,
			ContentLength: length,
			Request:       req,
		}, nil
	case <-ctx.Done():
		pw.CloseWithError(ctx.Err())
		return nil, ctx.Err()
	}
}

// memWriter is an http.ResponseWriter whose body flows through a pipe to
// the client.
type memWriter struct {
	ctx    context.Context // the client's
	header http.Header
	head   chan memHead
	pw     *io.PipeWriter

	mu      sync.Mutex
	started bool
}

func (w *memWriter) Header() http.Header { return w.header }

func (w *memWriter) WriteHeader(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return
	}
	w.started = true
	w.head <- memHead{status: status, header: w.header.Clone()}
}

func (w *memWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(b)
}

// Flush does nothing: every Write reaches the reader before it returns.
func (w *memWriter) Flush() {}

// fail ends the answer with err: the round trip's error when no answer was
// started, else the body reader's.
func (w *memWriter) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		w.started = true
		w.head <- memHead{err: err}
	}
	w.pw.CloseWithError(err)
}

// abort cuts the answer as a dropped connection would, or reports the
// client's own context error when that is why the answer stopped.
func (w *memWriter) abort() {
	if err := w.ctx.Err(); err != nil {
		w.fail(err)
		return
	}
	w.mu.Lock()
	started := w.started
	w.mu.Unlock()
	if started {
		w.fail(io.ErrUnexpectedEOF)
	} else {
		w.fail(io.EOF)
	}
}

// finish ends a complete answer.
func (w *memWriter) finish() {
	w.WriteHeader(http.StatusOK)
	w.pw.Close()
}
