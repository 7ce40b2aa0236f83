package llm_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func fault(status int, header ...string) llmtest.Reply {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return llmtest.Reply{Fault: &llmtest.Fault{Status: status, Header: h}}
}

var ok = llmtest.Reply{Text: "ok"}

// bubbleEpoch is where synctest's fake clock starts.
var bubbleEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		reply  func(now time.Time) llmtest.Reply
		wait   time.Duration
		reason string
		edit   func(*llm.Config)
	}{
		{"retry-after-ms is honoured", func(time.Time) llmtest.Reply {
			return fault(429, "retry-after-ms", "1500", "retry-after", "9")
		}, 1500 * time.Millisecond, "rate limited", nil},
		{"retry-after in seconds is honoured", func(time.Time) llmtest.Reply {
			return fault(429, "retry-after", "3")
		}, 3 * time.Second, "rate limited", nil},
		{"retry-after as an http date is honoured", func(now time.Time) llmtest.Reply {
			return fault(503, "retry-after", now.Add(10*time.Second).UTC().Format(http.TimeFormat))
		}, 10 * time.Second, "status 503", nil},
		{"retry-after up to MaxRetryWait is honoured", func(time.Time) llmtest.Reply {
			return fault(429, "retry-after", "5")
		}, 5 * time.Second, "rate limited", func(c *llm.Config) { c.MaxRetryWait = 5 * time.Second }},
		{"529 overloaded is retried", func(time.Time) llmtest.Reply {
			return fault(529, "retry-after", "2")
		}, 2 * time.Second, "overloaded", nil},
	}
	for _, d := range dialects {
		for _, tt := range tests {
			t.Run(string(d)+" "+tt.name, func(t *testing.T) {
				var edits []func(*llm.Config)
				if tt.edit != nil {
					edits = append(edits, tt.edit)
				}
				inBubble(t, d, llmtest.Replies(tt.reply(bubbleEpoch), ok), func(t *testing.T, c llm.Client, srv *llmtest.Server) {
					start := time.Now()
					if !start.Equal(bubbleEpoch) {
						t.Fatalf("the fake clock starts at %v", start)
					}
					var rs retries
					resp, err := c.Send(rs.ctx(), ask("q"))
					if err != nil {
						t.Fatal(err)
					}
					if resp.Text() != "ok" || len(srv.Requests()) != 2 {
						t.Fatalf("reply %q after %d requests", resp.Text(), len(srv.Requests()))
					}
					got := rs.all()
					if len(got) != 1 || got[0].Attempt != 2 || got[0].Wait != tt.wait || got[0].Reason != tt.reason {
						t.Fatalf("retries %+v, want one of %v for %q", got, tt.wait, tt.reason)
					}
					if elapsed := time.Since(start); elapsed != tt.wait {
						t.Fatalf("waited %v on the fake clock, want %v", elapsed, tt.wait)
					}
					var apiErr *llm.APIError
					if !errors.As(got[0].Err, &apiErr) || apiErr.Status == 0 {
						t.Fatalf("retry error %v is not an *APIError", got[0].Err)
					}
				}, edits...)
			})
		}
	}
}

func TestAbsurdRetryAfterFailsAtOnceSayingWhen(t *testing.T) {
	tests := []struct {
		name  string
		reply func(now time.Time) llmtest.Reply
		wait  time.Duration
	}{
		{"hours in seconds", func(time.Time) llmtest.Reply { return fault(429, "retry-after", "7200") }, 2 * time.Hour},
		{"days as a date", func(now time.Time) llmtest.Reply {
			return fault(503, "retry-after", now.Add(72*time.Hour).UTC().Format(http.TimeFormat))
		}, 72 * time.Hour},
		{"just over the default cap", func(time.Time) llmtest.Reply { return fault(529, "retry-after-ms", "61000") }, 61 * time.Second},
	}
	for _, d := range dialects {
		for _, tt := range tests {
			t.Run(string(d)+" "+tt.name, func(t *testing.T) {
				inBubble(t, d, llmtest.Replies(tt.reply(bubbleEpoch), ok), func(t *testing.T, c llm.Client, srv *llmtest.Server) {
					var rs retries
					_, err := c.Send(rs.ctx(), ask("q"))
					var we *llm.WaitError
					if !errors.As(err, &we) {
						t.Fatalf("err = %v, want a *llm.WaitError", err)
					}
					if we.Wait != tt.wait || !we.At.Equal(bubbleEpoch.Add(tt.wait)) || we.Max != 60*time.Second {
						t.Fatalf("wait error %+v, want a wait of %v from %v under the 60 s default", we, tt.wait, bubbleEpoch)
					}
					var apiErr *llm.APIError
					if !errors.As(err, &apiErr) || apiErr.Status == 0 {
						t.Fatalf("%v does not unwrap to the provider's refusal", err)
					}
					if !strings.Contains(err.Error(), bubbleEpoch.Add(tt.wait).Format(time.RFC3339)) {
						t.Fatalf("%q does not say when to try again", err)
					}
					if len(srv.Requests()) != 1 || len(rs.all()) != 0 || !time.Now().Equal(bubbleEpoch) {
						t.Fatalf("%d requests, retries %v, %v waited; want one request and no wait", len(srv.Requests()), rs.all(), time.Since(bubbleEpoch))
					}
				})
			})
		}
	}
}

func TestBackoff(t *testing.T) {
	inBubble(t, llm.Anthropic, llmtest.Replies(fault(500), fault(502), fault(503), ok), func(t *testing.T, c llm.Client, _ *llmtest.Server) {
		var rs retries
		if _, err := c.Send(rs.ctx(), ask("q")); err != nil {
			t.Fatal(err)
		}
		got := rs.all()
		if len(got) != 3 {
			t.Fatalf("%d retries, want 3", len(got))
		}
		for i, r := range got {
			full := 500 * time.Millisecond << i
			if r.Wait > full || r.Wait < full*3/4 {
				t.Errorf("retry %d waited %v, want between %v and %v", i+1, r.Wait, full*3/4, full)
			}
			if r.Attempt != i+2 {
				t.Errorf("retry %d says attempt %d", i+1, r.Attempt)
			}
		}
	}, func(c *llm.Config) { c.MaxRetries = 3 })
}

func TestRetryLimits(t *testing.T) {
	tests := []struct {
		name     string
		replies  []llmtest.Reply
		edit     func(*llm.Config)
		requests int
		status   int
	}{
		{"gives up after two retries by default", []llmtest.Reply{fault(500), fault(500), fault(500), ok}, nil, 3, 500},
		{"negative MaxRetries means no retry", []llmtest.Reply{fault(429), ok}, func(c *llm.Config) { c.MaxRetries = -1 }, 1, 429},
		{"a 400 is not retried", []llmtest.Reply{fault(400), ok}, nil, 1, 400},
		{"a 401 is not retried", []llmtest.Reply{fault(401), ok}, nil, 1, 401},
		{"x-should-retry false stops a retry", []llmtest.Reply{fault(503, "x-should-retry", "false"), ok}, nil, 1, 503},
		{"x-should-retry true retries a 403", []llmtest.Reply{fault(403, "x-should-retry", "true"), ok}, nil, 2, 0},
		{"408 and 409 are retried", []llmtest.Reply{fault(408), fault(409), ok}, nil, 3, 0},
	}
	for _, d := range dialects {
		for _, tt := range tests {
			t.Run(string(d)+" "+tt.name, func(t *testing.T) {
				var edits []func(*llm.Config)
				if tt.edit != nil {
					edits = append(edits, tt.edit)
				}
				inBubble(t, d, llmtest.Replies(tt.replies...), func(t *testing.T, c llm.Client, srv *llmtest.Server) {
					_, err := c.Send(context.Background(), ask("q"))
					if n := len(srv.Requests()); n != tt.requests {
						t.Fatalf("%d requests, want %d", n, tt.requests)
					}
					var apiErr *llm.APIError
					switch {
					case tt.status == 0 && err != nil:
						t.Fatalf("unexpected error %v", err)
					case tt.status != 0 && (!errors.As(err, &apiErr) || apiErr.Status != tt.status):
						t.Fatalf("error %v, want an *APIError with status %d", err, tt.status)
					}
				}, edits...)
			})
		}
	}
}

func TestRetryWaitEndsWithContext(t *testing.T) {
	inBubble(t, llm.OpenAI, llmtest.Replies(fault(429, "retry-after", "30"), ok), func(t *testing.T, c llm.Client, srv *llmtest.Server) {
		ctx, cancel := context.WithCancel(context.Background())
		ctx = llm.WithRetryObserver(ctx, func(llm.Retry) { cancel() })
		start := time.Now()
		_, err := c.Send(ctx, ask("q"))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		if time.Since(start) != 0 || len(srv.Requests()) != 1 {
			t.Fatalf("waited %v and sent %d requests after cancelling", time.Since(start), len(srv.Requests()))
		}
	})
}

func TestDroppedConnection(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d)+" a stream dropped before any content is retried", func(t *testing.T) {
			inBubble(t, d, llmtest.Replies(
				llmtest.Reply{Text: "lost", Fault: &llmtest.Fault{DropAfter: 1}},
				llmtest.Reply{Text: "kept"},
			), func(t *testing.T, c llm.Client, srv *llmtest.Server) {
				var rs retries
				evs, resp, err := collect(t, c.Stream(rs.ctx(), ask("q")))
				if err != nil {
					t.Fatal(err)
				}
				if streamText(evs) != "kept" || resp.Text() != "kept" || len(srv.Requests()) != 2 {
					t.Fatalf("streamed %q after %d requests", streamText(evs), len(srv.Requests()))
				}
				if got := rs.all(); len(got) != 1 || got[0].Reason != "connection dropped" {
					t.Fatalf("retries %+v", got)
				}
			})
		})
		t.Run(string(d)+" a stream dropped after content is an error, not a retry", func(t *testing.T) {
			inBubble(t, d, llmtest.Replies(
				llmtest.Reply{Text: "a long answer that arrives in several pieces", Fault: &llmtest.Fault{DropAfter: 4}},
				llmtest.Reply{Text: "should not be asked for"},
			), func(t *testing.T, c llm.Client, srv *llmtest.Server) {
				evs, _, err := collect(t, c.Stream(context.Background(), ask("q")))
				if err == nil || !errors.Is(err, llm.ErrStreamEnded) {
					t.Fatalf("got %v, want an error wrapping ErrStreamEnded", err)
				}
				if streamText(evs) == "" || len(srv.Requests()) != 1 {
					t.Fatalf("streamed %q in %d requests", streamText(evs), len(srv.Requests()))
				}
			})
		})
		t.Run(string(d)+" a whole reply cut halfway is retried", func(t *testing.T) {
			inBubble(t, d, llmtest.Replies(
				llmtest.Reply{Text: "lost", Fault: &llmtest.Fault{DropAfter: 1}},
				llmtest.Reply{Text: "kept"},
			), func(t *testing.T, c llm.Client, _ *llmtest.Server) {
				resp, err := c.Send(context.Background(), ask("q"))
				if err != nil || resp.Text() != "kept" {
					t.Fatalf("got %v, %v", resp, err)
				}
			})
		})
		t.Run(string(d)+" an error event before any content is retried", func(t *testing.T) {
			inBubble(t, d, llmtest.Replies(llmtest.Reply{StreamError: "Overloaded"}, ok), func(t *testing.T, c llm.Client, _ *llmtest.Server) {
				_, resp, err := collect(t, c.Stream(context.Background(), ask("q")))
				if err != nil || resp.Text() != "ok" {
					t.Fatalf("got %v, %v", resp, err)
				}
			})
		})
		t.Run(string(d)+" an error event after content is returned", func(t *testing.T) {
			inBubble(t, d, llmtest.Replies(llmtest.Reply{Text: "partial", StreamError: "Overloaded"}, ok), func(t *testing.T, c llm.Client, srv *llmtest.Server) {
				_, _, err := collect(t, c.Stream(context.Background(), ask("q")))
				var apiErr *llm.APIError
				if !errors.As(err, &apiErr) || apiErr.Status != 0 || !strings.Contains(apiErr.Message, "Overloaded") {
					t.Fatalf("got %v, want the stream's error event", err)
				}
				if len(srv.Requests()) != 1 {
					t.Fatalf("%d requests", len(srv.Requests()))
				}
			})
		})
	}
}

func TestRetriesAreLogged(t *testing.T) {
	var log logBuffer
	inBubble(t, llm.Anthropic, llmtest.Replies(fault(529), ok), func(t *testing.T, c llm.Client, _ *llmtest.Server) {
		if _, err := c.Send(context.Background(), ask("q")); err != nil {
			t.Fatal(err)
		}
		if out := log.String(); !strings.Contains(out, "level=INFO msg=\"llm retry\"") || !strings.Contains(out, "reason=overloaded") {
			t.Fatalf("log:\n%s", out)
		}
	}, func(c *llm.Config) { c.Logger = log.logger() })
}

func TestObserversChain(t *testing.T) {
	inBubble(t, llm.OpenAI, llmtest.Replies(fault(500), ok), func(t *testing.T, c llm.Client, _ *llmtest.Server) {
		var order []string
		ctx := llm.WithRetryObserver(context.Background(), func(llm.Retry) { order = append(order, "outer") })
		ctx = llm.WithRetryObserver(ctx, func(llm.Retry) { order = append(order, "inner") })
		if _, err := c.Send(ctx, ask("q")); err != nil {
			t.Fatal(err)
		}
		if strings.Join(order, ",") != "outer,inner" {
			t.Fatalf("observers called %v", order)
		}
	})
}
