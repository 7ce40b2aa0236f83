package llmtest

import (
	"encoding/json"

	"github.com/bridle-dev/bridle/llm"
)

// The Anthropic Messages wire shapes the server writes.

type anthropicMessage struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"`
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []anthropicBlock `json:"content"`
	StopReason   *string          `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        anthropicUsage   `json:"usage"`
}

type anthropicBlock struct {
	Type      string            `json:"type"`
	Text      *string           `json:"text,omitempty"`
	ID        string            `json:"id,omitempty"`
	Name      string            `json:"name,omitempty"`
	Input     json.RawMessage   `json:"input,omitempty"`
	Thinking  *string           `json:"thinking,omitempty"`
	Signature *string           `json:"signature,omitempty"`
	Data      *string           `json:"data,omitempty"`
	Citations []json.RawMessage `json:"citations,omitempty"`

	extra json.RawMessage // a tool call's provider fields, merged in
	raw   json.RawMessage // a provider part's block, written as it is
}

func (b anthropicBlock) MarshalJSON() ([]byte, error) {
	if b.raw != nil {
		return b.raw, nil
	}
	type plain anthropicBlock
	data, err := json.Marshal(plain(b))
	if err != nil {
		return nil, err
	}
	return withFields(data, b.extra)
}

// anthropicBlockOf renders a part as a content block; a text block takes
// its citations only in a whole reply (a stream sends them as deltas).
func anthropicBlockOf(p llm.Part, whole bool) anthropicBlock {
	var b anthropicBlock
	switch p.Type {
	case llm.PartText:
		b = anthropicBlock{Type: "text", Text: ptr(p.Text)}
		if whole {
			b.Citations = citationsOf(p)
		}
	case llm.PartThinking:
		b = anthropicBlock{Type: "thinking", Thinking: ptr(p.Text), Signature: ptr(p.Signature)}
	case llm.PartRedactedThinking:
		b = anthropicBlock{Type: "redacted_thinking", Data: ptr(p.Data)}
	case llm.PartToolCall:
		b = anthropicBlock{Type: "tool_use", ID: p.ID, Name: p.Name, Input: argsInput(p.Args), extra: p.Raw}
	case llm.PartProvider:
		b = anthropicBlock{raw: p.Raw}
	}
	return b
}

type anthropicUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

type anthropicDelta struct {
	Type        string          `json:"type"`
	Text        *string         `json:"text,omitempty"`
	Thinking    *string         `json:"thinking,omitempty"`
	Signature   *string         `json:"signature,omitempty"`
	PartialJSON *string         `json:"partial_json,omitempty"`
	Citation    json.RawMessage `json:"citation,omitempty"`
}

type anthropicEvent struct {
	Type         string            `json:"type"`
	Message      *anthropicMessage `json:"message,omitempty"`
	Index        *int              `json:"index,omitempty"`
	ContentBlock *anthropicBlock   `json:"content_block,omitempty"`
	Delta        any               `json:"delta,omitempty"`
	Usage        *anthropicOutput  `json:"usage,omitempty"`
	Error        *anthropicErr     `json:"error,omitempty"`
}

type anthropicStop struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

type anthropicOutput struct {
	OutputTokens int `json:"output_tokens"`
}

type anthropicErr struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type anthropicErrorBody struct {
	Type      string       `json:"type"`
	Error     anthropicErr `json:"error"`
	RequestID string       `json:"request_id,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// anthropicUsageOf splits neutral usage, whose Input counts cached tokens
// too, into Anthropic's three input figures.
func anthropicUsageOf(u llm.Usage) anthropicUsage {
	return anthropicUsage{
		InputTokens:              max(u.Input-u.CacheRead-u.CacheWrite, 0),
		CacheCreationInputTokens: u.CacheWrite,
		CacheReadInputTokens:     u.CacheRead,
		OutputTokens:             u.Output,
	}
}

func (a *answer) anthropicID() string { return idFor("msg_", a.n) }

func (a *answer) model() string {
	if a.req.Model != "" {
		return a.req.Model
	}
	return "test-model"
}

// stopSequence is the sequence that ended the reply, when one did: the
// request's first.
func (a *answer) stopSequence() *string {
	if a.stop == "stop_sequence" && len(a.req.stopSeqs) > 0 {
		return ptr(a.req.stopSeqs[0])
	}
	return nil
}

// argsInput returns tool arguments as an Anthropic input object, quoting
// text that is not JSON.
func argsInput(args json.RawMessage) json.RawMessage {
	if json.Valid(args) {
		return args
	}
	return mustJSON(string(args))
}

func (a *answer) anthropicWhole() []byte {
	m := anthropicMessage{
		ID: a.anthropicID(), Type: "message", Role: "assistant", Model: a.model(),
		Content:      []anthropicBlock{},
		StopReason:   ptr(a.stop),
		StopSequence: a.stopSequence(),
		Usage:        anthropicUsageOf(a.usage),
	}
	for _, p := range a.parts {
		m.Content = append(m.Content, anthropicBlockOf(p, true))
	}
	return mustJSON(m)
}

// anthropicEvents renders the reply as the Messages API streams it:
// message_start, ping, each content block as start, deltas and stop, then
// message_delta and message_stop (or an error event).
func (a *answer) anthropicEvents() []sseEvent {
	var evs []sseEvent
	add := func(e anthropicEvent) {
		evs = append(evs, sseEvent{name: e.Type, data: mustJSON(e)})
	}
	start := anthropicUsageOf(a.usage)
	start.OutputTokens = min(a.usage.Output, 1)
	add(anthropicEvent{Type: "message_start", Message: &anthropicMessage{
		ID: a.anthropicID(), Type: "message", Role: "assistant", Model: a.model(),
		Content: []anthropicBlock{}, Usage: start,
	}})
	add(anthropicEvent{Type: "ping"})
	for i, p := range a.parts {
		index := ptr(i)
		delta := func(d anthropicDelta) {
			add(anthropicEvent{Type: "content_block_delta", Index: index, Delta: d})
		}
		switch p.Type {
		case llm.PartText:
			add(anthropicEvent{Type: "content_block_start", Index: index, ContentBlock: &anthropicBlock{Type: "text", Text: ptr("")}})
			for _, c := range citationsOf(p) {
				delta(anthropicDelta{Type: "citations_delta", Citation: c})
			}
			for _, s := range pieces(p.Text) {
				delta(anthropicDelta{Type: "text_delta", Text: ptr(s)})
			}
		case llm.PartThinking:
			add(anthropicEvent{Type: "content_block_start", Index: index, ContentBlock: &anthropicBlock{Type: "thinking", Thinking: ptr("")}})
			for _, s := range pieces(p.Text) {
				delta(anthropicDelta{Type: "thinking_delta", Thinking: ptr(s)})
			}
			if p.Signature != "" {
				delta(anthropicDelta{Type: "signature_delta", Signature: ptr(p.Signature)})
			}
		case llm.PartRedactedThinking:
			add(anthropicEvent{Type: "content_block_start", Index: index, ContentBlock: &anthropicBlock{Type: "redacted_thinking", Data: ptr(p.Data)}})
		case llm.PartToolCall:
			add(anthropicEvent{Type: "content_block_start", Index: index, ContentBlock: &anthropicBlock{Type: "tool_use", ID: p.ID, Name: p.Name, Input: json.RawMessage("{}"), extra: p.Raw}})
			for _, s := range append([]string{""}, pieces(string(p.Args))...) {
				delta(anthropicDelta{Type: "input_json_delta", PartialJSON: ptr(s)})
			}
		case llm.PartProvider:
			b := anthropicBlockOf(p, true)
			add(anthropicEvent{Type: "content_block_start", Index: index, ContentBlock: &b})
		}
		add(anthropicEvent{Type: "content_block_stop", Index: index})
	}
	if a.streamError != "" {
		add(anthropicEvent{Type: "error", Error: &anthropicErr{Type: "overloaded_error", Message: a.streamError}})
		return evs
	}
	add(anthropicEvent{
		Type:  "message_delta",
		Delta: anthropicStop{StopReason: a.stop, StopSequence: a.stopSequence()},
		Usage: &anthropicOutput{OutputTokens: a.usage.Output},
	})
	add(anthropicEvent{Type: "message_stop"})
	return evs
}

// anthropicErrorTypes are the error types the Messages API gives for each
// status.
var anthropicErrorTypes = map[int]string{
	400: "invalid_request_error",
	401: "authentication_error",
	402: "billing_error",
	403: "permission_error",
	404: "not_found_error",
	413: "request_too_large",
	429: "rate_limit_error",
	500: "api_error",
	504: "timeout_error",
	529: "overloaded_error",
}

func anthropicError(status int, e errorInfo, reqID string) []byte {
	if e.typ == "" {
		e.typ = anthropicErrorTypes[status]
		switch {
		case e.typ != "":
		case status >= 500:
			e.typ = "api_error"
		default:
			e.typ = "invalid_request_error"
		}
	}
	if e.message == "" {
		switch status {
		case 401:
			e.message = "invalid x-api-key"
		case 429:
			e.message = "Number of requests has exceeded your rate limit"
		case 529:
			e.message = "Overloaded"
		default:
			e.message = statusText(status)
		}
	}
	return mustJSON(anthropicErrorBody{Type: "error", Error: anthropicErr{Type: e.typ, Message: e.message}, RequestID: reqID})
}
