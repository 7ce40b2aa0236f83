package llm

import "encoding/json"

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Schema is the JSON Schema of the tool's arguments, an object schema.
	// Nil means an object with no properties.
	Schema json.RawMessage `json:"schema,omitempty"`
}

// ToolMode says whether and how the model must call a tool.
type ToolMode string

// The tool modes. The zero value is [ToolAuto].
const (
	ToolAuto ToolMode = ""     // the model decides
	ToolAny  ToolMode = "any"  // the model must call some tool ("required")
	ToolNone ToolMode = "none" // the model must not call a tool
	ToolName ToolMode = "tool" // the model must call the tool named in ToolChoice.Name
)

// ToolChoice constrains tool use. The zero value lets the model decide.
type ToolChoice struct {
	Mode ToolMode
	// Name is the tool to call when Mode is ToolName.
	Name string
	// NoParallel asks the model for at most one tool call per reply.
	NoParallel bool
}

// Request is one call to a model. The zero value of each field means the
// client's default.
type Request struct {
	// Model overrides Config.Model for this request.
	Model string
	// System is the system prompt; empty means none.
	System string
	// Messages is the conversation so far, oldest first.
	Messages []Message
	// Tools the model may call.
	Tools []ToolSpec
	// ToolChoice constrains tool use; the zero value is auto.
	ToolChoice ToolChoice
	// MaxTokens caps the reply; 0 means Config.MaxTokens, then 4096.
	MaxTokens int
	// Temperature, when not nil, sets the sampling temperature.
	Temperature *float64
	// ThinkingBudget, when above 0, turns on extended thinking with that many
	// tokens. Anthropic needs at least 1024 and fewer than MaxTokens: a
	// smaller budget is raised to 1024, and MaxTokens, when not above the
	// budget, becomes budget + MaxTokens; temperature is not sent.
	// OpenAI-compatible servers get reasoning_effort "low" below 4096,
	// "medium" below 16384, else "high".
	ThinkingBudget int
	// StopSequences end the reply when the model writes one of them.
	StopSequences []string
	// Output, when not nil, asks for a reply that is a JSON value matching
	// a schema (see [Output]).
	Output *Output
	// Container reuses the code-execution container a previous reply ran
	// in ([Response.Container]; Anthropic). Empty means a new one when a
	// tool needs it.
	Container string
}

// StopReason says why a reply ended, the same across dialects.
type StopReason string

// The normalised stop reasons. [Response.RawStop] keeps the provider's word.
const (
	StopEnd       StopReason = "end"           // the model finished
	StopToolUse   StopReason = "tool_use"      // the model wants tool results
	StopMaxTokens StopReason = "max_tokens"    // the reply hit the token cap
	StopSequence  StopReason = "stop_sequence" // a stop sequence was written
	StopRefusal   StopReason = "refusal"       // the model or a filter refused
	StopPause     StopReason = "pause"         // the provider paused a long turn; send it back to continue
	StopOther     StopReason = "other"         // anything else; see RawStop
)

// Response is a whole reply.
type Response struct {
	// ID is the provider's id of the reply, when it gives one.
	ID string
	// Model is the model that answered, as the provider names it.
	Model string
	// Parts are the reply's content in order: thinking, text and tool calls.
	Parts []Part
	// Stop is why the reply ended; RawStop is the provider's own value.
	Stop    StopReason
	RawStop string
	// Usage counts the tokens of this request.
	Usage Usage
	// Container is the id of the code-execution container the reply ran
	// in, when the provider made one (Anthropic); set it as
	// [Request.Container] to keep its files for the next request.
	Container string `json:",omitempty"`
}

// Message returns the reply as an assistant message, ready to append to the
// conversation.
func (r *Response) Message() Message { return Message{Role: Assistant, Parts: r.Parts} }

// Text returns the reply's text parts joined together.
func (r *Response) Text() string { return joinText(r.Parts) }

// ToolCalls returns the tool calls of the reply, in order.
func (r *Response) ToolCalls() []Part { return partsOf(r.Parts, PartToolCall) }

// Usage counts tokens. Input counts every input token, cached or not, so the
// figure means the same in both dialects; CacheRead and CacheWrite are the
// parts of Input read from or written to the prompt cache. Reasoning is the
// part of Output spent thinking, when the provider says.
type Usage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cache_read,omitempty"`
	CacheWrite int `json:"cache_write,omitempty"`
	Reasoning  int `json:"reasoning,omitempty"`
	// Cost is what the tokens cost. Clients leave it zero: the agent fills
	// it from the model's price ([Models.Cost]).
	Cost Cost `json:"cost,omitzero"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		Input:      u.Input + v.Input,
		Output:     u.Output + v.Output,
		CacheRead:  u.CacheRead + v.CacheRead,
		CacheWrite: u.CacheWrite + v.CacheWrite,
		Reasoning:  u.Reasoning + v.Reasoning,
		Cost:       u.Cost.Add(v.Cost),
	}
}
