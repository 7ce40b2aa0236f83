package llm

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/internal/jsonobj"
)

const openaiBase = "https://api.openai.com/v1"

// openaiWire encodes and decodes Chat Completions for one origin.
type openaiWire struct{ from string }

func (openaiWire) endpoint(base string) string {
	if strings.HasSuffix(base, "/chat/completions") {
		return base
	}
	return base + "/chat/completions"
}

func (openaiWire) authorize(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

func (w openaiWire) decoder() streamDecoder { return &openaiDecoder{origin: w.from} }

func (w openaiWire) origin() string { return w.from }

func (openaiWire) rules() []*repairRule { return openaiRepairs }

type (
	oaiMessage struct {
		Role    string  `json:"role"`
		Content *string `json:"content,omitempty"`
		// ToolCalls holds oaiToolCall values, or the JSON of a call with
		// the provider's own fields (Gemini's extra_content) merged in.
		ToolCalls  []any  `json:"tool_calls,omitempty"`
		ToolCallID string `json:"tool_call_id,omitempty"`
	}
	oaiToolCall struct {
		ID       string          `json:"id"`
		Type     string          `json:"type"`
		Function oaiFunctionCall `json:"function"`
	}
	oaiFunctionCall struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	oaiTool struct {
		Type     string      `json:"type"`
		Function oaiFunction `json:"function"`
	}
	oaiFunction struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	oaiNamedChoice struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
)

// oaiToolCallFields are the fields of a tool call Bridle models.
var oaiToolCallFields = []string{"id", "type", "function", "index"}

func (w openaiWire) build(req *Request, o buildOptions) (body, error) {
	msgs, err := oaiMessages(req.System, req.Messages, w.from, o.drop)
	if err != nil {
		return nil, err
	}
	b := body{}
	b.set(&err, "model", o.model)
	b.set(&err, "messages", msgs)
	b.set(&err, "max_tokens", o.maxTokens)
	if req.Temperature != nil {
		b.set(&err, "temperature", *req.Temperature)
	}
	if len(req.StopSequences) > 0 {
		b.set(&err, "stop", req.StopSequences)
	}
	if len(req.Tools) > 0 {
		err = setOAITools(b, req, err)
	}
	if o := req.Output; o != nil {
		js := map[string]any{"name": cmp.Or(o.Name, outputTool), "schema": o.Schema}
		if o.Description != "" {
			js["description"] = o.Description
		}
		b.set(&err, "response_format", map[string]any{"type": "json_schema", "json_schema": js})
	}
	if effort := reasoningEffort(req.ThinkingBudget); effort != "" {
		b.set(&err, "reasoning_effort", effort)
	}
	if o.stream {
		b.set(&err, "stream", true)
		b.set(&err, "stream_options", map[string]bool{"include_usage": true})
	}
	return b, err
}

func setOAITools(b body, req *Request, err error) error {
	tools := make([]oaiTool, 0, len(req.Tools))
	for _, s := range req.Tools {
		schema, e := toolSchema(s)
		if e != nil {
			return e
		}
		tools = append(tools, oaiTool{Type: "function", Function: oaiFunction{Name: s.Name, Description: s.Description, Parameters: schema}})
	}
	b.set(&err, "tools", tools)
	switch tc := req.ToolChoice; tc.Mode {
	case ToolAny:
		b.set(&err, "tool_choice", "required")
	case ToolNone:
		b.set(&err, "tool_choice", "none")
	case ToolName:
		var c oaiNamedChoice
		c.Type, c.Function.Name = "function", tc.Name
		b.set(&err, "tool_choice", c)
	}
	if req.ToolChoice.NoParallel {
		b.set(&err, "parallel_tool_calls", false)
	}
	return err
}

// reasoningEffort maps a thinking budget to OpenAI's reasoning_effort:
// below 4096 tokens "low", below 16384 "medium", else "high".
func reasoningEffort(budget int) string {
	switch {
	case budget <= 0:
		return ""
	case budget < 4096:
		return "low"
	case budget < 16384:
		return "medium"
	}
	return "high"
}

func oaiMessages(system string, msgs []Message, origin string, drop func(what, from string)) ([]oaiMessage, error) {
	out := make([]oaiMessage, 0, len(msgs)+1)
	if system != "" {
		out = append(out, oaiMessage{Role: "system", Content: &system})
	}
	var err error
	for i, m := range msgs {
		switch m.Role {
		case User:
			out, err = appendUser(out, m, origin, drop)
		case Assistant:
			var am oaiMessage
			am, err = assistantMessage(m, origin, drop)
			out = append(out, am)
		default:
			err = fmt.Errorf("role %q is not llm.User or llm.Assistant (the system prompt goes in Request.System)", m.Role)
		}
		if err != nil {
			return nil, fmt.Errorf("llm: message %d: %w", i, err)
		}
	}
	return out, nil
}

// appendUser adds a user turn: its tool results first, as tool messages
// that must follow the assistant's calls, then its text.
func appendUser(out []oaiMessage, m Message, origin string, drop func(what, from string)) ([]oaiMessage, error) {
	results := 0
	for _, p := range m.Parts {
		switch p.Type {
		case PartToolResult:
			content := p.Text
			if p.IsError {
				// The dialect has no error flag: say it in the content.
				content = "Error: " + content
			}
			out = append(out, oaiMessage{Role: "tool", ToolCallID: p.ID, Content: &content})
			results++
		case PartProvider:
			keeps(p, "", drop) // the dialect has nowhere to carry it
		case PartText, PartThinking, PartRedactedThinking:
		default:
			return nil, fmt.Errorf("a user message cannot hold a %q part", p.Type)
		}
	}
	if text := m.Text(); text != "" || results == 0 {
		out = append(out, oaiMessage{Role: "user", Content: &text})
	}
	return out, nil
}

// assistantMessage encodes a reply. Thinking is not sent back: compatible
// servers ignore it or, like deepseek-reasoner, refuse it. A tool call's
// provider fields go back to the origin they came from.
func assistantMessage(m Message, origin string, drop func(what, from string)) (oaiMessage, error) {
	am := oaiMessage{Role: "assistant"}
	for _, p := range m.Parts {
		switch p.Type {
		case PartToolCall:
			args, err := callArgs(p)
			if err != nil {
				return am, err
			}
			c := oaiToolCall{ID: p.ID, Type: "function",
				Function: oaiFunctionCall{Name: p.Name, Arguments: string(args)}}
			if len(p.Raw) > 0 && keeps(p, origin, drop) {
				data, _ := jsonobj.Marshal(c) // strings only: it encodes
				raw, err := jsonobj.With(data, p.Raw)
				if err != nil {
					return am, fmt.Errorf("tool call %q (%s): its provider data is not a JSON object", p.Name, p.ID)
				}
				am.ToolCalls = append(am.ToolCalls, raw)
				continue
			}
			am.ToolCalls = append(am.ToolCalls, c)
		case PartProvider:
			keeps(p, "", drop) // the dialect has nowhere to carry it
		case PartText, PartThinking, PartRedactedThinking:
		default:
			return am, fmt.Errorf("an assistant message cannot hold a %q part", p.Type)
		}
	}
	if text := m.Text(); text != "" || len(am.ToolCalls) == 0 {
		am.Content = &text
	}
	return am, nil
}

// Replies.
type (
	oaiResponse struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Choices []oaiChoice     `json:"choices"`
		Usage   *oaiUsage       `json:"usage"`
		Error   json.RawMessage `json:"error"`
		oaiSources
	}
	// oaiSources are Perplexity's sources, on the reply and on every chunk:
	// search_results with titles, or citations, a list of URLs.
	oaiSources struct {
		Citations     []json.RawMessage `json:"citations"`
		SearchResults []json.RawMessage `json:"search_results"`
	}
	oaiChoice struct {
		Message      oaiRespMessage `json:"message"`
		FinishReason string         `json:"finish_reason"`
	}
	oaiRespMessage struct {
		Content          json.RawMessage   `json:"content"`
		ReasoningContent string            `json:"reasoning_content"`
		Reasoning        json.RawMessage   `json:"reasoning"`
		Refusal          string            `json:"refusal"`
		ToolCalls        []json.RawMessage `json:"tool_calls"`
		Annotations      []json.RawMessage `json:"annotations"`
	}
	oaiUsage struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
		// DeepSeek reports cache hits here.
		PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"`
	}
)

func (w openaiWire) decode(data []byte) (*Response, error) {
	var r oaiResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, notJSON(data, err)
	}
	if len(r.Error) > 0 && string(r.Error) != "null" {
		return nil, errorInReply(data)
	}
	if len(r.Choices) == 0 {
		return nil, fmt.Errorf("llm: the reply has no choices: %s", clip.String(string(data), 200))
	}
	ch := r.Choices[0]
	text, thinking := contentText(ch.Message.Content)
	thinking = ch.Message.ReasoningContent + thinking + stringOf(ch.Message.Reasoning)
	text += ch.Message.Refusal
	out := &Response{ID: r.ID, Model: r.Model, RawStop: ch.FinishReason, Usage: r.Usage.normalise()}
	out.Stop = oaiStop(ch.FinishReason, len(ch.Message.ToolCalls) > 0, ch.Message.Refusal != "")
	cites := append(oaiAnnotations(ch.Message.Annotations), r.oaiSources.citations()...)
	out.Parts = oaiParts(thinking, text, cites, w.from)
	for _, raw := range ch.Message.ToolCalls {
		var c oaiToolCall
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, notJSON(data, err)
		}
		out.Parts = append(out.Parts, oaiToolPart(c.ID, c.Function.Name, []byte(c.Function.Arguments),
			jsonobj.Rest(raw, oaiToolCallFields...), w.from))
	}
	return out, nil
}

// oaiToolPart returns a tool call with the provider's own fields.
func oaiToolPart(id, name string, args []byte, extra json.RawMessage, origin string) Part {
	p := wireCall(id, name, args)
	if len(extra) > 0 {
		p.Raw, p.Origin = extra, origin
	}
	return p
}

// oaiParts returns the thinking and text parts that are not empty.
func oaiParts(thinking, text string, cites []Citation, origin string) []Part {
	var parts []Part
	if thinking != "" {
		parts = append(parts, Thinking(thinking, ""))
	}
	if text != "" {
		parts = append(parts, citedPart(text, cites, origin))
	}
	return parts
}

// oaiAnnotations converts OpenAI's url_citation annotations.
func oaiAnnotations(raws []json.RawMessage) []Citation {
	var out []Citation
	for _, raw := range raws {
		var a struct {
			Type        string `json:"type"`
			URLCitation *struct {
				URL        string `json:"url"`
				Title      string `json:"title"`
				StartIndex int    `json:"start_index"`
				EndIndex   int    `json:"end_index"`
			} `json:"url_citation"`
		}
		if json.Unmarshal(raw, &a) != nil || a.URLCitation == nil {
			continue
		}
		u := a.URLCitation
		out = append(out, Citation{Type: a.Type, URL: u.URL, Title: u.Title,
			Start: u.StartIndex, End: u.EndIndex, Raw: raw})
	}
	return out
}

// citations converts Perplexity's sources: search_results when given,
// which have titles, else the citations list of URLs.
func (s oaiSources) citations() []Citation {
	var out []Citation
	for _, raw := range s.SearchResults {
		var r struct {
			URL   string `json:"url"`
			Title string `json:"title"`
		}
		if json.Unmarshal(raw, &r) == nil && r.URL != "" {
			out = append(out, Citation{Type: "search_result", URL: r.URL, Title: r.Title, Raw: raw})
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, raw := range s.Citations {
		if u := stringOf(raw); u != "" {
			out = append(out, Citation{Type: "url", URL: u, Raw: raw})
		}
	}
	return out
}

// contentText reads a message's content: a string, or a list of parts as
// Mistral's reasoning models send, with "thinking" parts among "text" ones.
func contentText(raw json.RawMessage) (text, thinking string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return stringOf(raw), ""
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", ""
	}
	for _, p := range parts {
		if p.Type == "thinking" {
			t, inner := contentText(p.Thinking)
			thinking += t + inner
			continue
		}
		text += p.Text
	}
	return text, thinking
}

// stringOf returns a JSON string's value, or "" for anything else.
func stringOf(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func (u *oaiUsage) normalise() Usage {
	if u == nil {
		return Usage{}
	}
	out := Usage{Input: u.PromptTokens, Output: u.CompletionTokens, CacheRead: u.PromptCacheHitTokens}
	if d := u.PromptTokensDetails; d != nil && d.CachedTokens > 0 {
		out.CacheRead = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.Reasoning = d.ReasoningTokens
	}
	// xAI leaves reasoning out of completion_tokens; its total shows it.
	if r := out.Reasoning; r > 0 && u.TotalTokens == u.PromptTokens+u.CompletionTokens+r {
		out.Output += r
	}
	return out
}

// oaiStop normalises finish_reason. Some compatible servers say "stop"
// after tool calls, so calls decide.
func oaiStop(raw string, calls, refused bool) StopReason {
	switch {
	case raw == "length":
		return StopMaxTokens
	case calls:
		return StopToolUse
	case refused || raw == "content_filter":
		return StopRefusal
	case raw == "stop":
		return StopEnd
	case raw == "tool_calls" || raw == "function_call":
		return StopToolUse
	}
	return StopOther
}
