package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func noRetries(c *llm.Config) { c.MaxRetries = -1 }

func TestFallbackMovesOnWhenAProviderIsDown(t *testing.T) {
	tests := []struct {
		name  string
		first llmtest.Reply
	}{
		{"overloaded", fault(529)},
		{"rate limited after its retries", fault(429)},
		{"a server error", fault(503)},
		{"a gateway error", llmtest.Reply{Fault: &llmtest.Fault{Status: 502, Body: "<html><title>502 Bad Gateway</title></html>"}}},
		{"a retry-after too long to wait", fault(429, "retry-after", "86400")},
		{"an overloaded error event before any output", llmtest.Reply{StreamError: "Overloaded"}},
		{"a connection dropped before any output", llmtest.Reply{Text: "lost", Fault: &llmtest.Fault{DropAfter: 1}}},
	}
	for _, d := range dialects {
		for _, stream := range []bool{false, true} {
			for _, tt := range tests {
				t.Run(string(d)+" "+map[bool]string{false: "whole", true: "streamed"}[stream]+": "+tt.name, func(t *testing.T) {
					first, srv1 := newClient(t, d, llmtest.Replies(tt.first), noRetries)
					second, srv2 := newClient(t, llm.OpenAI, llmtest.Replies(llmtest.Reply{Text: "from the second"}))
					var rs retries
					c := llm.Fallback(first, second)
					var resp *llm.Response
					var err error
					if stream {
						resp, err = llm.Collect(c.Stream(rs.ctx(), ask("q")))
					} else {
						resp, err = c.Send(rs.ctx(), ask("q"))
					}
					if err != nil {
						t.Fatal(err)
					}
					if resp.Text() != "from the second" || len(srv1.Requests()) != 1 || len(srv2.Requests()) != 1 {
						t.Fatalf("reply %q after %d and %d requests", resp.Text(), len(srv1.Requests()), len(srv2.Requests()))
					}
					got := rs.all()
					if len(got) != 1 || got[0].Attempt != 2 || !strings.HasPrefix(got[0].Reason, "fallback: test-model (openai:127.0.0.1:") || got[0].Err == nil {
						t.Fatalf("reported %+v, want one switch naming the second client, with the error", got)
					}
				})
			}
		}
	}
}

func TestFallbackReachesTheNextWhenOneIsUnreachable(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	first, err := llm.New(llm.Config{Dialect: llm.Anthropic, BaseURL: gone.URL, Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	second, _ := newClient(t, llm.Anthropic, llmtest.Replies(ok))
	resp, err := llm.Fallback(first, second).Send(context.Background(), ask("q"))
	if err != nil || resp.Text() != "ok" {
		t.Fatalf("reply %v, err %v; want the second client's answer", resp, err)
	}
}

func TestFallbackKeepsRefusalsAndStreamedOutput(t *testing.T) {
	tests := []struct {
		name   string
		first  llmtest.Reply
		stream bool
		status int
	}{
		{"a bad request", llmtest.Reply{Fault: &llmtest.Fault{Status: 400, Message: "messages: bad"}}, false, 400},
		{"a wrong key", fault(401), false, 401},
		{"a forbidden model", fault(403), true, 403},
		{"a stream cut after output", llmtest.Reply{Text: "some text already shown", Fault: &llmtest.Fault{DropAfter: 4}}, true, 0},
		{"an error event after output", llmtest.Reply{Text: "some text already shown", StreamError: "Overloaded"}, true, 0},
	}
	for _, d := range dialects {
		for _, tt := range tests {
			t.Run(string(d)+": "+tt.name, func(t *testing.T) {
				first, _ := newClient(t, d, llmtest.Replies(tt.first), noRetries)
				second, srv2 := newClient(t, d, llmtest.Replies(ok))
				var rs retries
				c := llm.Fallback(first, second)
				var err error
				var evs []llm.Event
				if tt.stream {
					for ev, e := range c.Stream(rs.ctx(), ask("q")) {
						if e != nil {
							err = e
							break
						}
						evs = append(evs, ev)
					}
				} else {
					_, err = c.Send(rs.ctx(), ask("q"))
				}
				if err == nil || len(srv2.Requests()) != 0 || len(rs.all()) != 0 {
					t.Fatalf("err %v, %d requests to the second, reports %v; want the first's error and no switch", err, len(srv2.Requests()), rs.all())
				}
				var apiErr *llm.APIError
				if tt.status != 0 && (!errors.As(err, &apiErr) || apiErr.Status != tt.status) {
					t.Fatalf("err = %v, want the status %d", err, tt.status)
				}
				if tt.status == 0 && streamText(evs) == "" {
					t.Fatal("no output reached the caller before the failure")
				}
			})
		}
	}
}

func TestFallbackReturnsTheLastErrorAndStopsWhenCancelled(t *testing.T) {
	first, _ := newClient(t, llm.Anthropic, llmtest.Replies(fault(529)), noRetries)
	second, _ := newClient(t, llm.OpenAI, llmtest.Replies(fault(503)), noRetries)
	_, err := llm.Fallback(first, second).Send(context.Background(), ask("q"))
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 {
		t.Fatalf("err = %v, want the last client's 503", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	third, srv3 := newClient(t, llm.OpenAI, llmtest.Replies(ok))
	if _, err := llm.Fallback(third, third).Send(ctx, ask("q")); !errors.Is(err, context.Canceled) || len(srv3.Requests()) != 0 {
		t.Fatalf("err = %v after %d requests, want the cancellation and no request", err, len(srv3.Requests()))
	}
}

func TestFallbackRefusesNoClients(t *testing.T) {
	for name, f := range map[string]func(){"none": func() { llm.Fallback() }, "a nil one": func() { llm.Fallback(nil) }} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "llm.Fallback") {
					t.Fatalf("panic %v, want one naming llm.Fallback", r)
				}
			}()
			f()
		})
	}
}
