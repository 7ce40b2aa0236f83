package llm_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func refusal(status int, param, code, message string) llmtest.Reply {
	return llmtest.Reply{Fault: &llmtest.Fault{Status: status, Type: "invalid_request_error",
		Param: param, Code: code, Message: message}}
}

func refusalBody(status int, body string) llmtest.Reply {
	return llmtest.Reply{Fault: &llmtest.Fault{Status: status, Body: body,
		Header: http.Header{"Content-Type": {"application/json"}}}}
}

const mistralExtra = `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","max_completion_tokens"],"msg":"Extra inputs are not permitted","input":4096}]},"type":"invalid_request_error","param":null,"code":null}`

func TestRepairRules(t *testing.T) {
	temp := 0.2
	tools := []llm.ToolSpec{{Name: "read"}}
	tests := []struct {
		name    string
		d       llm.Dialect
		refusal llmtest.Reply
		req     func(r *llm.Request)
		edit    func(c *llm.Config)
		stream  bool
		reason  string
		check   func(b map[string]any) bool
	}{
		{"max_tokens becomes max_completion_tokens", llm.OpenAI,
			refusal(400, "max_tokens", "unsupported_parameter", "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
			nil, nil, false, "max_tokens → max_completion_tokens",
			func(b map[string]any) bool { return b["max_tokens"] == nil && b["max_completion_tokens"] == 4096.0 }},
		{"an unsupported temperature is dropped", llm.OpenAI,
			refusal(400, "temperature", "unsupported_value", "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported."),
			func(r *llm.Request) { r.Temperature = &temp }, nil, false, "drop temperature",
			func(b map[string]any) bool { return b["temperature"] == nil }},
		{"anthropic's deprecated temperature is dropped", llm.Anthropic,
			refusal(400, "", "", "`temperature` is deprecated for this model."),
			func(r *llm.Request) { r.Temperature = &temp }, nil, false, "drop temperature",
			func(b map[string]any) bool { return b["temperature"] == nil }},
		{"stream_options is dropped", llm.OpenAI,
			refusal(400, "", "", "Unrecognized request argument supplied: stream_options"),
			nil, nil, true, "drop stream_options",
			func(b map[string]any) bool { return b["stream_options"] == nil && b["stream"] == true }},
		{"parallel_tool_calls is dropped", llm.OpenAI,
			refusal(400, "parallel_tool_calls", "", "parallel_tool_calls is not supported for this model"),
			func(r *llm.Request) { r.Tools, r.ToolChoice.NoParallel = tools, true }, nil, false, "drop parallel_tool_calls",
			func(b map[string]any) bool { return b["parallel_tool_calls"] == nil && b["tools"] != nil }},
		{"the system role becomes developer", llm.OpenAI,
			refusal(400, "messages[0].role", "unsupported_value", "Unsupported value: 'messages[0].role' does not support 'system' with this model."),
			func(r *llm.Request) { r.System = "be brief" }, nil, false, "role system → developer",
			func(b map[string]any) bool { return firstRole(b) == "developer" }},
		{"reasoning_effort is dropped", llm.OpenAI,
			refusal(400, "reasoning_effort", "", "Unrecognized request argument supplied: reasoning_effort"),
			func(r *llm.Request) { r.ThinkingBudget = 2048 }, nil, false, "drop reasoning_effort",
			func(b map[string]any) bool { return b["reasoning_effort"] == nil }},
		{"max_completion_tokens becomes max_tokens for mistral", llm.OpenAI,
			refusalBody(422, mistralExtra),
			nil, func(c *llm.Config) { c.Extra = map[string]any{"max_tokens": nil, "max_completion_tokens": 4096} }, false, "max_completion_tokens → max_tokens",
			func(b map[string]any) bool { return b["max_completion_tokens"] == nil && b["max_tokens"] == 4096.0 }},
		{"tool_choice required becomes any for mistral", llm.OpenAI,
			refusal(400, "tool_choice", "", "Input should be 'auto', 'none' or 'any'"),
			func(r *llm.Request) { r.Tools, r.ToolChoice.Mode = tools, llm.ToolAny }, nil, false, "tool_choice required → any",
			func(b map[string]any) bool { return b["tool_choice"] == "any" }},
		{"top_p named in a refusal is dropped", llm.Anthropic,
			refusal(400, "", "", "top_p: Extra inputs are not permitted"),
			nil, func(c *llm.Config) { c.Extra = map[string]any{"top_p": 0.9} }, false, "drop top_p",
			func(b map[string]any) bool { return b["top_p"] == nil }},
		{"top_k named in a refusal is dropped", llm.OpenAI,
			refusal(400, "top_k", "", "Unrecognized request argument supplied: top_k"),
			nil, func(c *llm.Config) { c.Extra = map[string]any{"top_k": 5} }, false, "drop top_k",
			func(b map[string]any) bool { return b["top_k"] == nil }},
		{"a repair wins over Extra", llm.OpenAI,
			refusal(400, "temperature", "unsupported_value", "Unsupported value: 'temperature' does not support 0.5 with this model."),
			nil, func(c *llm.Config) { c.Extra = map[string]any{"temperature": 0.5} }, false, "drop temperature",
			func(b map[string]any) bool { return b["temperature"] == nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var edits []func(*llm.Config)
			if tt.edit != nil {
				edits = append(edits, tt.edit)
			}
			c, srv := newClient(t, tt.d, llmtest.Replies(tt.refusal, ok, ok), edits...)
			req := ask("q")
			if tt.req != nil {
				tt.req(req)
			}
			var rs retries
			for range 2 {
				resp := sendCtx(t, rs.ctx(), c, req, tt.stream)
				if resp.Text() != "ok" {
					t.Fatalf("reply %q", resp.Text())
				}
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want the refused one, its repair, and a third right first time", len(reqs))
			}
			for i, r := range reqs[1:] {
				if b := bodyOf(t, r); !tt.check(b) {
					t.Fatalf("request %d not repaired: %s", i+2, r.Body)
				}
			}
			if got := rs.all(); len(got) != 1 || got[0].Reason != "repair: "+tt.reason || got[0].Attempt != 2 || got[0].Wait != 0 {
				t.Fatalf("reported %+v", got)
			}
		})
	}
}

func firstRole(b map[string]any) string {
	msgs, _ := b["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	m, _ := msgs[0].(map[string]any)
	role, _ := m["role"].(string)
	return role
}

func sendCtx(t *testing.T, ctx context.Context, c llm.Client, req *llm.Request, stream bool) *llm.Response {
	t.Helper()
	if !stream {
		resp, err := c.Send(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp, err := llm.Collect(c.Stream(ctx, req))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestRepairOpposites(t *testing.T) {
	t.Run("a developer role refused later goes back to system", func(t *testing.T) {
		c, srv := newClient(t, llm.OpenAI, llmtest.Replies(
			refusal(400, "messages[0].role", "", "Unsupported value: 'messages[0].role' does not support 'system' with this model."),
			ok,
			refusal(400, "messages[0].role", "", "The 'developer' role is not supported by this model."),
			ok, ok,
		))
		req := &llm.Request{System: "be brief", Messages: []llm.Message{llm.UserText("q")}}
		for range 3 {
			sendCtx(t, context.Background(), c, req, false)
		}
		var roles []string
		for _, r := range srv.Requests() {
			roles = append(roles, firstRole(bodyOf(t, r)))
		}
		if got := strings.Join(roles, " "); got != "system developer developer system system" {
			t.Fatalf("roles sent: %s", got)
		}
	})
	t.Run("max_completion_tokens refused later goes back to max_tokens", func(t *testing.T) {
		c, srv := newClient(t, llm.OpenAI, llmtest.Replies(
			refusal(400, "max_tokens", "unsupported_parameter", "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
			ok, refusalBody(422, mistralExtra), ok, ok,
		))
		for range 3 {
			sendCtx(t, context.Background(), c, ask("q"), false)
		}
		last := bodyOf(t, srv.Requests()[4])
		if last["max_tokens"] != 4096.0 || last["max_completion_tokens"] != nil {
			t.Fatalf("last request %v", last)
		}
	})
}

func TestRepairLimits(t *testing.T) {
	temp := 0.2
	tests := []struct {
		name     string
		d        llm.Dialect
		replies  []llmtest.Reply
		model    string
		requests int
	}{
		{"a 400 no rule explains is returned as is", llm.OpenAI, []llmtest.Reply{
			refusal(400, "max_tokens", "invalid_value", "max_tokens is too large: 100000. This model supports at most 16384 completion tokens."), ok,
		}, "", 1},
		{"a refusal naming a field the request lacks is returned", llm.OpenAI, []llmtest.Reply{
			refusal(400, "top_p", "unsupported_parameter", "Unsupported parameter: 'top_p'"), ok,
		}, "", 1},
		{"the same repair is not tried twice", llm.Anthropic, []llmtest.Reply{
			refusal(400, "", "", "`temperature` is deprecated for this model."),
			refusal(400, "", "", "`temperature` is deprecated for this model."), ok,
		}, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, srv := newClient(t, tt.d, llmtest.Replies(tt.replies...))
			req := ask("q")
			req.Temperature = &temp
			_, err := c.Send(context.Background(), req)
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != 400 {
				t.Fatalf("got %v, want the 400", err)
			}
			if len(srv.Requests()) != tt.requests {
				t.Fatalf("%d requests, want %d", len(srv.Requests()), tt.requests)
			}
		})
	}
	t.Run("a fix is remembered for its model only", func(t *testing.T) {
		c, srv := newClient(t, llm.OpenAI, llmtest.Replies(
			refusal(400, "temperature", "unsupported_value", "Unsupported value: 'temperature' does not support 0.2 with this model."),
			ok, ok,
		))
		req := ask("q")
		req.Temperature = &temp
		sendCtx(t, context.Background(), c, req, false)
		req.Model = "other-model"
		sendCtx(t, context.Background(), c, req, false)
		if b := bodyOf(t, srv.Requests()[2]); b["temperature"] != 0.2 {
			t.Fatalf("the other model's request lost its temperature: %v", b)
		}
	})
}

// The parsed refusal is what the rules read.
func TestRefusalIsParsed(t *testing.T) {
	c, _ := newClient(t, llm.OpenAI, llmtest.Replies(refusal(400, "max_tokens", "invalid_value", "too large")))
	_, err := c.Send(context.Background(), ask("q"))
	var e *llm.APIError
	if !errors.As(err, &e) || e.Param != "max_tokens" || e.Code != "invalid_value" || e.Type != "invalid_request_error" || e.Message != "too large" {
		t.Fatalf("got %#v", err)
	}
}
