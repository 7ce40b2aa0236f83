package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// Characters JSON encoders like to escape, to show nothing is altered.
const (
	thought   = "Compare <a> & <b>: \"quoted\", tab\t, é, 🙂, \u2028 line."
	signature = "EqQBCkgIARABGAIiQL+/signature==<&>"
	redacted  = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj=="
)

func TestThinkingRoundTrip(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "whole"
		if stream {
			name = "streamed"
		}
		t.Run(name+" anthropic thinking goes back byte for byte before the call", func(t *testing.T) {
			c, srv := newClient(t, llm.Anthropic, llmtest.Replies(
				llmtest.Reply{Parts: []llm.Part{
					llm.Thinking(thought, signature),
					llm.RedactedThinking(redacted),
					llm.ToolCall("toolu_1", "read", json.RawMessage(`{"path":"x"}`)),
				}},
				llmtest.Reply{Text: "ok"},
			))
			req := &llm.Request{ThinkingBudget: 2000, Tools: []llm.ToolSpec{{Name: "read"}},
				Messages: []llm.Message{llm.UserText("think")}}
			resp := send(t, c, req, stream)
			want := []llm.Part{llm.Thinking(thought, signature), llm.RedactedThinking(redacted)}
			if len(resp.Parts) != 3 || !reflect.DeepEqual(resp.Parts[:2], want) {
				t.Fatalf("parts %+v", resp.Parts)
			}
			req.Messages = append(req.Messages, resp.Message(), llm.Message{Role: llm.User,
				Parts: []llm.Part{llm.ToolResult("toolu_1", "content", false)}})
			send(t, c, req, stream)

			sent := srv.Requests()[1].Messages[1].Parts
			if len(sent) != 3 || !reflect.DeepEqual(sent[:2], want) || sent[2].Type != llm.PartToolCall {
				t.Fatalf("assistant turn sent back as %+v", sent)
			}
			// Byte for byte on the wire as well: the strings appear unescaped.
			body := srv.Requests()[1].Body
			for _, s := range []string{`"signature":"` + signature + `"`, `"data":"` + redacted + `"`, "<a> & <b>"} {
				if !bytes.Contains(body, []byte(s)) {
					t.Errorf("body lacks %s", s)
				}
			}
		})
	}
	t.Run("openai reasoning is surfaced as thinking and not sent back", func(t *testing.T) {
		for _, stream := range []bool{false, true} {
			c, srv := newClient(t, llm.OpenAI, llmtest.Replies(
				llmtest.Reply{Thinking: "step one, step two", Text: "42"},
				llmtest.Reply{Text: "ok"},
			))
			req := ask("think")
			resp := send(t, c, req, stream)
			if len(resp.Parts) != 2 || resp.Parts[0].Type != llm.PartThinking || resp.Parts[0].Text != "step one, step two" {
				t.Fatalf("parts %+v", resp.Parts)
			}
			req.Messages = append(req.Messages, resp.Message(), llm.UserText("more"))
			send(t, c, req, stream)
			if bytes.Contains(srv.Requests()[1].Body, []byte("step one")) {
				t.Fatalf("reasoning was sent back: %s", srv.Requests()[1].Body)
			}
		}
	})
	t.Run("openai streams thinking events before the text", func(t *testing.T) {
		c, _ := newClient(t, llm.OpenAI, llmtest.Replies(llmtest.Reply{Thinking: "hmm", Text: "yes"}))
		evs, _, err := collect(t, c.Stream(context.Background(), ask("q")))
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 || evs[0].Type != llm.EventThinking {
			t.Fatalf("events %+v", evs)
		}
	})
}

func TestThinkingSettings(t *testing.T) {
	temp := 0.3
	tests := []struct {
		name   string
		d      llm.Dialect
		budget int
		max    int
		check  func(t *testing.T, b map[string]any)
	}{
		{"anthropic sends a thinking block and drops temperature", llm.Anthropic, 2000, 8000, func(t *testing.T, b map[string]any) {
			th, _ := b["thinking"].(map[string]any)
			if th["type"] != "enabled" || th["budget_tokens"] != 2000.0 {
				t.Errorf("thinking %v", b["thinking"])
			}
			if _, ok := b["temperature"]; ok {
				t.Error("temperature sent with thinking on")
			}
			if b["max_tokens"] != 8000.0 {
				t.Errorf("max_tokens %v", b["max_tokens"])
			}
		}},
		{"anthropic raises a small budget to 1024 and max_tokens above it", llm.Anthropic, 100, 1000, func(t *testing.T, b map[string]any) {
			th, _ := b["thinking"].(map[string]any)
			if th["budget_tokens"] != 1024.0 || b["max_tokens"] != 2024.0 {
				t.Errorf("thinking %v, max_tokens %v", th, b["max_tokens"])
			}
		}},
		{"anthropic without a budget sends temperature", llm.Anthropic, 0, 0, func(t *testing.T, b map[string]any) {
			if b["temperature"] != 0.3 || b["thinking"] != nil || b["max_tokens"] != 4096.0 {
				t.Errorf("body %v", b)
			}
		}},
		{"openai maps a small budget to low effort", llm.OpenAI, 2000, 0, effort("low")},
		{"openai maps a middling budget to medium effort", llm.OpenAI, 8000, 0, effort("medium")},
		{"openai maps a large budget to high effort", llm.OpenAI, 32000, 0, effort("high")},
		{"openai without a budget sends no effort", llm.OpenAI, 0, 0, effort("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, srv := newClient(t, tt.d, llmtest.Replies(llmtest.Reply{Text: "ok"}))
			req := ask("q")
			req.ThinkingBudget, req.MaxTokens, req.Temperature = tt.budget, tt.max, &temp
			if _, err := c.Send(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			tt.check(t, bodyOf(t, srv.Requests()[0]))
		})
	}
}

func effort(want string) func(t *testing.T, b map[string]any) {
	return func(t *testing.T, b map[string]any) {
		got, _ := b["reasoning_effort"].(string)
		if got != want {
			t.Errorf("reasoning_effort %q, want %q", got, want)
		}
	}
}
