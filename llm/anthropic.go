package llm

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/bridle-dev/bridle/internal/jsonobj"
)

const (
	anthropicBase    = "https://api.anthropic.com"
	anthropicVersion = "2023-06-01"
	// minThinkingBudget is the smallest budget Anthropic accepts.
	minThinkingBudget = 1024
)

// anthropicWire encodes and decodes the Messages API for one origin.
type anthropicWire struct{ from string }

func (anthropicWire) endpoint(base string) string {
	if strings.HasSuffix(base, "/v1/messages") {
		return base
	}
	return strings.TrimSuffix(base, "/v1") + "/v1/messages"
}

func (anthropicWire) authorize(h http.Header, key string) {
	if key != "" {
		h.Set("x-api-key", key)
	}
	h.Set("anthropic-version", anthropicVersion)
}

func (w anthropicWire) decoder() streamDecoder { return &anthropicDecoder{origin: w.from} }

func (w anthropicWire) origin() string { return w.from }

func (anthropicWire) rules() []*repairRule { return anthropicRepairs }

// Wire blocks. Pointers, so that cache breakpoints can be set after.
type (
	antCache struct {
		Type string `json:"type"`
	}
	antBlock interface {
		// markCache sets a cache breakpoint, if the block can carry one.
		markCache() bool
	}
	antText struct {
		Type         string            `json:"type"`
		Text         string            `json:"text"`
		Citations    []json.RawMessage `json:"citations,omitempty"`
		CacheControl *antCache         `json:"cache_control,omitempty"`
	}
	antToolUse struct {
		Type         string          `json:"type"`
		ID           string          `json:"id"`
		Name         string          `json:"name"`
		Input        json.RawMessage `json:"input"`
		CacheControl *antCache       `json:"cache_control,omitempty"`
	}
	// antRaw is a block the provider sent, going back verbatim.
	antRaw        struct{ raw json.RawMessage }
	antToolResult struct {
		Type         string    `json:"type"`
		ToolUseID    string    `json:"tool_use_id"`
		Content      string    `json:"content,omitempty"`
		IsError      bool      `json:"is_error,omitempty"`
		CacheControl *antCache `json:"cache_control,omitempty"`
	}
	antThinking struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}
	antRedacted struct {
		Type string `json:"type"`
		Data string `json:"data"`
	}
	antMessage struct {
		Role    string     `json:"role"`
		Content []antBlock `json:"content"`
	}
	antTool struct {
		Name         string          `json:"name"`
		Description  string          `json:"description,omitempty"`
		InputSchema  json.RawMessage `json:"input_schema"`
		CacheControl *antCache       `json:"cache_control,omitempty"`
	}
	antToolChoice struct {
		Type                   string `json:"type"`
		Name                   string `json:"name,omitempty"`
		DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
	}
	antThinkingConfig struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	}
)

var ephemeral = &antCache{Type: "ephemeral"}

func (b *antText) markCache() bool       { b.CacheControl = ephemeral; return true }
func (b *antToolUse) markCache() bool    { b.CacheControl = ephemeral; return true }
func (b *antToolResult) markCache() bool { b.CacheControl = ephemeral; return true }
func (*antThinking) markCache() bool     { return false }
func (*antRedacted) markCache() bool     { return false }
func (*antRaw) markCache() bool          { return false }

func (b *antRaw) MarshalJSON() ([]byte, error) { return b.raw, nil }

func (w anthropicWire) build(req *Request, o buildOptions) (body, error) {
	msgs, err := antMessages(req.Messages, w.from, o.drop)
	if err != nil {
		return nil, err
	}
	tools, err := antTools(req.Tools)
	if err != nil {
		return nil, err
	}
	var system []*antText
	if req.System != "" {
		system = []*antText{{Type: "text", Text: req.System}}
	}
	if !o.noCache {
		markCache(tools, system, msgs)
	}
	maxTokens, thinking := antThinkingFor(req.ThinkingBudget, o.maxTokens)
	b := body{}
	b.set(&err, "model", o.model)
	b.set(&err, "max_tokens", maxTokens)
	b.set(&err, "messages", msgs)
	if system != nil {
		b.set(&err, "system", system)
	}
	if len(tools) > 0 {
		b.set(&err, "tools", tools)
		if tc := antChoice(req.ToolChoice); tc != nil {
			b.set(&err, "tool_choice", tc)
		}
	}
	if thinking != nil {
		b.set(&err, "thinking", thinking) // temperature is refused with thinking on
	} else if req.Temperature != nil {
		b.set(&err, "temperature", *req.Temperature)
	}
	if len(req.StopSequences) > 0 {
		b.set(&err, "stop_sequences", req.StopSequences)
	}
	if req.Container != "" {
		b.set(&err, "container", req.Container)
	}
	if o := req.Output; o != nil {
		b.set(&err, "output_config", map[string]any{"format": map[string]any{"type": "json_schema", "schema": o.Schema}})
	}
	if o.stream {
		b.set(&err, "stream", true)
	}
	return b, err
}

// antThinkingFor turns a budget into the thinking setting. The budget is
// raised to Anthropic's minimum, and max_tokens raised above the budget
// (budget + the usual cap) when it would not leave room for an answer.
func antThinkingFor(budget, maxTokens int) (int, *antThinkingConfig) {
	if budget <= 0 {
		return maxTokens, nil
	}
	budget = max(budget, minThinkingBudget)
	if maxTokens <= budget {
		maxTokens += budget
	}
	return maxTokens, &antThinkingConfig{Type: "enabled", BudgetTokens: budget}
}

func antChoice(tc ToolChoice) *antToolChoice {
	var c antToolChoice
	switch tc.Mode {
	case ToolAuto:
		if !tc.NoParallel {
			return nil
		}
		c.Type = "auto"
	case ToolAny:
		c.Type = "any"
	case ToolNone:
		return &antToolChoice{Type: "none"}
	case ToolName:
		c.Type, c.Name = "tool", tc.Name
	default:
		c.Type = "auto"
	}
	c.DisableParallelToolUse = tc.NoParallel
	return &c
}

func antTools(specs []ToolSpec) ([]*antTool, error) {
	tools := make([]*antTool, 0, len(specs))
	for _, s := range specs {
		schema, err := toolSchema(s)
		if err != nil {
			return nil, err
		}
		tools = append(tools, &antTool{Name: s.Name, Description: s.Description, InputSchema: schema})
	}
	return tools, nil
}

// toolSchema returns the tool's schema, or an empty object schema.
func toolSchema(s ToolSpec) (json.RawMessage, error) {
	if len(s.Schema) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	if !json.Valid(s.Schema) {
		return nil, fmt.Errorf("llm: tool %q: the schema is not valid JSON", s.Name)
	}
	return s.Schema, nil
}

func antMessages(msgs []Message, origin string, drop func(what, from string)) ([]antMessage, error) {
	out := make([]antMessage, 0, len(msgs))
	for i, m := range msgs {
		if m.Role != User && m.Role != Assistant {
			return nil, fmt.Errorf("llm: message %d has role %q; use llm.User or llm.Assistant (the system prompt goes in Request.System)", i, m.Role)
		}
		blocks := make([]antBlock, 0, len(m.Parts))
		for j, p := range m.Parts {
			b, err := antPart(p, origin, drop)
			if err != nil {
				return nil, fmt.Errorf("llm: message %d, part %d: %w", i, j, err)
			}
			if b != nil {
				blocks = append(blocks, b)
			}
		}
		out = append(out, antMessage{Role: string(m.Role), Content: blocks})
	}
	return out, nil
}

// antPart encodes one part; nil for an empty text, which Anthropic refuses,
// and for provider data from another origin.
func antPart(p Part, origin string, drop func(what, from string)) (antBlock, error) {
	switch p.Type {
	case PartText:
		if p.Text == "" {
			return nil, nil
		}
		b := &antText{Type: "text", Text: p.Text}
		if len(p.Citations) > 0 && keeps(p, origin, drop) {
			for _, c := range p.Citations {
				if len(c.Raw) > 0 {
					b.Citations = append(b.Citations, c.Raw)
				}
			}
		}
		return b, nil
	case PartToolCall:
		args, err := callArgs(p)
		if err != nil {
			return nil, err
		}
		b := &antToolUse{Type: "tool_use", ID: p.ID, Name: p.Name, Input: args}
		if len(p.Raw) > 0 && keeps(p, origin, drop) {
			// With the provider's own fields, as they came.
			data, err := jsonobj.Marshal(b)
			if err != nil {
				return nil, err
			}
			raw, err := jsonobj.With(data, p.Raw)
			if err != nil {
				return nil, fmt.Errorf("tool call %q (%s): its provider data is not a JSON object", p.Name, p.ID)
			}
			return &antRaw{raw: raw}, nil
		}
		return b, nil
	case PartProvider:
		if !keeps(p, origin, drop) {
			return nil, nil
		}
		if !json.Valid(p.Raw) {
			return nil, fmt.Errorf("provider part from %s holds data that is not JSON", p.Origin)
		}
		return &antRaw{raw: p.Raw}, nil
	case PartToolResult:
		return &antToolResult{Type: "tool_result", ToolUseID: p.ID, Content: p.Text, IsError: p.IsError}, nil
	case PartThinking:
		return &antThinking{Type: "thinking", Thinking: p.Text, Signature: p.Signature}, nil
	case PartRedactedThinking:
		return &antRedacted{Type: "redacted_thinking", Data: p.Data}, nil
	}
	return nil, fmt.Errorf("unknown part type %q", p.Type)
}

// callArgs returns a tool call's arguments, "{}" when empty (as for a
// [Part.Malformed] call).
func callArgs(p Part) (json.RawMessage, error) {
	if len(p.Args) == 0 {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid(p.Args) {
		return nil, fmt.Errorf("tool call %q (%s) has arguments that are not valid JSON", p.Name, p.ID)
	}
	return p.Args, nil
}

// Replies.
type (
	antResponse struct {
		Type       string            `json:"type"`
		ID         string            `json:"id"`
		Model      string            `json:"model"`
		Content    []json.RawMessage `json:"content"`
		StopReason string            `json:"stop_reason"`
		Usage      antUsage          `json:"usage"`
		Container  *antContainer     `json:"container"`
	}
	antContainer struct {
		ID string `json:"id"`
	}
	antRespBlock struct {
		Type      string            `json:"type"`
		Text      string            `json:"text"`
		ID        string            `json:"id"`
		Name      string            `json:"name"`
		Input     json.RawMessage   `json:"input"`
		Thinking  string            `json:"thinking"`
		Signature string            `json:"signature"`
		Data      string            `json:"data"`
		Citations []json.RawMessage `json:"citations"`
	}
	// antCitation is every field of Anthropic's kinds of citation that
	// [Citation] keeps.
	antCitation struct {
		Type          string `json:"type"`
		URL           string `json:"url"`
		Source        string `json:"source"`
		Title         string `json:"title"`
		DocumentTitle string `json:"document_title"`
		CitedText     string `json:"cited_text"`
	}
	antUsage struct {
		InputTokens   int `json:"input_tokens"`
		OutputTokens  int `json:"output_tokens"`
		CacheCreation int `json:"cache_creation_input_tokens"`
		CacheRead     int `json:"cache_read_input_tokens"`
	}
)

func (w anthropicWire) decode(data []byte) (*Response, error) {
	var r antResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, notJSON(data, err)
	}
	if r.Type == "error" {
		return nil, errorInReply(data)
	}
	out := &Response{ID: r.ID, Model: r.Model, RawStop: r.StopReason,
		Stop: antStop(r.StopReason), Usage: r.Usage.normalise()}
	if r.Container != nil {
		out.Container = r.Container.ID
	}
	for _, raw := range r.Content {
		var b antRespBlock
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, notJSON(data, err)
		}
		out.Parts = append(out.Parts, b.part(raw, w.from))
	}
	return out, nil
}

// part converts a reply block; block types Bridle does not model (server
// tools' blocks, compaction) become provider parts holding raw.
func (b antRespBlock) part(raw json.RawMessage, origin string) Part {
	switch b.Type {
	case "text":
		return citedPart(b.Text, antCitations(b.Citations), origin)
	case "tool_use":
		p := ToolCall(b.ID, b.Name, b.Input)
		if p.Raw = jsonobj.Rest(raw, antToolUseFields...); p.Raw != nil {
			p.Origin = origin
		}
		return p
	case "thinking":
		return Thinking(b.Thinking, b.Signature)
	case "redacted_thinking":
		return RedactedThinking(b.Data)
	}
	return Provider(origin, raw)
}

// antToolUseFields are the fields of a tool_use block Bridle models.
var antToolUseFields = []string{"type", "id", "name", "input", "cache_control"}

// antCitations converts Anthropic citations, keeping each as it came.
func antCitations(raws []json.RawMessage) []Citation {
	var out []Citation
	for _, raw := range raws {
		var c antCitation
		if json.Unmarshal(raw, &c) != nil {
			continue
		}
		out = append(out, Citation{Type: c.Type, URL: cmp.Or(c.URL, c.Source),
			Title: cmp.Or(c.Title, c.DocumentTitle), Quote: c.CitedText, Raw: raw})
	}
	return out
}

// normalise counts every input token in Input.
func (u antUsage) normalise() Usage {
	return Usage{
		Input:      u.InputTokens + u.CacheCreation + u.CacheRead,
		Output:     u.OutputTokens,
		CacheRead:  u.CacheRead,
		CacheWrite: u.CacheCreation,
	}
}

func antStop(raw string) StopReason {
	switch raw {
	case "end_turn":
		return StopEnd
	case "tool_use":
		return StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return StopMaxTokens
	case "stop_sequence":
		return StopSequence
	case "refusal":
		return StopRefusal
	case "pause_turn":
		return StopPause
	}
	return StopOther
}

// notJSON describes a successful reply that could not be read.
func notJSON(data []byte, err error) error {
	return fmt.Errorf("llm: the reply is not the JSON expected (%v): %s", err, describeBody(200, http.Header{}, data))
}

// errorInReply reads an error object sent with a success status.
func errorInReply(data []byte) error {
	e := &APIError{Status: http.StatusOK}
	fillError(e, data, 0)
	return e
}
