package llmtest_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func TestOpenAIWholeReply(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(fullReply()))
	defer srv.Close()
	resp := post(t, srv, llm.OpenAI, simple(llm.OpenAI, false))
	if resp.StatusCode != 200 || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("status %d, x-request-id %q", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	v := decode(t, resp)
	want := map[string]any{
		"id": "chatcmpl-0001", "object": "chat.completion", "created": 1767225600.0, "model": "gpt-test",
		"choices": []any{map[string]any{
			"index": 0.0, "logprobs": nil, "finish_reason": "tool_calls",
			"message": map[string]any{
				"role": "assistant", "content": "I will read it now, then answer.", "refusal": nil,
				"reasoning_content": "Let me look at the file first.",
				"tool_calls": []any{
					map[string]any{"id": "toolu_x", "type": "function", "function": map[string]any{"name": "read", "arguments": `{"path":"go.mod"}`}},
					map[string]any{"id": "call_0001", "type": "function", "function": map[string]any{"name": "list", "arguments": "{}"}},
				},
			},
		}},
		"usage": map[string]any{
			"prompt_tokens": 100.0, "completion_tokens": 20.0, "total_tokens": 120.0,
			"prompt_tokens_details":     map[string]any{"cached_tokens": 60.0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0.0},
		},
	}
	if !reflect.DeepEqual(v, want) {
		got, _ := json.MarshalIndent(v, "", "  ")
		t.Errorf("got\n%s", got)
	}
}

func TestOpenAIWholeReplyWithoutTextHasNullContent(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Calls: []llmtest.Call{{Name: "ls"}}}))
	defer srv.Close()
	v := decode(t, post(t, srv, llm.OpenAI, simple(llm.OpenAI, false)))
	msg := get(v, "choices", 0, "message").(map[string]any)
	if c, ok := msg["content"]; !ok || c != nil {
		t.Errorf("content %v (present %v), want null", c, ok)
	}
}

func TestOpenAIStream(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(fullReply()))
	defer srv.Close()
	evs, err := readSSE(post(t, srv, llm.OpenAI, simple(llm.OpenAI, true)).Body)
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.data != "[DONE]" || last.name != "" {
		t.Fatalf("last event %+v, want data: [DONE]", last)
	}
	evs = evs[:len(evs)-1]
	var content, reasoning string
	type call struct{ id, name, args string }
	var calls []call
	var finish []any
	var usage any
	for i, ev := range evs {
		v := jsonOf(t, ev.data)
		if v["object"] != "chat.completion.chunk" || v["id"] != "chatcmpl-0001" {
			t.Errorf("chunk %d: %s", i, ev.data)
		}
		if _, ok := v["usage"]; !ok {
			t.Errorf("chunk %d has no usage field though the request asked for usage", i)
		}
		choices := v["choices"].([]any)
		if len(choices) == 0 {
			if i != len(evs)-1 {
				t.Errorf("a chunk without choices came before the end: %d", i)
			}
			usage = v["usage"]
			continue
		}
		if v["usage"] != nil {
			t.Errorf("chunk %d has usage %v before the usage chunk", i, v["usage"])
		}
		delta := get(choices, 0, "delta").(map[string]any)
		if i == 0 {
			if delta["role"] != "assistant" || delta["content"] != "" {
				t.Errorf("first delta %v, want the role and empty content", delta)
			}
		} else if _, ok := delta["role"]; ok {
			t.Errorf("chunk %d repeats the role", i)
		}
		if f := get(choices, 0, "finish_reason"); f != nil {
			finish = append(finish, f)
		}
		if s, ok := delta["content"].(string); ok {
			content += s
		}
		if s, ok := delta["reasoning_content"].(string); ok {
			reasoning += s
		}
		for _, tc := range asList(delta["tool_calls"]) {
			idx := int(get(tc, "index").(float64))
			id, hasID := get(tc, "id").(string)
			name, _ := get(tc, "function", "name").(string)
			args, _ := get(tc, "function", "arguments").(string)
			if idx == len(calls) {
				if !hasID || name == "" {
					t.Errorf("the first fragment of call %d lacks id or name: %v", idx, tc)
				}
				calls = append(calls, call{id, name, args})
				continue
			}
			if hasID || name != "" {
				t.Errorf("a later fragment of call %d repeats id or name: %v", idx, tc)
			}
			calls[idx].args += args
		}
	}
	if content != "I will read it now, then answer." || reasoning != "Let me look at the file first." {
		t.Errorf("content %q reasoning %q", content, reasoning)
	}
	want := []call{{"toolu_x", "read", `{"path":"go.mod"}`}, {"call_0001", "list", "{}"}}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
	if !reflect.DeepEqual(finish, []any{"tool_calls"}) {
		t.Errorf("finish reasons %v", finish)
	}
	if get(usage, "prompt_tokens") != 100.0 || get(usage, "completion_tokens") != 20.0 || get(usage, "prompt_tokens_details", "cached_tokens") != 60.0 {
		t.Errorf("usage %v", usage)
	}
}

func asList(v any) []any { l, _ := v.([]any); return l }

func TestOpenAIStreamWithoutUsage(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "hello"}))
	defer srv.Close()
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	evs, err := readSSE(post(t, srv, llm.OpenAI, body).Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs[:len(evs)-1] {
		if strings.Contains(ev.data, `"usage"`) || strings.Contains(ev.data, `"choices":[]`) {
			t.Errorf("usage sent unasked: %s", ev.data)
		}
	}
	if n := len(evs); n != 1+3+1+1 {
		t.Errorf("%d events, want role, three pieces, finish and [DONE]", n)
	}
}

func TestOpenAIStreamError(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "partial", StreamError: "overloaded"}))
	defer srv.Close()
	evs, err := readSSE(post(t, srv, llm.OpenAI, simple(llm.OpenAI, true)).Body)
	if err != nil {
		t.Fatal(err)
	}
	last := jsonOf(t, evs[len(evs)-1].data)
	if get(last, "error", "message") != "overloaded" || get(last, "error", "type") != "server_error" {
		t.Errorf("last event %v", last)
	}
	for _, ev := range evs {
		if ev.data == "[DONE]" {
			t.Error("[DONE] after an error")
		}
	}
}

func TestOpenAIStopReasons(t *testing.T) {
	cases := []struct {
		name string
		stop llm.StopReason
		want string
	}{
		{"a plain reply stops", "", "stop"},
		{"max tokens is length", llm.StopMaxTokens, "length"},
		{"a stop sequence is stop", llm.StopSequence, "stop"},
		{"a refusal is content_filter", llm.StopRefusal, "content_filter"},
		{"tool use is tool_calls", llm.StopToolUse, "tool_calls"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "x", Stop: c.stop}))
			defer srv.Close()
			v := decode(t, post(t, srv, llm.OpenAI, simple(llm.OpenAI, false)))
			if got := get(v, "choices", 0, "finish_reason"); got != c.want {
				t.Errorf("finish_reason %v, want %s", got, c.want)
			}
		})
	}
}

func TestOpenAIErrorShapes(t *testing.T) {
	cases := []struct {
		name  string
		fault llmtest.Fault
		want  map[string]any
	}{
		{"an unsupported parameter names it", llmtest.Fault{Status: 400,
			Message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
			Param:   "max_tokens", Code: "unsupported_parameter"},
			map[string]any{"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
				"type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}},
		{"a rate limit has its code", llmtest.Fault{Status: 429},
			map[string]any{"message": "Rate limit reached for requests.", "type": "requests", "param": nil, "code": "rate_limit_exceeded"}},
		{"a server error has null param and code", llmtest.Fault{Status: 500},
			map[string]any{"message": "Internal Server Error", "type": "server_error", "param": nil, "code": nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Fault: &c.fault}))
			defer srv.Close()
			resp := post(t, srv, llm.OpenAI, simple(llm.OpenAI, false))
			v := decode(t, resp)
			if resp.StatusCode != c.fault.Status || !reflect.DeepEqual(v["error"], c.want) {
				t.Errorf("status %d error %v, want %v", resp.StatusCode, v["error"], c.want)
			}
		})
	}
}
