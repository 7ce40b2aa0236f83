package llmtest

import (
	"encoding/json"
	"strings"

	"github.com/bridle-dev/bridle/llm"
)

// The OpenAI Chat Completions wire shapes the server writes.

type openAICompletion struct {
	ID      string         `json:"id"`
	Object  string         `json:"object"`
	Created int64          `json:"created"`
	Model   string         `json:"model"`
	Choices []openAIChoice `json:"choices"`
	Usage   *openAIUsage   `json:"usage,omitempty"`
}

type openAIChoice struct {
	Index        int            `json:"index"`
	Message      *openAIMessage `json:"message,omitempty"`
	Delta        *openAIMessage `json:"delta,omitempty"`
	Logprobs     *struct{}      `json:"logprobs"`
	FinishReason *string        `json:"finish_reason"`
}

// openAIMessage is a whole reply's message or a stream's delta. Content is
// raw so that it can be null, a string, or left out.
type openAIMessage struct {
	Role             string            `json:"role,omitempty"`
	Content          json.RawMessage   `json:"content,omitempty"`
	ReasoningContent string            `json:"reasoning_content,omitempty"`
	ToolCalls        []openAIToolCall  `json:"tool_calls,omitempty"`
	Refusal          json.RawMessage   `json:"refusal,omitempty"`
	Annotations      []json.RawMessage `json:"annotations,omitempty"`
}

type openAIToolCall struct {
	Index    *int           `json:"index,omitempty"`
	ID       string         `json:"id,omitempty"`
	Type     string         `json:"type,omitempty"`
	Function openAIFunction `json:"function"`

	extra json.RawMessage // the provider's own fields, merged in
}

func (c openAIToolCall) MarshalJSON() ([]byte, error) {
	type plain openAIToolCall
	data, err := json.Marshal(plain(c))
	if err != nil {
		return nil, err
	}
	return withFields(data, c.extra)
}

type openAIFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type openAIUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// openAIStreamChunk is a chunk whose usage is written as null when the
// client asked for usage and the chunk has none.
type openAIStreamChunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []openAIChoice  `json:"choices"`
	Usage   json.RawMessage `json:"usage,omitempty"`
}

type openAIErr struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

var jsonNull = json.RawMessage("null")

func openAIUsageOf(u llm.Usage) *openAIUsage {
	out := &openAIUsage{PromptTokens: u.Input, CompletionTokens: u.Output, TotalTokens: u.Input + u.Output}
	out.PromptTokensDetails.CachedTokens = u.CacheRead
	out.CompletionTokensDetails.ReasoningTokens = u.Reasoning
	return out
}

func (a *answer) openAIID() string { return idFor("chatcmpl-", a.n) }

// openAIContent gathers the parts the OpenAI dialect can carry: reasoning,
// text and tool calls, each in order. Redacted thinking has no place.
func (a *answer) openAIContent() (reasoning, text string, calls []llm.Part) {
	var r, t strings.Builder
	for _, p := range a.parts {
		switch p.Type {
		case llm.PartThinking:
			r.WriteString(p.Text)
		case llm.PartText:
			t.WriteString(p.Text)
		case llm.PartToolCall:
			calls = append(calls, p)
		}
	}
	return r.String(), t.String(), calls
}

// annotations are the citations of the text parts, as written in Raw.
func (a *answer) annotations() []json.RawMessage {
	var out []json.RawMessage
	for _, p := range a.parts {
		if p.Type == llm.PartText {
			out = append(out, citationsOf(p)...)
		}
	}
	return out
}

func (a *answer) hasText() bool {
	for _, p := range a.parts {
		if p.Type == llm.PartText {
			return true
		}
	}
	return false
}

func (a *answer) openAIWhole() []byte {
	reasoning, text, calls := a.openAIContent()
	msg := &openAIMessage{Role: "assistant", Content: jsonNull, ReasoningContent: reasoning, Refusal: jsonNull}
	if a.hasText() {
		msg.Content = mustJSON(text)
	}
	for _, c := range calls {
		msg.ToolCalls = append(msg.ToolCalls, openAIToolCall{ID: c.ID, Type: "function", Function: openAIFunction{Name: c.Name, Arguments: string(c.Args)}, extra: c.Raw})
	}
	msg.Annotations = a.annotations()
	return mustJSON(openAICompletion{
		ID: a.openAIID(), Object: "chat.completion", Created: created, Model: a.model(),
		Choices: []openAIChoice{{Message: msg, FinishReason: ptr(a.stop)}},
		Usage:   openAIUsageOf(a.usage),
	})
}

// openAIEvents renders the reply as Chat Completions streams it: a chunk
// with the role, reasoning and content pieces, tool call fragments by index
// (id and name in the first fragment only), a chunk with the finish reason,
// a usage chunk with no choices when the request asked for usage, and
// [DONE]. A stream error replaces everything after the content.
func (a *answer) openAIEvents() []sseEvent {
	var evs []sseEvent
	var usage json.RawMessage
	if a.req.includeUsage {
		usage = jsonNull
	}
	chunk := func(delta *openAIMessage, finish *string) {
		evs = append(evs, sseEvent{data: mustJSON(openAIStreamChunk{
			ID: a.openAIID(), Object: "chat.completion.chunk", Created: created, Model: a.model(),
			Choices: []openAIChoice{{Delta: delta, FinishReason: finish}},
			Usage:   usage,
		})})
	}
	reasoning, text, calls := a.openAIContent()
	first := &openAIMessage{Role: "assistant", Content: jsonNull}
	if a.hasText() {
		first.Content = json.RawMessage(`""`)
	}
	chunk(first, nil)
	for _, s := range pieces(reasoning) {
		chunk(&openAIMessage{ReasoningContent: s}, nil)
	}
	for _, s := range pieces(text) {
		chunk(&openAIMessage{Content: mustJSON(s)}, nil)
	}
	if ann := a.annotations(); ann != nil {
		chunk(&openAIMessage{Annotations: ann}, nil)
	}
	for i, c := range calls {
		chunk(&openAIMessage{ToolCalls: []openAIToolCall{{Index: ptr(i), ID: c.ID, Type: "function", Function: openAIFunction{Name: c.Name}, extra: c.Raw}}}, nil)
		for _, s := range pieces(string(c.Args)) {
			chunk(&openAIMessage{ToolCalls: []openAIToolCall{{Index: ptr(i), Function: openAIFunction{Arguments: s}}}}, nil)
		}
	}
	if a.streamError != "" {
		evs = append(evs, sseEvent{data: mustJSON(map[string]openAIErr{"error": {Message: a.streamError, Type: "server_error"}})})
		return evs
	}
	chunk(&openAIMessage{}, ptr(a.stop))
	if a.req.includeUsage {
		evs = append(evs, sseEvent{data: mustJSON(openAIStreamChunk{
			ID: a.openAIID(), Object: "chat.completion.chunk", Created: created, Model: a.model(),
			Choices: []openAIChoice{},
			Usage:   mustJSON(openAIUsageOf(a.usage)),
		})})
	}
	evs = append(evs, sseEvent{data: []byte("[DONE]")})
	return evs
}

func openAIError(status int, e errorInfo) []byte {
	if e.typ == "" {
		switch {
		case status == 429:
			e.typ = "requests"
			if e.code == "" {
				e.code = "rate_limit_exceeded"
			}
		case status >= 500:
			e.typ = "server_error"
		default:
			e.typ = "invalid_request_error"
		}
	}
	if e.code == "" && status == 401 {
		e.code = "invalid_api_key"
	}
	if e.message == "" {
		switch status {
		case 401:
			e.message = "Incorrect API key provided."
		case 429:
			e.message = "Rate limit reached for requests."
		case 503:
			e.message = "The server is overloaded or not ready yet."
		default:
			e.message = statusText(status)
		}
	}
	out := openAIErr{Message: e.message, Type: e.typ}
	if e.param != "" {
		out.Param = ptr(e.param)
	}
	if e.code != "" {
		out.Code = ptr(e.code)
	}
	return mustJSON(map[string]openAIErr{"error": out})
}
