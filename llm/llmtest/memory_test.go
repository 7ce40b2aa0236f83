package llmtest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// memPost sends body to the dialect's route through the in-memory transport.
func memPost(ctx context.Context, srv *llmtest.Server, d llm.Dialect, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://model.invalid"+path(d), strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	return srvClient(srv).Do(req)
}

func TestTransportInMemory(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Text: "whole"},
		llmtest.Reply{Text: "streamed"},
		llmtest.Reply{Fault: &llmtest.Fault{Status: 429, Header: http.Header{"Retry-After": {"3"}}}},
		llmtest.Reply{Text: "cut off here", Fault: &llmtest.Fault{DropAfter: 4}},
	))
	defer srv.Close()
	ctx := context.Background()

	t.Run("a whole reply arrives", func(t *testing.T) {
		resp, err := memPost(ctx, srv, llm.OpenAI, simple(llm.OpenAI, false))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		v := decode(t, resp)
		if resp.StatusCode != 200 || get(v, "choices", 0, "message", "content") != "whole" || resp.ContentLength <= 0 {
			t.Errorf("status %d length %d body %v", resp.StatusCode, resp.ContentLength, v)
		}
	})
	t.Run("a streamed reply arrives", func(t *testing.T) {
		resp, err := memPost(ctx, srv, llm.Anthropic, simple(llm.Anthropic, true))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		evs, err := readSSE(resp.Body)
		if err != nil || len(evs) == 0 || evs[len(evs)-1].name != "message_stop" || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("events %v, error %v", evs, err)
		}
	})
	t.Run("a fault keeps its status and headers", func(t *testing.T) {
		resp, err := memPost(ctx, srv, llm.Anthropic, simple(llm.Anthropic, false))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		v := decode(t, resp)
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || get(v, "error", "type") != "rate_limit_error" {
			t.Errorf("status %d header %v body %v", resp.StatusCode, resp.Header, v)
		}
	})
	t.Run("a drop is an unexpected EOF", func(t *testing.T) {
		resp, err := memPost(ctx, srv, llm.OpenAI, simple(llm.OpenAI, true))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		evs, err := readSSE(resp.Body)
		if !errors.Is(err, io.ErrUnexpectedEOF) || len(evs) != 4 {
			t.Errorf("%d events, error %v", len(evs), err)
		}
	})
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d requests recorded, want 4", n)
	}
}

func TestTransportStallWaitsForTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := llmtest.NewServer(func(*llmtest.Request) llmtest.Reply {
		cancel()
		return llmtest.Reply{Fault: &llmtest.Fault{Stall: true}}
	})
	defer srv.Close()
	if _, err := memPost(ctx, srv, llm.OpenAI, simple(llm.OpenAI, false)); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if _, err := memPost(ctx, srv, llm.OpenAI, simple(llm.OpenAI, false)); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests recorded, want 1: a cancelled request never leaves the client", n)
	}
}

func TestTransportUnderSynctest(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Fault: &llmtest.Fault{Status: 429, Header: http.Header{"Retry-After": {"30"}}}},
		llmtest.Reply{Text: "ok"},
		llmtest.Reply{Text: "never", Fault: &llmtest.Fault{Stall: true, DropAfter: 2}},
	))
	defer srv.Close()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		resp, err := memPost(t.Context(), srv, llm.Anthropic, simple(llm.Anthropic, false))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		wait, _ := time.ParseDuration(resp.Header.Get("Retry-After") + "s")
		time.Sleep(wait) // the fake clock moves at once
		resp, err = memPost(t.Context(), srv, llm.Anthropic, simple(llm.Anthropic, false))
		if err != nil {
			t.Fatal(err)
		}
		if v := decode(t, resp); get(v, "content", 0, "text") != "ok" {
			t.Errorf("retry answered %v", v)
		}
		resp.Body.Close()
		if waited := time.Since(start); waited != 30*time.Second {
			t.Errorf("the fake clock moved %v, want the 30s asked for", waited)
		}

		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		resp, err = memPost(ctx, srv, llm.Anthropic, simple(llm.Anthropic, true))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		evs, err := readSSE(resp.Body)
		if !errors.Is(err, context.DeadlineExceeded) || len(evs) != 2 {
			t.Errorf("%d events, error %v; want 2 and the deadline", len(evs), err)
		}
	})
}
