package llm_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func TestPlainAnswer(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d)+" returns text, stop and usage", func(t *testing.T) {
			c, srv := newClient(t, d, llmtest.Replies(llmtest.Reply{Text: "Hello there.",
				Usage: llm.Usage{Input: 30, Output: 7}}))
			resp, err := c.Send(context.Background(), &llm.Request{System: "Be brief.",
				Messages: []llm.Message{llm.UserText("hi")}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text() != "Hello there." || resp.Stop != llm.StopEnd || resp.RawStop == "" {
				t.Fatalf("got %+v", resp)
			}
			if resp.Usage.Input != 30 || resp.Usage.Output != 7 {
				t.Fatalf("usage %+v", resp.Usage)
			}
			r := srv.Requests()[0]
			if r.System != "Be brief." || r.Model != "test-model" || r.Stream || r.LastMessage().Text() != "hi" {
				t.Fatalf("recorded %+v", r)
			}
		})
	}
}

func TestStreamedAnswer(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d)+" yields text pieces then the whole reply", func(t *testing.T) {
			text := "A streamed answer, long enough to come in several pieces."
			c, srv := newClient(t, d, llmtest.Replies(llmtest.Reply{Text: text}))
			evs, resp, err := collect(t, c.Stream(context.Background(), ask("hi")))
			if err != nil {
				t.Fatal(err)
			}
			if got := streamText(evs); got != text {
				t.Fatalf("streamed %q", got)
			}
			if len(evs) < 2 {
				t.Fatalf("only %d events: not streamed in pieces", len(evs))
			}
			if resp.Text() != text || resp.Stop != llm.StopEnd {
				t.Fatalf("response %+v", resp)
			}
			if !srv.Requests()[0].Stream {
				t.Fatal("the request did not ask for a stream")
			}
		})
	}
}

func TestToolRoundTrip(t *testing.T) {
	for _, d := range dialects {
		for _, stream := range []bool{false, true} {
			name := string(d) + " whole"
			if stream {
				name = string(d) + " streamed"
			}
			t.Run(name+" carries calls and results both ways", func(t *testing.T) {
				testToolRoundTrip(t, d, stream)
			})
		}
	}
}

func testToolRoundTrip(t *testing.T, d llm.Dialect, stream bool) {
	c, srv := newClient(t, d, llmtest.Replies(
		llmtest.Reply{Text: "Let me look.", Calls: []llmtest.Call{
			{ID: "call_1", Name: "read", Args: `{"path":"a.txt"}`},
			{ID: "call_2", Name: "list", Args: `{"dir":"."}`},
		}},
		llmtest.Reply{Text: "Done."},
	))
	tools := []llm.ToolSpec{
		{Name: "read", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		{Name: "list"},
	}
	req := &llm.Request{Tools: tools, Messages: []llm.Message{llm.UserText("what is in a.txt?")}}
	resp := send(t, c, req, stream)
	calls := resp.ToolCalls()
	if resp.Stop != llm.StopToolUse || len(calls) != 2 {
		t.Fatalf("got stop %q and %d calls", resp.Stop, len(calls))
	}
	if calls[0].ID != "call_1" || calls[0].Name != "read" || !jsonEqual(calls[0].Args, `{"path":"a.txt"}`) {
		t.Fatalf("first call %+v", calls[0])
	}
	req.Messages = append(req.Messages, resp.Message(), llm.Message{Role: llm.User, Parts: []llm.Part{
		llm.ToolResult("call_1", "hello", false),
		llm.ToolResult("call_2", "no such dir", true),
	}})
	if resp := send(t, c, req, stream); resp.Text() != "Done." {
		t.Fatalf("second reply %q", resp.Text())
	}
	second := srv.Requests()[1]
	if got := second.Tools; len(got) != 2 || got[0] != "read" {
		t.Fatalf("tools offered %v", got)
	}
	results := second.LastToolResults()
	if len(results) != 2 || results[0].ID != "call_1" || results[0].Text != "hello" || results[1].ID != "call_2" {
		t.Fatalf("results sent %+v", results)
	}
	if d == llm.Anthropic && (results[0].IsError || !results[1].IsError) {
		t.Fatalf("is_error not carried: %+v", results)
	}
	sentCalls := second.Messages[1].ToolCalls()
	if len(sentCalls) != 2 || sentCalls[1].ID != "call_2" || !jsonEqual(sentCalls[1].Args, `{"dir":"."}`) {
		t.Fatalf("calls sent back %+v", sentCalls)
	}
}

// send makes a request whole or streamed and returns the reply.
func send(t *testing.T, c llm.Client, req *llm.Request, stream bool) *llm.Response {
	t.Helper()
	var resp *llm.Response
	var err error
	if stream {
		_, resp, err = collect(t, c.Stream(context.Background(), req))
	} else {
		resp, err = c.Send(context.Background(), req)
	}
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func jsonEqual(a json.RawMessage, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
