package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/bridle-dev/bridle/llm"
)

// The history keeps these invariants, so that it can always be sent:
// it starts with the person's turn, roles alternate, no message is empty,
// every tool call has a JSON object for arguments and is answered in the
// next message, and every tool result answers a call of the message before.
// A new person's text joins a trailing person's turn (tool results, or a
// question that got no reply) rather than starting a second one.

// History returns a copy of the conversation so far, oldest first. It is
// JSON-ready: encoding/json saves it, and [Agent.SetHistory] loads it back,
// thinking signatures included.
func (a *Agent) History() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return copyHistory(a.history)
}

// SetHistory replaces the conversation, for instance with one saved from
// [Agent.History]; nil starts afresh. It returns an error naming the first
// problem when h could not be sent to a model: a role other than user and
// assistant, a conversation that does not start with the user, two turns in
// a row from one side, an empty message, a tool call that is not answered in
// the next message or a result that answers no call. Approvals given with
// [Always] and the usage are kept; checkpoints for [Agent.Rewind] are not.
// It returns [ErrBusy] during a Run.
func (a *Agent) SetHistory(h []llm.Message) error {
	if err := validate(h); err != nil {
		return err
	}
	if !a.running.TryLock() {
		return ErrBusy
	}
	defer a.running.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history = copyHistory(h)
	a.checkpoints = nil
	a.gauge = gauge{}
	return nil
}

// validate reports the first reason why h could not be sent to a model as
// a conversation, or nil. The history of an agent always passes.
func validate(h []llm.Message) error {
	var pending map[string]bool // calls of the previous message, until answered
	for i, m := range h {
		if m.Role != llm.User && m.Role != llm.Assistant {
			return fmt.Errorf("agent: message %d has role %q: use %q or %q", i, m.Role, llm.User, llm.Assistant)
		}
		if i == 0 && m.Role != llm.User {
			return fmt.Errorf("agent: message 0 is from the %s: a conversation starts with the %s", m.Role, llm.User)
		}
		if i > 0 && h[i-1].Role == m.Role {
			return fmt.Errorf("agent: messages %d and %d are both from the %s: roles must alternate (join the two into one message)", i-1, i, m.Role)
		}
		if len(m.Parts) == 0 {
			return fmt.Errorf("agent: message %d has no parts", i)
		}
		var calls map[string]bool
		for j, p := range m.Parts {
			switch {
			case p.Type == llm.PartToolCall && m.Role == llm.Assistant:
				if p.ID == "" || p.Name == "" {
					return fmt.Errorf("agent: message %d part %d is a tool call without an id or a name", i, j)
				}
				if len(bytes.TrimSpace(p.Args)) > 0 && !isObject(p.Args) {
					return fmt.Errorf("agent: message %d part %d: the arguments of tool call %q are not a JSON object", i, j, p.ID)
				}
				if calls[p.ID] {
					return fmt.Errorf("agent: message %d has two tool calls with id %q", i, p.ID)
				}
				if calls == nil {
					calls = map[string]bool{}
				}
				calls[p.ID] = true
			case p.Type == llm.PartToolResult && m.Role == llm.User:
				if !pending[p.ID] {
					return fmt.Errorf("agent: message %d part %d answers tool call %q, which message %d does not make (or another part already answered it)", i, j, p.ID, i-1)
				}
				delete(pending, p.ID)
			case p.Type == llm.PartText, p.Type == llm.PartProvider:
			case (p.Type == llm.PartThinking || p.Type == llm.PartRedactedThinking) && m.Role == llm.Assistant:
			default:
				return fmt.Errorf("agent: message %d part %d: a %s message cannot hold a %q part", i, j, m.Role, p.Type)
			}
		}
		if len(pending) > 0 {
			return fmt.Errorf("agent: message %d does not answer tool call %s of message %d", i, firstKey(pending), i-1)
		}
		pending = calls
	}
	if len(pending) > 0 {
		return fmt.Errorf("agent: the last message makes tool call %s and nothing answers it", firstKey(pending))
	}
	return nil
}

func firstKey(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return fmt.Sprintf("%q", keys[0])
}

func copyHistory(h []llm.Message) []llm.Message {
	if h == nil {
		return nil
	}
	out := make([]llm.Message, len(h))
	for i, m := range h {
		parts := slices.Clone(m.Parts)
		for j := range parts {
			parts[j].Args = bytes.Clone(parts[j].Args)
		}
		out[i] = llm.Message{Role: m.Role, Parts: parts}
	}
	return out
}

// mark is the state of the history before a run, to go back to.
type mark struct {
	n     int // length
	parts int // parts of the last message, when the run's text joined it
}

// pushUser adds the person's text, joining a trailing person's turn. Empty
// text adds nothing; ok is false when there would then be nothing to send.
func (a *Agent) pushUser(text string) (m mark, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := len(a.history)
	m = mark{n: n, parts: -1}
	trailing := n > 0 && a.history[n-1].Role == llm.User
	if strings.TrimSpace(text) == "" {
		return m, trailing
	}
	if trailing {
		last := &a.history[n-1]
		m.parts = len(last.Parts)
		last.Parts = append(slices.Clip(last.Parts), llm.Text(text))
		return m, true
	}
	a.history = append(a.history, llm.UserText(text))
	return m, true
}

// restore goes back to mark m. The caller holds a.mu.
func (a *Agent) restore(m mark) {
	clear(a.history[m.n:])
	a.history = a.history[:m.n]
	if m.parts >= 0 {
		last := &a.history[m.n-1]
		last.Parts = last.Parts[:m.parts:m.parts]
	}
}

// pushAssistant adds a reply and returns its index. A reply that continues a
// paused one joins it.
func (a *Agent) pushAssistant(msg llm.Message) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := len(a.history)
	if n > 0 && a.history[n-1].Role == llm.Assistant {
		last := &a.history[n-1]
		last.Parts = append(slices.Clip(last.Parts), msg.Parts...)
		return n - 1
	}
	a.history = append(a.history, msg)
	return n
}

// pushResults adds the answers to the calls of the last reply.
func (a *Agent) pushResults(results []llm.Part) {
	a.mu.Lock()
	a.history = append(a.history, llm.Message{Role: llm.User, Parts: results})
	a.mu.Unlock()
}

// setText replaces the text of the reply at index i (-1: none); empty text
// removes it, and the reply with it when nothing else is left to send.
func (a *Agent) setText(i int, text string) {
	if i < 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	msg := a.history[i]
	parts := make([]llm.Part, 0, len(msg.Parts)+1)
	placed := text == ""
	for _, p := range msg.Parts {
		if p.Type != llm.PartText {
			parts = append(parts, p)
			continue
		}
		if !placed {
			parts = append(parts, llm.Text(text))
			placed = true
		}
	}
	if !placed {
		parts = append(parts, llm.Text(text))
	}
	msg.Parts = parts
	if keepable(msg) {
		a.history[i] = msg
		return
	}
	if i == len(a.history)-1 {
		a.history[i] = llm.Message{}
		a.history = a.history[:i]
	}
}

// tidyReply makes a reply fit to keep: empty text parts go, every call gets
// an id unique within the reply and a JSON object for arguments. It returns
// the message to keep and the calls as the model wrote them (ids fixed), to
// run.
func tidyReply(resp *llm.Response, step int) (llm.Message, []llm.Part) {
	parts := make([]llm.Part, 0, len(resp.Parts))
	var calls []llm.Part
	var seen map[string]bool
	for i, p := range resp.Parts {
		switch p.Type {
		case llm.PartText:
			if p.Text == "" {
				continue
			}
		case llm.PartToolCall:
			if p.ID == "" || seen[p.ID] {
				p.ID = fmt.Sprintf("call_%d_%d", step, i)
			}
			if len(resp.Parts) > 1 {
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[p.ID] = true
			}
			if p.Malformed() {
				// Run against the text the model wrote, so its failed
				// result says what was wrong; keep "{}" in the history.
				p.Args, p.Text = json.RawMessage(p.Text), ""
			}
			if len(bytes.TrimSpace(p.Args)) == 0 {
				p.Args = json.RawMessage("{}")
			}
			calls = append(calls, p)
			if !isObject(p.Args) {
				// The model's text is kept in the call the model runs
				// against; the history needs something every provider
				// takes back.
				p.Args = json.RawMessage("{}")
			}
		}
		parts = append(parts, p)
	}
	return llm.Message{Role: llm.Assistant, Parts: parts}, calls
}

// dropCalls returns parts without tool calls.
func dropCalls(parts []llm.Part) []llm.Part {
	return slices.DeleteFunc(parts, func(p llm.Part) bool { return p.Type == llm.PartToolCall })
}

// keepable reports whether a reply has something to send back: text, a
// tool call or a provider's own blocks. Thinking alone is not kept.
func keepable(msg llm.Message) bool {
	for _, p := range msg.Parts {
		if p.Type == llm.PartText || p.Type == llm.PartToolCall || p.Type == llm.PartProvider {
			return true
		}
	}
	return false
}

// isObject reports whether b is a JSON object.
func isObject(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}
