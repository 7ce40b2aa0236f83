package llmtest_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func fullReply() llmtest.Reply {
	return llmtest.Reply{
		Thinking:         "Let me look at the file first.",
		Signature:        "sig-abc==",
		RedactedThinking: "opaque-data",
		Text:             "I will read it now, then answer.",
		Calls:            []llmtest.Call{{ID: "toolu_x", Name: "read", Args: `{"path":"go.mod"}`}, {Name: "list"}},
		Usage:            llm.Usage{Input: 100, Output: 20, CacheRead: 60, CacheWrite: 30},
	}
}

func TestAnthropicWholeReply(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(fullReply()))
	defer srv.Close()
	resp := post(t, srv, llm.Anthropic, simple(llm.Anthropic, false))
	if resp.StatusCode != 200 || resp.Header.Get("Request-Id") == "" {
		t.Fatalf("status %d, request-id %q", resp.StatusCode, resp.Header.Get("Request-Id"))
	}
	v := decode(t, resp)
	want := map[string]any{
		"id": "msg_0001", "type": "message", "role": "assistant", "model": "claude-test",
		"stop_reason": "tool_use", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10.0, "cache_read_input_tokens": 60.0, "cache_creation_input_tokens": 30.0, "output_tokens": 20.0},
		"content": []any{
			map[string]any{"type": "thinking", "thinking": "Let me look at the file first.", "signature": "sig-abc=="},
			map[string]any{"type": "redacted_thinking", "data": "opaque-data"},
			map[string]any{"type": "text", "text": "I will read it now, then answer."},
			map[string]any{"type": "tool_use", "id": "toolu_x", "name": "read", "input": map[string]any{"path": "go.mod"}},
			map[string]any{"type": "tool_use", "id": "toolu_0001", "name": "list", "input": map[string]any{}},
		},
	}
	if !reflect.DeepEqual(v, want) {
		got, _ := json.MarshalIndent(v, "", "  ")
		t.Errorf("got\n%s", got)
	}
}

func TestAnthropicStream(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(fullReply()))
	defer srv.Close()
	resp := post(t, srv, llm.Anthropic, simple(llm.Anthropic, true))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	evs, err := readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	blocks := map[int]map[string]any{}
	text, thinking, sig := map[int]string{}, map[int]string{}, map[int]string{}
	partial := map[int][]string{}
	var stop any
	var usage map[string]any
	for _, ev := range evs {
		names = append(names, ev.name)
		v := jsonOf(t, ev.data)
		if v["type"] != ev.name {
			t.Errorf("event %s carries type %v", ev.name, v["type"])
		}
		i, _ := v["index"].(float64)
		switch ev.name {
		case "message_start":
			usage = get(v, "message", "usage").(map[string]any)
			if c := get(v, "message", "content"); !reflect.DeepEqual(c, []any{}) {
				t.Errorf("message_start content %v, want []", c)
			}
		case "content_block_start":
			blocks[int(i)] = v["content_block"].(map[string]any)
		case "content_block_delta":
			d := v["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				text[int(i)] += d["text"].(string)
			case "thinking_delta":
				thinking[int(i)] += d["thinking"].(string)
			case "signature_delta":
				sig[int(i)] += d["signature"].(string)
			case "input_json_delta":
				partial[int(i)] = append(partial[int(i)], d["partial_json"].(string))
			default:
				t.Errorf("unexpected delta %v", d["type"])
			}
		case "message_delta":
			stop = get(v, "delta", "stop_reason")
			if out := get(v, "usage", "output_tokens"); out != 20.0 {
				t.Errorf("message_delta output_tokens %v, want 20", out)
			}
		}
	}
	wantNames := "message_start ping " +
		"content_block_start content_block_delta content_block_delta content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_delta content_block_stop " +
		"message_delta message_stop"
	if got := strings.Join(names, " "); got != wantNames {
		t.Errorf("events:\n%s\nwant:\n%s", got, wantNames)
	}
	if usage["input_tokens"] != 10.0 || usage["cache_read_input_tokens"] != 60.0 || usage["cache_creation_input_tokens"] != 30.0 {
		t.Errorf("message_start usage %v", usage)
	}
	if thinking[0] != "Let me look at the file first." || sig[0] != "sig-abc==" {
		t.Errorf("thinking %q signature %q", thinking[0], sig[0])
	}
	if blocks[1]["type"] != "redacted_thinking" || blocks[1]["data"] != "opaque-data" {
		t.Errorf("block 1 %v", blocks[1])
	}
	if text[2] != "I will read it now, then answer." {
		t.Errorf("text %q", text[2])
	}
	if blocks[3]["id"] != "toolu_x" || blocks[3]["name"] != "read" || !reflect.DeepEqual(blocks[3]["input"], map[string]any{}) {
		t.Errorf("block 3 %v", blocks[3])
	}
	if p := partial[3]; len(p) < 2 || p[0] != "" || strings.Join(p, "") != `{"path":"go.mod"}` {
		t.Errorf("input_json_delta fragments %q", p)
	}
	if blocks[4]["id"] != "toolu_0001" || strings.Join(partial[4], "") != "{}" {
		t.Errorf("block 4 %v, fragments %q", blocks[4], partial[4])
	}
	if stop != "tool_use" {
		t.Errorf("stop_reason %v", stop)
	}
}

func TestAnthropicStreamError(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "partial", StreamError: "Overloaded"}))
	defer srv.Close()
	evs, err := readSSE(post(t, srv, llm.Anthropic, simple(llm.Anthropic, true)).Body)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	v := jsonOf(t, last.data)
	if last.name != "error" || get(v, "error", "type") != "overloaded_error" || get(v, "error", "message") != "Overloaded" {
		t.Errorf("last event %s %s", last.name, last.data)
	}
	if evs[2].name != "content_block_start" {
		t.Errorf("the content should come before the error: %v", evs)
	}
}

func TestAnthropicStopReasons(t *testing.T) {
	cases := []struct {
		name string
		stop llm.StopReason
		raw  string
		want string
	}{
		{"a plain reply ends the turn", "", "", "end_turn"},
		{"max tokens is max_tokens", llm.StopMaxTokens, "", "max_tokens"},
		{"a stop sequence is stop_sequence", llm.StopSequence, "", "stop_sequence"},
		{"a refusal is refusal", llm.StopRefusal, "", "refusal"},
		{"a pause is pause_turn", llm.StopPause, "", "pause_turn"},
		{"a raw stop is sent as it is", llm.StopOther, "model_context_window_exceeded", "model_context_window_exceeded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "x", Stop: c.stop, RawStop: c.raw}))
			defer srv.Close()
			body := `{"model":"m","max_tokens":9,"stop_sequences":["END"],"messages":[{"role":"user","content":"hi"}]}`
			v := decode(t, post(t, srv, llm.Anthropic, body))
			if v["stop_reason"] != c.want {
				t.Errorf("stop_reason %v, want %s", v["stop_reason"], c.want)
			}
			if c.stop == llm.StopSequence && v["stop_sequence"] != "END" {
				t.Errorf("stop_sequence %v, want END", v["stop_sequence"])
			}
		})
	}
}

func TestAnthropicErrorShapes(t *testing.T) {
	cases := []struct {
		name     string
		fault    llmtest.Fault
		wantType string
	}{
		{"429 is a rate limit error", llmtest.Fault{Status: 429}, "rate_limit_error"},
		{"529 is an overloaded error", llmtest.Fault{Status: 529}, "overloaded_error"},
		{"401 is an authentication error", llmtest.Fault{Status: 401}, "authentication_error"},
		{"a given type wins", llmtest.Fault{Status: 400, Type: "custom_error"}, "custom_error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Fault: &c.fault}))
			defer srv.Close()
			resp := post(t, srv, llm.Anthropic, simple(llm.Anthropic, false))
			v := decode(t, resp)
			if resp.StatusCode != c.fault.Status || v["type"] != "error" || get(v, "error", "type") != c.wantType || get(v, "error", "message") == "" || v["request_id"] != "req_0001" {
				t.Errorf("status %d body %v", resp.StatusCode, v)
			}
		})
	}
}
