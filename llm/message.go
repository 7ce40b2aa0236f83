package llm

import "encoding/json"

// Role says who wrote a [Message].
type Role string

// The two roles of a conversation. The system prompt is not a message: it is
// [Request.System].
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// PartType says what a [Part] holds.
type PartType string

// The kinds of [Part].
const (
	// PartText is plain text: Text.
	PartText PartType = "text"
	// PartToolCall is the model asking to run a tool: ID, Name, Args.
	PartToolCall PartType = "tool_call"
	// PartToolResult answers the tool call whose id is ID: Text, IsError.
	PartToolResult PartType = "tool_result"
	// PartThinking is the model's visible reasoning: Text and, from Claude,
	// Signature. It must go back to the provider exactly as received.
	PartThinking PartType = "thinking"
	// PartRedactedThinking is reasoning the provider encrypted: Data, opaque.
	PartRedactedThinking PartType = "redacted_thinking"
	// PartProvider is content only its provider understands, kept verbatim
	// in Raw with the Origin it came from: Anthropic server-tool blocks
	// (server_tool_use, web_search_tool_result, mcp_tool_use, …) and
	// compaction blocks. It goes back unchanged to the same Origin and is
	// left out, with a debug log, of requests to any other.
	PartProvider PartType = "provider"
)

// Part is one piece of a [Message]. Which fields mean something depends on
// Type; the zero value of the others is left out of JSON, so a conversation
// saved with encoding/json loads back unchanged.
type Part struct {
	Type PartType `json:"type"`
	// Text is the text of a text part, the content of a tool result, or the
	// reasoning of a thinking part.
	Text string `json:"text,omitempty"`
	// ID is the provider's id of a tool call; on a tool result it names the
	// call being answered.
	ID string `json:"id,omitempty"`
	// Name is the tool a call asks for.
	Name string `json:"name,omitempty"`
	// Args holds the JSON object a tool call passes to the tool. A model
	// can write arguments that are not JSON, and a reply cut off by max
	// tokens ([StopMaxTokens]) can end inside them: such a call is still
	// returned, with Args empty and the text received in Text (see
	// [Part.Malformed]); clients send it back as "{}".
	Args json.RawMessage `json:"args,omitempty"`
	// IsError marks a tool result as a failed call.
	IsError bool `json:"is_error,omitempty"`
	// Signature is Claude's signature over a thinking part, byte for byte.
	Signature string `json:"signature,omitempty"`
	// Data is the opaque content of a redacted thinking part.
	Data string `json:"data,omitempty"`
	// Citations are the sources a text part cites, in the order the
	// provider gave them.
	Citations []Citation `json:"citations,omitempty"`
	// Raw is provider data kept verbatim: the whole block of a
	// [PartProvider] part, or on a tool call the fields the provider sent
	// beside id, name and arguments (Gemini's extra_content with its
	// thought signature, Claude's caller). It is sent back only to the
	// same Origin.
	Raw json.RawMessage `json:"raw,omitempty"`
	// Origin names where Raw and the citations' Raw came from: the dialect
	// and the API host, as in "anthropic:api.anthropic.com". Compare it;
	// do not parse it.
	Origin string `json:"origin,omitempty"`
}

// Citation is a source a text part cites, in one shape for every provider:
// Anthropic citations, OpenAI url_citation annotations, Perplexity's list
// of sources.
type Citation struct {
	// Type is the provider's kind of citation: "web_search_result_location",
	// "char_location", "url_citation", "url" (a bare source URL), ….
	Type string `json:"type"`
	// URL is the cited web page, when there is one.
	URL string `json:"url,omitempty"`
	// Title is the page's or document's title, when the provider gives it.
	Title string `json:"title,omitempty"`
	// Quote is the cited text, when the provider gives it.
	Quote string `json:"quote,omitempty"`
	// Start and End delimit, in characters, the span of the part's text
	// the citation supports, when the provider says (OpenAI annotations);
	// both 0 means the whole part.
	Start int `json:"start,omitempty"`
	End   int `json:"end,omitempty"`
	// Raw is the citation as the provider sent it, which Anthropic wants
	// back unchanged on a later turn.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// Malformed reports whether p is a tool call whose arguments were not
// valid JSON as the model wrote them; Text then holds what it wrote.
func (p Part) Malformed() bool {
	return p.Type == PartToolCall && len(p.Args) == 0 && p.Text != ""
}

// wireCall returns the tool call a provider sent, keeping arguments that
// are not JSON as text (see [Part.Args]).
func wireCall(id, name string, args []byte) Part {
	if len(args) == 0 || json.Valid(args) {
		return ToolCall(id, name, args)
	}
	return Part{Type: PartToolCall, ID: id, Name: name, Text: string(args)}
}

// Text returns a text part.
func Text(s string) Part { return Part{Type: PartText, Text: s} }

// ToolCall returns a tool call part. Nil or empty args mean "{}".
func ToolCall(id, name string, args json.RawMessage) Part {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return Part{Type: PartToolCall, ID: id, Name: name, Args: args}
}

// ToolResult returns the answer to the tool call with the given id.
func ToolResult(callID, content string, isError bool) Part {
	return Part{Type: PartToolResult, ID: callID, Text: content, IsError: isError}
}

// Thinking returns a thinking part with its signature.
func Thinking(text, signature string) Part {
	return Part{Type: PartThinking, Text: text, Signature: signature}
}

// RedactedThinking returns a redacted thinking part.
func RedactedThinking(data string) Part { return Part{Type: PartRedactedThinking, Data: data} }

// Provider returns a part holding a provider's own content block verbatim,
// as received from origin (see [Part.Origin]).
func Provider(origin string, raw json.RawMessage) Part {
	return Part{Type: PartProvider, Raw: raw, Origin: origin}
}

// Message is one turn of a conversation.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// UserText returns a user message holding one text part.
func UserText(s string) Message { return Message{Role: User, Parts: []Part{Text(s)}} }

// Text returns the text parts of m joined together.
func (m Message) Text() string { return joinText(m.Parts) }

// ToolCalls returns the tool call parts of m, in order.
func (m Message) ToolCalls() []Part { return partsOf(m.Parts, PartToolCall) }

func joinText(parts []Part) string {
	n, first := 0, -1
	for i, p := range parts {
		if p.Type == PartText {
			n++
			if first < 0 {
				first = i
			}
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return parts[first].Text
	}
	var b []byte
	for _, p := range parts {
		if p.Type == PartText {
			b = append(b, p.Text...)
		}
	}
	return string(b)
}

func partsOf(parts []Part, t PartType) []Part {
	var out []Part
	for _, p := range parts {
		if p.Type == t {
			out = append(out, p)
		}
	}
	return out
}
