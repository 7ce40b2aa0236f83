package llmtest

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/bridle-dev/bridle/internal/jsonobj"
	"github.com/bridle-dev/bridle/llm"
)

// Request is a request the server received, decoded to the neutral form so
// a test can assert on what a client sent. A recorded Request is never
// changed by the server.
type Request struct {
	// Dialect is the wire protocol, from the path.
	Dialect llm.Dialect
	// Path is the URL path, "/v1/messages" or "/v1/chat/completions".
	Path string
	// Header holds the request headers with the values of x-api-key,
	// Authorization and other credential headers replaced by "[redacted]"
	// (Authorization keeps its scheme: "Bearer [redacted]"). Use
	// [Request.HasKey] to check which key was sent.
	Header http.Header
	// Body is the raw JSON body.
	Body []byte
	// Stream reports whether the client asked for a streamed reply.
	Stream bool
	// Model is the model the request names.
	Model string
	// System is the system prompt: Anthropic's system (text blocks joined
	// by a blank line), or OpenAI's system and developer messages joined
	// the same way.
	System string
	// Messages is the conversation in neutral form. Anthropic blocks map
	// one to one (thinking keeps its signature, tool_result its is_error);
	// OpenAI assistant tool_calls become tool call parts, reasoning_content
	// a thinking part, and consecutive tool messages one user message of
	// tool results. Content of other kinds (images, server-tool blocks,
	// ...) becomes a part whose Type is the wire type and whose Raw is the
	// block; a tool call's fields beyond id, name and arguments are in its
	// Raw, and an Anthropic text block's citations in its Citations (Raw
	// only).
	Messages []llm.Message
	// Tools names the tools offered, in order.
	Tools []string

	keys         [][sha256.Size]byte
	includeUsage bool     // OpenAI stream_options.include_usage
	stopSeqs     []string // Anthropic stop_sequences
}

// LastMessage returns the last message of the conversation, or the zero
// Message when there is none.
func (r *Request) LastMessage() llm.Message {
	if len(r.Messages) == 0 {
		return llm.Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// LastToolResults returns the tool results of the last message, in order:
// the answers to the model's previous tool calls. It is empty when the last
// message holds none.
func (r *Request) LastToolResults() []llm.Part {
	var out []llm.Part
	for _, p := range r.LastMessage().Parts {
		if p.Type == llm.PartToolResult {
			out = append(out, p)
		}
	}
	return out
}

// HasKey reports whether the request carried key in x-api-key or as an
// Authorization bearer token. The key itself is not kept.
func (r *Request) HasKey(key string) bool {
	h := sha256.Sum256([]byte(key))
	for _, k := range r.keys {
		if subtle.ConstantTimeCompare(h[:], k[:]) == 1 {
			return true
		}
	}
	return false
}

const redacted = "[redacted]"

// credentialHeaders are redacted wholesale; Authorization keeps its scheme.
var credentialHeaders = []string{"X-Api-Key", "Api-Key", "X-Goog-Api-Key", "Proxy-Authorization", "Cookie"}

// redact returns a copy of h without credentials, and the hashes of the
// keys it carried.
func redact(h http.Header) (http.Header, [][sha256.Size]byte) {
	h = h.Clone()
	var keys [][sha256.Size]byte
	for _, v := range h.Values("X-Api-Key") {
		keys = append(keys, sha256.Sum256([]byte(v)))
	}
	for _, name := range credentialHeaders {
		if vs := h.Values(name); len(vs) > 0 {
			h[name] = []string{redacted}
		}
	}
	if vs := h.Values("Authorization"); len(vs) > 0 {
		out := make([]string, len(vs))
		for i, v := range vs {
			scheme, token, ok := strings.Cut(v, " ")
			if ok && strings.EqualFold(scheme, "bearer") {
				keys = append(keys, sha256.Sum256([]byte(strings.TrimSpace(token))))
				out[i] = scheme + " " + redacted
			} else {
				out[i] = redacted
			}
		}
		h["Authorization"] = out
	}
	return h, keys
}

// badRequest is a request the server refuses, with what to say.
type badRequest struct {
	message, param, code string
}

func (e *badRequest) Error() string { return e.message }

func refuse(param, format string, args ...any) *badRequest {
	return &badRequest{message: fmt.Sprintf(format, args...), param: param}
}

// decode fills r's decoded fields from r.Body.
func (r *Request) decode() *badRequest {
	if len(bytes.TrimSpace(r.Body)) == 0 {
		return refuse("", "llmtest: the request body is empty; send a JSON object")
	}
	if !json.Valid(r.Body) {
		return refuse("", "llmtest: the request body is not valid JSON")
	}
	if r.Dialect == llm.Anthropic {
		return r.decodeAnthropic()
	}
	return r.decodeOpenAI()
}

// textOf reads content that is a JSON string or a list of blocks, joining
// the text blocks with sep.
func textOf(raw json.RawMessage, sep string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", err
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, sep), nil
}

type anthropicRequest struct {
	Model     string          `json:"model"`
	MaxTokens *int            `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  *[]struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Stream        bool     `json:"stream"`
	StopSequences []string `json:"stop_sequences"`
}

type anthropicInBlock struct {
	Type      string            `json:"type"`
	Text      string            `json:"text"`
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Input     json.RawMessage   `json:"input"`
	ToolUseID string            `json:"tool_use_id"`
	Content   json.RawMessage   `json:"content"`
	IsError   bool              `json:"is_error"`
	Thinking  string            `json:"thinking"`
	Signature string            `json:"signature"`
	Data      string            `json:"data"`
	Citations []json.RawMessage `json:"citations"`
}

func (r *Request) decodeAnthropic() *badRequest {
	var in anthropicRequest
	if err := json.Unmarshal(r.Body, &in); err != nil {
		return refuse("", "llmtest: the request body does not fit the Messages API: %v", err)
	}
	r.Model, r.Stream, r.stopSeqs = in.Model, in.Stream, in.StopSequences
	switch {
	case in.Model == "":
		return refuse("model", "model: Field required")
	case in.MaxTokens == nil:
		return refuse("max_tokens", "max_tokens: Field required")
	case *in.MaxTokens < 1:
		return refuse("max_tokens", "max_tokens: Input should be greater than or equal to 1")
	case in.Messages == nil:
		return refuse("messages", "messages: Field required")
	case len(*in.Messages) == 0:
		return refuse("messages", "messages: at least one message is required")
	}
	system, err := textOf(in.System, "\n\n")
	if err != nil {
		return refuse("system", "system: Input should be a valid string or a list of text blocks")
	}
	r.System = system
	for _, t := range in.Tools {
		r.Tools = append(r.Tools, t.Name)
	}
	for i, m := range *in.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return refuse("", "messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		msg := llm.Message{Role: llm.Role(m.Role)}
		content := bytes.TrimSpace(m.Content)
		if len(content) > 0 && content[0] == '"' {
			var s string
			if err := json.Unmarshal(content, &s); err != nil {
				return refuse("", "messages.%d.content: %v", i, err)
			}
			msg.Parts = []llm.Part{llm.Text(s)}
		} else {
			var raws []json.RawMessage
			if err := json.Unmarshal(content, &raws); err != nil || raws == nil {
				return refuse("", "messages.%d.content: Input should be a valid string or a list of content blocks", i)
			}
			for j, raw := range raws {
				var b anthropicInBlock
				if err := json.Unmarshal(raw, &b); err != nil {
					return refuse("", "messages.%d.content.%d: Input should be a content block", i, j)
				}
				p, err := b.part(raw)
				if err != nil {
					return refuse("", "messages.%d.content.%d: %v", i, j, err)
				}
				msg.Parts = append(msg.Parts, p)
			}
		}
		r.Messages = append(r.Messages, msg)
	}
	return checkAnthropicPairs(r.Messages)
}

func (b anthropicInBlock) part(raw json.RawMessage) (llm.Part, error) {
	switch b.Type {
	case "text":
		p := llm.Text(b.Text)
		for _, c := range b.Citations {
			p.Citations = append(p.Citations, llm.Citation{Raw: c})
		}
		return p, nil
	case "tool_use":
		if b.ID == "" || b.Name == "" {
			return llm.Part{}, fmt.Errorf("tool_use needs an id and a name")
		}
		p := llm.ToolCall(b.ID, b.Name, b.Input)
		p.Raw = jsonobj.Rest(raw, "type", "id", "name", "input", "cache_control")
		return p, nil
	case "tool_result":
		if b.ToolUseID == "" {
			return llm.Part{}, fmt.Errorf("tool_result.tool_use_id: Field required")
		}
		text, err := textOf(b.Content, "\n")
		if err != nil {
			return llm.Part{}, fmt.Errorf("tool_result.content: %v", err)
		}
		return llm.ToolResult(b.ToolUseID, text, b.IsError), nil
	case "thinking":
		return llm.Thinking(b.Thinking, b.Signature), nil
	case "redacted_thinking":
		return llm.RedactedThinking(b.Data), nil
	case "":
		return llm.Part{}, fmt.Errorf("type: Field required")
	}
	return llm.Part{Type: llm.PartType(b.Type), Text: b.Text, Raw: raw}, nil
}

// checkAnthropicPairs refuses tool calls left unanswered by the next message
// and tool results that answer no call of the previous one, as the Messages
// API does.
func checkAnthropicPairs(msgs []llm.Message) *badRequest {
	for i, m := range msgs {
		var prev map[string]bool
		if i > 0 && msgs[i-1].Role == llm.Assistant {
			prev = callIDs(msgs[i-1])
		}
		for j, p := range m.Parts {
			if p.Type == llm.PartToolResult && !prev[p.ID] {
				return refuse("", "messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, p.ID)
			}
		}
		if m.Role != llm.Assistant || i == len(msgs)-1 {
			continue
		}
		answered := map[string]bool{}
		if msgs[i+1].Role == llm.User {
			for _, p := range msgs[i+1].Parts {
				if p.Type == llm.PartToolResult {
					answered[p.ID] = true
				}
			}
		}
		var missing []string
		for _, c := range m.ToolCalls() {
			if !answered[c.ID] {
				missing = append(missing, c.ID)
			}
		}
		if len(missing) > 0 {
			return refuse("", "messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
		}
	}
	return nil
}

func callIDs(m llm.Message) map[string]bool {
	ids := map[string]bool{}
	for _, c := range m.ToolCalls() {
		ids[c.ID] = true
	}
	return ids
}

type openAIRequest struct {
	Model    string `json:"model"`
	Messages *[]struct {
		Role             string            `json:"role"`
		Content          json.RawMessage   `json:"content"`
		ReasoningContent string            `json:"reasoning_content"`
		Reasoning        string            `json:"reasoning"`
		ToolCalls        []json.RawMessage `json:"tool_calls"`
		ToolCallID       string            `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// openAIInCall is a tool call of an assistant message.
type openAIInCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (r *Request) decodeOpenAI() *badRequest {
	var in openAIRequest
	if err := json.Unmarshal(r.Body, &in); err != nil {
		return refuse("", "llmtest: the request body does not fit the Chat Completions API: %v", err)
	}
	r.Model, r.Stream = in.Model, in.Stream
	r.includeUsage = in.StreamOptions != nil && in.StreamOptions.IncludeUsage
	switch {
	case in.Model == "":
		return &badRequest{message: "you must provide a model parameter", param: "model", code: "missing_required_parameter"}
	case in.Messages == nil:
		return &badRequest{message: "Missing required parameter: 'messages'.", param: "messages", code: "missing_required_parameter"}
	case len(*in.Messages) == 0:
		return &badRequest{message: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", param: "messages", code: "empty_array"}
	}
	for _, t := range in.Tools {
		r.Tools = append(r.Tools, t.Function.Name)
	}
	var system []string
	// The tool calls of the last assistant message, while tool messages
	// answer them.
	var openIDs []string
	var answered map[string]bool
	openAt := -1
	unanswered := func() *badRequest {
		var ids []string
		for _, id := range openIDs {
			if !answered[id] {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return nil
		}
		return refuse(fmt.Sprintf("messages.[%d].role", openAt), "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(ids, ", "))
	}
	for i, m := range *in.Messages {
		param := fmt.Sprintf("messages.[%d].role", i)
		if m.Role != "tool" {
			if bad := unanswered(); bad != nil {
				return bad
			}
			openIDs, answered = nil, nil
		}
		text, err := textOf(m.Content, "\n")
		if err != nil {
			return refuse(fmt.Sprintf("messages.[%d].content", i), "Invalid 'messages[%d].content': expected a string or an array of content parts", i)
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
		case "user":
			r.Messages = append(r.Messages, llm.Message{Role: llm.User, Parts: userParts(m.Content, text)})
		case "assistant":
			msg := llm.Message{Role: llm.Assistant}
			if reasoning := m.ReasoningContent + m.Reasoning; reasoning != "" {
				msg.Parts = append(msg.Parts, llm.Thinking(reasoning, ""))
			}
			if text != "" {
				msg.Parts = append(msg.Parts, llm.Text(text))
			}
			for _, raw := range m.ToolCalls {
				var c openAIInCall
				if json.Unmarshal(raw, &c) != nil || c.ID == "" || c.Function.Name == "" {
					return refuse(fmt.Sprintf("messages.[%d].tool_calls", i), "Invalid 'messages[%d].tool_calls': each tool call needs an id and a function name", i)
				}
				p := llm.ToolCall(c.ID, c.Function.Name, argsJSON(c.Function.Arguments))
				p.Raw = jsonobj.Rest(raw, "id", "type", "function", "index")
				msg.Parts = append(msg.Parts, p)
				openIDs = append(openIDs, c.ID)
			}
			if len(m.ToolCalls) > 0 {
				openAt, answered = i, map[string]bool{}
			}
			r.Messages = append(r.Messages, msg)
		case "tool":
			if m.ToolCallID == "" {
				return refuse(fmt.Sprintf("messages.[%d].tool_call_id", i), "Missing required parameter: 'messages[%d].tool_call_id'.", i)
			}
			if !slices.Contains(openIDs, m.ToolCallID) {
				return refuse(param, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
			}
			answered[m.ToolCallID] = true
			result := llm.ToolResult(m.ToolCallID, text, false)
			if n := len(r.Messages); n > 0 && i > 0 && (*in.Messages)[i-1].Role == "tool" {
				r.Messages[n-1].Parts = append(r.Messages[n-1].Parts, result)
			} else {
				r.Messages = append(r.Messages, llm.Message{Role: llm.User, Parts: []llm.Part{result}})
			}
		default:
			return refuse(param, "Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.", m.Role)
		}
	}
	// An assistant message with tool calls may end the conversation.
	if openAt < len(*in.Messages)-1 {
		if bad := unanswered(); bad != nil {
			return bad
		}
	}
	r.System = strings.Join(system, "\n\n")
	return nil
}

// userParts turns OpenAI user content into parts: text as one part, or a
// content-part array part by part.
func userParts(raw json.RawMessage, text string) []llm.Part {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return []llm.Part{llm.Text(text)}
	}
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &items) // textOf has checked it
	parts := make([]llm.Part, 0, len(items))
	for _, it := range items {
		if it.Type == "text" {
			parts = append(parts, llm.Text(it.Text))
		} else {
			parts = append(parts, llm.Part{Type: llm.PartType(it.Type)})
		}
	}
	return parts
}

// argsJSON keeps arguments that are JSON as they are and quotes the rest,
// so a recorded message always marshals.
func argsJSON(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	q, _ := json.Marshal(s)
	return q
}
