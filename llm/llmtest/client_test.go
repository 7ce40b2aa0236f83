package llmtest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"testing/synctest"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// These tests run package llm's own client against the server: each
// dialect, whole and streamed.

type mode struct {
	dialect llm.Dialect
	stream  bool
}

func (m mode) String() string {
	if m.stream {
		return string(m.dialect) + " streamed"
	}
	return string(m.dialect) + " whole"
}

var modes = []mode{{llm.Anthropic, false}, {llm.Anthropic, true}, {llm.OpenAI, false}, {llm.OpenAI, true}}

func ask(ctx context.Context, c llm.Client, stream bool, req *llm.Request) (*llm.Response, error) {
	if stream {
		return llm.Collect(c.Stream(ctx, req))
	}
	return c.Send(ctx, req)
}

func newClient(t *testing.T, cfg llm.Config) llm.Client {
	t.Helper()
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientToolRoundTrip(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String()+" carries a tool call and its result", func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(
				llmtest.Reply{Text: "Let me look.", Calls: []llmtest.Call{{Name: "read", Args: `{"path":"go.mod"}`}},
					Usage: llm.Usage{Input: 50, Output: 7, CacheRead: 20}},
				llmtest.Reply{Text: "It is a Go module."},
			))
			defer srv.Close()
			c := newClient(t, srv.Config(m.dialect))
			ctx := context.Background()
			req := &llm.Request{
				System:   "Be brief.",
				Messages: []llm.Message{llm.UserText("What is go.mod?")},
				Tools:    []llm.ToolSpec{{Name: "read", Description: "Reads a file."}},
			}
			resp, err := ask(ctx, c, m.stream, req)
			if err != nil {
				t.Fatal(err)
			}
			calls := resp.ToolCalls()
			if resp.Stop != llm.StopToolUse || resp.Text() != "Let me look." || len(calls) != 1 || calls[0].Name != "read" || string(calls[0].Args) != `{"path":"go.mod"}` {
				t.Fatalf("first reply %+v", resp)
			}
			if resp.Usage.Input != 50 || resp.Usage.Output != 7 || resp.Usage.CacheRead != 20 {
				t.Errorf("usage %+v", resp.Usage)
			}
			req.Messages = append(req.Messages, resp.Message(), llm.Message{Role: llm.User, Parts: []llm.Part{
				llm.ToolResult(calls[0].ID, "module example.com/x", false),
			}})
			resp, err = ask(ctx, c, m.stream, req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Stop != llm.StopEnd || resp.Text() != "It is a Go module." {
				t.Errorf("second reply %+v", resp)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			second := reqs[1]
			if second.Stream != m.stream || second.System != "Be brief." || !reflect.DeepEqual(second.Tools, []string{"read"}) || second.Model != "test-model" {
				t.Errorf("second request %+v", second)
			}
			if res := second.LastToolResults(); len(res) != 1 || res[0].ID != calls[0].ID || res[0].Text != "module example.com/x" {
				t.Errorf("tool results sent %+v", res)
			}
			if got := second.Messages[1].ToolCalls(); len(got) != 1 || got[0].ID != calls[0].ID {
				t.Errorf("assistant turn sent back as %+v", second.Messages[1])
			}
			if !second.HasKey("test-key") {
				t.Error("the client's key was not sent")
			}
		})
	}
}

func TestClientThinkingRoundTrip(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream %v keeps the block intact", stream), func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(
				llmtest.Reply{Thinking: "Check the file.", Signature: "EqQBCkYIBxgCKkD+/sig==", RedactedThinking: "EmwKAhgB",
					Calls: []llmtest.Call{{Name: "read", Args: `{}`}}},
				llmtest.Reply{Text: "done"},
			))
			defer srv.Close()
			c := newClient(t, srv.Config(llm.Anthropic))
			req := &llm.Request{Messages: []llm.Message{llm.UserText("go")}, MaxTokens: 4096, ThinkingBudget: 2048}
			resp, err := ask(context.Background(), c, stream, req)
			if err != nil {
				t.Fatal(err)
			}
			req.Messages = append(req.Messages, resp.Message(), llm.Message{Role: llm.User, Parts: []llm.Part{
				llm.ToolResult(resp.ToolCalls()[0].ID, "ok", false),
			}})
			if _, err := ask(context.Background(), c, stream, req); err != nil {
				t.Fatal(err)
			}
			sent := srv.Requests()[1].Messages[1].Parts
			if len(sent) < 2 || !reflect.DeepEqual(sent[:2], []llm.Part{llm.Thinking("Check the file.", "EqQBCkYIBxgCKkD+/sig=="), llm.RedactedThinking("EmwKAhgB")}) {
				t.Errorf("assistant turn sent back as %+v", sent)
			}
		})
	}
}

func TestClientSeesFaults(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String()+" gets the provider's error", func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Fault: &llmtest.Fault{Status: 401}}))
			defer srv.Close()
			_, err := ask(context.Background(), newClient(t, srv.Config(m.dialect)), m.stream, &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != 401 || apiErr.Message == "" {
				t.Errorf("error %v", err)
			}
		})
		t.Run(m.String()+" reports an error mid-stream", func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "part", StreamError: "Overloaded"}))
			defer srv.Close()
			cfg := srv.Config(m.dialect)
			cfg.MaxRetries = -1
			_, err := ask(context.Background(), newClient(t, cfg), m.stream, &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) || apiErr.Message != "Overloaded" {
				t.Errorf("error %v", err)
			}
		})
	}
}

func TestClientRetriesUnderSynctest(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String()+" waits the retry-after on the fake clock", func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(
				llmtest.Reply{Fault: &llmtest.Fault{Status: 429, Header: http.Header{"Retry-After": {"20"}}}},
				llmtest.Reply{Text: "ok"},
			))
			defer srv.Close()
			synctest.Test(t, func(t *testing.T) {
				cfg := srv.Config(m.dialect)
				cfg.HTTPClient = &http.Client{Transport: srv.Transport()}
				var retries []llm.Retry
				ctx := llm.WithRetryObserver(t.Context(), func(r llm.Retry) { retries = append(retries, r) })
				resp, err := ask(ctx, newClient(t, cfg), m.stream, &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
				if err != nil {
					t.Fatal(err)
				}
				if resp.Text() != "ok" || len(retries) != 1 || retries[0].Wait.Seconds() != 20 {
					t.Errorf("reply %q after retries %+v", resp.Text(), retries)
				}
			})
		})
	}
}
