package llmtest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// one sends body and returns the request the server recorded.
func one(t *testing.T, d llm.Dialect, body string) *llmtest.Request {
	t.Helper()
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "ok"}))
	defer srv.Close()
	resp := post(t, srv, d, body)
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v: %s", resp.StatusCode, err, b)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests recorded, want 1", len(reqs))
	}
	return reqs[0]
}

func TestAnthropicRequestDecoding(t *testing.T) {
	body := `{
		"model": "claude-x", "max_tokens": 1000, "stream": true,
		"system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Use tools.", "cache_control": {"type": "ephemeral"}}],
		"tools": [{"name": "read", "input_schema": {"type": "object"}}, {"name": "write", "input_schema": {"type": "object"}}],
		"messages": [
			{"role": "user", "content": "Read go.mod"},
			{"role": "assistant", "content": [
				{"type": "thinking", "thinking": "I should read it.", "signature": "c2ln"},
				{"type": "redacted_thinking", "data": "b3BhcXVl"},
				{"type": "text", "text": "Reading."},
				{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "go.mod"}},
				{"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "nope"}}
			]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "toolu_1", "content": "module x"},
				{"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "no such file"}], "is_error": true},
				{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}
			]}
		]}`
	req := one(t, llm.Anthropic, body)
	want := []llm.Message{
		llm.UserText("Read go.mod"),
		{Role: llm.Assistant, Parts: []llm.Part{
			llm.Thinking("I should read it.", "c2ln"),
			llm.RedactedThinking("b3BhcXVl"),
			llm.Text("Reading."),
			llm.ToolCall("toolu_1", "read", json.RawMessage(`{"path": "go.mod"}`)),
			llm.ToolCall("toolu_2", "read", json.RawMessage(`{"path": "nope"}`)),
		}},
		{Role: llm.User, Parts: []llm.Part{
			llm.ToolResult("toolu_1", "module x", false),
			llm.ToolResult("toolu_2", "no such file", true),
			{Type: "image", Raw: json.RawMessage(`{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}`)},
		}},
	}
	if !reflect.DeepEqual(req.Messages, want) {
		t.Errorf("messages\n%+v\nwant\n%+v", req.Messages, want)
	}
	if req.Dialect != llm.Anthropic || req.Path != "/v1/messages" || !req.Stream || req.Model != "claude-x" {
		t.Errorf("request %+v", req)
	}
	if req.System != "Be brief.\n\nUse tools." {
		t.Errorf("system %q", req.System)
	}
	if !reflect.DeepEqual(req.Tools, []string{"read", "write"}) {
		t.Errorf("tools %v", req.Tools)
	}
	if !json.Valid(req.Body) || !strings.Contains(string(req.Body), "claude-x") {
		t.Errorf("raw body %s", req.Body)
	}
	results := req.LastToolResults()
	if len(results) != 2 || results[1].ID != "toolu_2" || !results[1].IsError {
		t.Errorf("last tool results %+v", results)
	}
}

func TestOpenAIRequestDecoding(t *testing.T) {
	body := `{
		"model": "gpt-x", "stream": false,
		"tools": [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}],
		"messages": [
			{"role": "system", "content": "Be brief."},
			{"role": "developer", "content": [{"type": "text", "text": "Use tools."}]},
			{"role": "user", "content": [{"type": "text", "text": "Read go.mod"}, {"type": "image_url", "image_url": {"url": "data:,"}}]},
			{"role": "assistant", "content": null, "reasoning_content": "I should read it.", "tool_calls": [
				{"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"go.mod\"}"}},
				{"id": "call_2", "type": "function", "function": {"name": "read", "arguments": "{\"path\":"}}
			]},
			{"role": "tool", "tool_call_id": "call_1", "content": "module x"},
			{"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "bad args"}]},
			{"role": "user", "content": "Thanks"}
		]}`
	req := one(t, llm.OpenAI, body)
	want := []llm.Message{
		{Role: llm.User, Parts: []llm.Part{llm.Text("Read go.mod"), {Type: "image_url"}}},
		{Role: llm.Assistant, Parts: []llm.Part{
			llm.Thinking("I should read it.", ""),
			llm.ToolCall("call_1", "read", json.RawMessage(`{"path":"go.mod"}`)),
			llm.ToolCall("call_2", "read", json.RawMessage(`"{\"path\":"`)),
		}},
		{Role: llm.User, Parts: []llm.Part{
			llm.ToolResult("call_1", "module x", false),
			llm.ToolResult("call_2", "bad args", false),
		}},
		llm.UserText("Thanks"),
	}
	if !reflect.DeepEqual(req.Messages, want) {
		t.Errorf("messages\n%+v\nwant\n%+v", req.Messages, want)
	}
	if req.System != "Be brief.\n\nUse tools." || req.Model != "gpt-x" || req.Stream || req.Path != "/v1/chat/completions" {
		t.Errorf("request %+v", req)
	}
	if !reflect.DeepEqual(req.Tools, []string{"read"}) {
		t.Errorf("tools %v", req.Tools)
	}
	if m := req.LastMessage(); m.Text() != "Thanks" || req.LastToolResults() != nil {
		t.Errorf("last message %+v, results %v", m, req.LastToolResults())
	}
}

func TestLastMessageOfNoMessages(t *testing.T) {
	var r llmtest.Request
	if m := r.LastMessage(); m.Role != "" || m.Parts != nil || r.LastToolResults() != nil {
		t.Errorf("got %+v", m)
	}
}

func TestMalformedRequests(t *testing.T) {
	user := `{"role":"user","content":"hi"}`
	cases := []struct {
		name    string
		dialect llm.Dialect
		body    string
		want    string
	}{
		{"a body that is not JSON is refused", llm.Anthropic, `{"model":`, "not valid JSON"},
		{"an empty body is refused", llm.OpenAI, ``, "body is empty"},
		{"an Anthropic request needs max_tokens", llm.Anthropic, `{"model":"m","messages":[` + user + `]}`, "max_tokens: Field required"},
		{"an Anthropic request needs a model", llm.Anthropic, `{"max_tokens":5,"messages":[` + user + `]}`, "model: Field required"},
		{"an Anthropic request needs messages", llm.Anthropic, `{"model":"m","max_tokens":5,"messages":[]}`, "at least one message"},
		{"an Anthropic system role is refused", llm.Anthropic, `{"model":"m","max_tokens":5,"messages":[{"role":"system","content":"x"}]}`, "Input should be 'user' or 'assistant'"},
		{"an Anthropic tool call needs its result next", llm.Anthropic,
			`{"model":"m","max_tokens":5,"messages":[` + user + `,{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},` + user + `]}`,
			"`tool_use` ids were found without `tool_result` blocks immediately after: t1"},
		{"an Anthropic tool result needs its call before", llm.Anthropic,
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"x"}]}]}`,
			"unexpected `tool_use_id` found in `tool_result` blocks: t9"},
		{"an OpenAI request needs a model", llm.OpenAI, `{"messages":[` + user + `]}`, "you must provide a model parameter"},
		{"an OpenAI request needs messages", llm.OpenAI, `{"model":"m"}`, "Missing required parameter: 'messages'."},
		{"an OpenAI role must be known", llm.OpenAI, `{"model":"m","messages":[{"role":"bot","content":"x"}]}`, "Invalid value: 'bot'"},
		{"an OpenAI tool call needs its tool messages", llm.OpenAI,
			`{"model":"m","messages":[` + user + `,{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"x"},` + user + `]}`,
			"did not have response messages: c2"},
		{"an OpenAI tool message needs a call before", llm.OpenAI,
			`{"model":"m","messages":[` + user + `,{"role":"tool","tool_call_id":"c1","content":"x"}]}`,
			"must be a response to a preceeding message with 'tool_calls'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			scripted := false
			srv := llmtest.NewServer(func(*llmtest.Request) llmtest.Reply { scripted = true; return llmtest.Reply{} })
			defer srv.Close()
			resp := post(t, srv, c.dialect, c.body)
			v := decode(t, resp)
			msg, _ := get(v, "error", "message").(string)
			if resp.StatusCode != 400 || !strings.Contains(msg, c.want) {
				t.Errorf("status %d message %q, want 400 with %q", resp.StatusCode, msg, c.want)
			}
			if scripted {
				t.Error("the script saw a malformed request")
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests recorded, want 1", n)
			}
		})
	}
}

func TestWellFormedConversationsPass(t *testing.T) {
	cases := []struct {
		name    string
		dialect llm.Dialect
		msgs    string
	}{
		{"an Anthropic turn may end with tool calls", llm.Anthropic,
			`[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]}]`},
		{"an OpenAI turn may end with tool calls", llm.OpenAI,
			`[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := fmt.Sprintf(`{"model":"m","max_tokens":5,"messages":%s}`, c.msgs)
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "ok"}))
			defer srv.Close()
			if resp := post(t, srv, c.dialect, body); resp.StatusCode != 200 {
				t.Errorf("status %d: %v", resp.StatusCode, decode(t, resp))
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(true, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"text","text":"y"}]}]}]}`)
	f.Add(false, `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{"}}]},{"role":"tool","tool_call_id":"c","content":null}]}`)
	srv := llmtest.NewServer(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	f.Cleanup(srv.Close)
	client := srvClient(srv)
	f.Fuzz(func(t *testing.T, anthropic bool, body string) {
		d := llm.OpenAI
		if anthropic {
			d = llm.Anthropic
		}
		resp, err := client.Post("http://llmtest"+path(d), "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 && resp.StatusCode != 400 {
			t.Errorf("status %d", resp.StatusCode)
		}
		reqs := srv.Requests()
		if _, err := json.Marshal(reqs[len(reqs)-1].Messages); err != nil {
			t.Errorf("recorded messages do not marshal: %v", err)
		}
	})
}
