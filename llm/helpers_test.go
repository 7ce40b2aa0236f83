package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

var dialects = []llm.Dialect{llm.Anthropic, llm.OpenAI}

// newClient starts a scripted server and returns a client for it.
func newClient(t *testing.T, d llm.Dialect, script llmtest.Script, edit ...func(*llm.Config)) (llm.Client, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(script)
	t.Cleanup(srv.Close)
	return clientFor(t, srv, d, edit...), srv
}

// clientFor returns a client that reaches srv in memory, so that it may
// run under synctest while srv, listening on the network, stays outside.
func clientFor(t *testing.T, srv *llmtest.Server, d llm.Dialect, edit ...func(*llm.Config)) llm.Client {
	t.Helper()
	cfg := srv.Config(d)
	cfg.HTTPClient = &http.Client{Transport: srv.Transport()}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ask(text string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{llm.UserText(text)}}
}

// collect drains a stream, returning its events before EventDone.
func collect(t *testing.T, seq func(func(llm.Event, error) bool)) ([]llm.Event, *llm.Response, error) {
	t.Helper()
	var evs []llm.Event
	for ev, err := range seq {
		if err != nil {
			return evs, nil, err
		}
		if ev.Type == llm.EventDone {
			return evs, ev.Response, nil
		}
		evs = append(evs, ev)
	}
	t.Fatal("stream ended without EventDone or an error")
	return nil, nil, nil
}

// streamText joins the text events of a stream.
func streamText(evs []llm.Event) string {
	var b bytes.Buffer
	for _, ev := range evs {
		if ev.Type == llm.EventText {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

// bodyOf decodes a recorded request body.
func bodyOf(t *testing.T, r *llmtest.Request) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	return m
}

// retries records the retries a request reports.
type retries struct {
	mu   sync.Mutex
	list []llm.Retry
}

func (r *retries) ctx() context.Context {
	return llm.WithRetryObserver(context.Background(), func(x llm.Retry) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.list = append(r.list, x)
	})
}

func (r *retries) all() []llm.Retry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]llm.Retry(nil), r.list...)
}

// logBuffer is a logger whose output a test can read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// inBubble runs f under synctest with a client for a server started
// outside the bubble, so that waits between retries take no real time.
func inBubble(t *testing.T, d llm.Dialect, script llmtest.Script, f func(t *testing.T, c llm.Client, srv *llmtest.Server), edit ...func(*llm.Config)) {
	t.Helper()
	srv := llmtest.NewServer(script)
	t.Cleanup(srv.Close)
	synctest.Test(t, func(t *testing.T) {
		f(t, clientFor(t, srv, d, edit...), srv)
	})
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
