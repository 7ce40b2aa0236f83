package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/bridle-dev/bridle/internal/jsonobj"
	"github.com/bridle-dev/bridle/llm"
)

// created is the fixed creation time of OpenAI replies, so the server's
// output is the same from run to run.
const created = 1767225600 // 2026-01-01T00:00:00Z

// answer is a reply ready to render in the request's dialect.
type answer struct {
	req         *Request
	n           int // the request's number, from 1
	parts       []llm.Part
	stop        string // the dialect's raw stop reason
	usage       llm.Usage
	streamError string
}

// fill takes the content of rep, making up the tool call ids it lacks.
func (a *answer) fill(rep Reply, newID func() string) error {
	parts := rep.Parts
	if parts == nil {
		if rep.Thinking != "" || rep.Signature != "" {
			parts = append(parts, llm.Thinking(rep.Thinking, rep.Signature))
		}
		if rep.RedactedThinking != "" {
			parts = append(parts, llm.RedactedThinking(rep.RedactedThinking))
		}
		if rep.Text != "" {
			parts = append(parts, llm.Text(rep.Text))
		}
		for _, c := range rep.Calls {
			parts = append(parts, llm.Part{Type: llm.PartToolCall, ID: c.ID, Name: c.Name, Args: json.RawMessage(c.Args)})
		}
	}
	calls := false
	a.parts = make([]llm.Part, len(parts))
	for i, p := range parts {
		switch p.Type {
		case llm.PartText, llm.PartThinking, llm.PartRedactedThinking:
		case llm.PartProvider:
			if !json.Valid(p.Raw) {
				return fmt.Errorf("llmtest: reply part %d is a provider part whose Raw is not JSON", i)
			}
		case llm.PartToolCall:
			calls = true
			if p.ID == "" {
				p.ID = newID()
			}
			if len(p.Args) == 0 {
				p.Args = json.RawMessage("{}")
			}
		default:
			return fmt.Errorf("llmtest: reply part %d has type %q; a reply holds text, thinking, redacted thinking, tool calls and provider parts", i, p.Type)
		}
		a.parts[i] = p
	}
	stop := rep.Stop
	if stop == "" {
		stop = llm.StopEnd
		if calls {
			stop = llm.StopToolUse
		}
	}
	a.stop = rep.RawStop
	if a.stop == "" {
		a.stop = rawStop(a.req.Dialect, stop)
	}
	a.usage = rep.Usage
	if a.usage == (llm.Usage{}) {
		a.usage = llm.Usage{Input: 10, Output: 5}
	}
	a.streamError = rep.StreamError
	return nil
}

// citationsOf returns a text part's citations as the wire carries them:
// each one's Raw, or for a citation without one, its fields.
func citationsOf(p llm.Part) []json.RawMessage {
	var out []json.RawMessage
	for _, c := range p.Citations {
		if len(c.Raw) > 0 {
			out = append(out, c.Raw)
			continue
		}
		out = append(out, mustJSON(map[string]string{"type": c.Type, "url": c.URL, "title": c.Title, "cited_text": c.Quote}))
	}
	return out
}

// withFields adds the members of extra to the JSON object obj, where obj
// does not have them already.
func withFields(obj, extra json.RawMessage) (json.RawMessage, error) {
	out, err := jsonobj.With(obj, extra)
	if err != nil {
		return nil, fmt.Errorf("llmtest: a tool call's Raw is not a JSON object: %w", err)
	}
	return out, nil
}

// rawStop returns the dialect's word for a stop reason.
func rawStop(d llm.Dialect, stop llm.StopReason) string {
	var m map[llm.StopReason]string
	if d == llm.Anthropic {
		m = map[llm.StopReason]string{
			llm.StopEnd:       "end_turn",
			llm.StopToolUse:   "tool_use",
			llm.StopMaxTokens: "max_tokens",
			llm.StopSequence:  "stop_sequence",
			llm.StopRefusal:   "refusal",
			llm.StopPause:     "pause_turn",
		}
	} else {
		m = map[llm.StopReason]string{
			llm.StopEnd:       "stop",
			llm.StopToolUse:   "tool_calls",
			llm.StopMaxTokens: "length",
			llm.StopSequence:  "stop",
			llm.StopRefusal:   "content_filter",
		}
	}
	if raw, ok := m[stop]; ok {
		return raw
	}
	return string(stop)
}

// whole renders the answer as a whole reply body.
func (a *answer) whole() []byte {
	if a.req.Dialect == llm.Anthropic {
		return a.anthropicWhole()
	}
	return a.openAIWhole()
}

// events renders the answer as a stream.
func (a *answer) events() []sseEvent {
	if a.req.Dialect == llm.Anthropic {
		return a.anthropicEvents()
	}
	return a.openAIEvents()
}

// mustJSON marshals values the package builds itself, which cannot fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("llmtest: " + err.Error())
	}
	return b
}

// pieces splits s into a few pieces at rune boundaries, as a model streams
// text: three for short text, pieces of 64 runes for long text.
func pieces(s string) []string {
	n := utf8.RuneCountInString(s)
	if n == 0 {
		return nil
	}
	size := min((n+2)/3, 64)
	out := make([]string, 0, (n+size-1)/size)
	for len(s) > 0 {
		i, k := 0, 0
		for i < len(s) && k < size {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			k++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// errorInfo is what an error body says; empty fields get defaults fitting
// the status.
type errorInfo struct {
	typ, message, param, code string
}

// errorJSON returns the dialect's error body.
func errorJSON(d llm.Dialect, status int, e errorInfo, reqID string) []byte {
	if d == llm.Anthropic {
		return anthropicError(status, e, reqID)
	}
	return openAIError(status, e)
}

func statusText(status int) string {
	if t := http.StatusText(status); t != "" {
		return t
	}
	return fmt.Sprintf("status %d", status)
}

// idFor returns the id of the n-th reply with a dialect's prefix.
func idFor(prefix string, n int) string { return fmt.Sprintf("%s%04d", prefix, n) }
