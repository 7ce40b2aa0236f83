package llm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// testTransport returns the transport of a client for url whose waits
// are recorded instead of slept.
func testTransport(t *testing.T, cfg Config) (*transport, *[]time.Duration) {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := transportOf(c)
	var waits []time.Duration
	tr.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	tr.jitter = func() float64 { return 0 }
	return tr, &waits
}

func TestEndpoints(t *testing.T) {
	for _, tt := range []struct {
		d          Dialect
		base, want string
	}{
		{Anthropic, "", "https://api.anthropic.com/v1/messages"},
		{Anthropic, "https://proxy.example/v1/", "https://proxy.example/v1/messages"},
		{Anthropic, "https://proxy.example/anthropic", "https://proxy.example/anthropic/v1/messages"},
		{OpenAI, "", "https://api.openai.com/v1/chat/completions"},
		{OpenAI, "http://localhost:11434/v1", "http://localhost:11434/v1/chat/completions"},
		{OpenAI, "https://x.example/v1/chat/completions", "https://x.example/v1/chat/completions"},
	} {
		tr, _ := testTransport(t, Config{Dialect: tt.d, BaseURL: tt.base, Model: "m"})
		if tr.url != tt.want {
			t.Errorf("%s %q: %q, want %q", tt.d, tt.base, tr.url, tt.want)
		}
	}
}

func TestConnectionFailuresAreRetried(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	tr, waits := testTransport(t, Config{Dialect: OpenAI, BaseURL: url, Model: "m"})
	var reasons []string
	ctx := WithRetryObserver(context.Background(), func(r Retry) { reasons = append(reasons, r.Reason) })
	_, err := tr.send(ctx, &Request{Messages: []Message{UserText("q")}})
	if err == nil || !strings.Contains(err.Error(), "connect") {
		t.Fatalf("got %v", err)
	}
	if len(*waits) != 2 || (*waits)[0] != 500*time.Millisecond || (*waits)[1] != time.Second {
		t.Fatalf("waits %v", *waits)
	}
	if strings.Join(reasons, ",") != "connection failed,connection failed" {
		t.Fatalf("reasons %v", reasons)
	}
}

func TestStreamAnsweredWhole(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"r","model":"m","choices":[{"message":{"content":"whole","tool_calls":[{"id":"c","type":"function","function":{"name":"t","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`)
	}))
	defer srv.Close()
	tr, _ := testTransport(t, Config{Dialect: OpenAI, BaseURL: srv.URL, Model: "m"})
	var types []EventType
	var done *Response
	for ev, err := range tr.stream(context.Background(), &Request{Messages: []Message{UserText("q")}}) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, ev.Type)
		done = ev.Response
	}
	if len(types) != 3 || types[0] != EventText || types[1] != EventToolCall || types[2] != EventDone {
		t.Fatalf("events %v", types)
	}
	if done.Text() != "whole" || done.Stop != StopToolUse {
		t.Fatalf("reply %+v", done)
	}
}

func TestBreakingOutStopsTheStream(t *testing.T) {
	served := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(served)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseOf("", oaiRole))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the client leaving ends the request
	}))
	defer srv.Close()
	tr, _ := testTransport(t, Config{Dialect: OpenAI, BaseURL: srv.URL, Model: "m"})
	n := 0
	for _, err := range tr.stream(context.Background(), &Request{Messages: []Message{UserText("q")}}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		break
	}
	<-served
	if n != 1 {
		t.Fatalf("%d events", n)
	}
}
