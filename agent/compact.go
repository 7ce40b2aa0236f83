package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/llm"
)

// DefaultContextWindow and DefaultOutputLimit are assumed, in tokens, for
// a model that neither [Options] nor the table of package llm knows: small
// enough that compaction comes early rather than a request too late.
const (
	DefaultContextWindow = 32_000
	DefaultOutputLimit   = 4_096
)

// DefaultSummaryPrompt is the instruction that asks the model for the
// summary that replaces older turns when [Options.SummaryPrompt] is empty.
// %d is the most words the summary may have.
const DefaultSummaryPrompt = `Stop here and write a summary of the conversation so far. It will replace the conversation: whoever continues will read only your summary and the latest turns, so keep everything needed to carry on without asking again:
- the user's goals and requests, in their words where it matters;
- decisions made, and why;
- files read, created or changed (with their paths), commands run and what they showed;
- errors met and how they were solved;
- open questions;
- what the next step was.
If the conversation starts with an earlier summary, fold it in. Write plain prose and short lists, with no preamble and no tool calls, in at most %d words.`

// Compaction says what one compaction did.
type Compaction struct {
	// Before and After estimate the tokens of the next request before and
	// after the compaction.
	Before, After int
	// Messages counts the messages the summary replaced.
	Messages int
	// Summary is the text the model wrote.
	Summary string
	// Usage is the summary request's, with its cost; it counts in the run's
	// and the agent's usage.
	Usage llm.Usage
}

// Freed returns the tokens the compaction freed, as estimated.
func (c Compaction) Freed() int { return c.Before - c.After }

// ErrNothingToCompact is returned, wrapped, by [Agent.Compact] when the
// history has no turns old enough to summarise.
var ErrNothingToCompact = errors.New("nothing to compact")

// gauge relates the size of the last request to the input tokens the
// provider counted for it, so that the next request can be estimated.
type gauge struct {
	tokens int // 0: unknown
	bytes  int
}

// bytesPerToken is the estimate for text no provider has counted yet:
// lower than the usual 4 for English, so that estimates err on the large
// side.
const bytesPerToken = 3

// Compact replaces the older turns of the conversation with a summary the
// model writes, now, whatever the size of the history; a Run does it on
// its own before a step that would not fit (see [Options.NoCompact]). The
// most recent turns stay as they were. It sends OnEvent an
// [EventCompacted] and returns what it did.
//
// When it fails (the model failed, or wrote nothing) the history stays as
// it was. It returns an error wrapping [ErrNothingToCompact] when there is
// nothing old enough to summarise, and [ErrBusy] during a Run.
func (a *Agent) Compact(ctx context.Context) (Compaction, error) {
	if !a.running.TryLock() {
		return Compaction{}, ErrBusy
	}
	defer a.running.Unlock()
	return a.compact(ctx, nil)
}

// room returns the context window of the model and what a request may
// take of it, leaving room for the reply. The caller holds a.mu.
func (a *Agent) room() (window, usable int) {
	model := a.lastModel()
	info := a.info(model)
	window = a.cfg.ContextWindow
	if window <= 0 {
		window = info.Context
	}
	if window <= 0 {
		window = DefaultContextWindow
		if !a.guessed {
			a.guessed = true
			a.log.Debug("agent: the model's context window is not known; assuming the default", "model", model, "window", window)
		}
	}
	out := info.MaxOutput
	if out <= 0 {
		out = DefaultOutputLimit
	}
	reserve := a.cfg.MaxTokens
	if reserve <= 0 {
		reserve = min(out, 8192)
	}
	if a.cfg.ThinkingBudget >= reserve {
		reserve += a.cfg.ThinkingBudget
	}
	reserve = min(reserve, window/2)
	return window, window - reserve
}

// estimate returns the tokens the next request would take. The caller
// holds a.mu.
func (a *Agent) estimate() int {
	t, _ := a.estimateSize()
	return t
}

// estimateSize returns the estimate and the size in bytes of the next
// request. The caller holds a.mu.
func (a *Agent) estimateSize() (tokens, bytes int) {
	b := a.sizeOf(a.history)
	if a.gauge.tokens > 0 && b >= a.gauge.bytes {
		return a.gauge.tokens + a.tokensFor(b-a.gauge.bytes), b
	}
	return a.tokensFor(b), b
}

// tokensFor estimates the tokens of b bytes: at the rate the provider
// counted for the last request, else [bytesPerToken]. The caller holds
// a.mu.
func (a *Agent) tokensFor(b int) int {
	if g := a.gauge; g.tokens > 0 && g.bytes > 0 {
		return int((int64(b)*int64(g.tokens) + int64(g.bytes) - 1) / int64(g.bytes))
	}
	return (b + bytesPerToken - 1) / bytesPerToken
}

// sizeOf returns the bytes of a request with history h that the model
// reads, near enough: the system prompt, the tools and the content of every
// part from the latest reply that holds a provider's compaction block on
// (the provider drops what comes before it). The caller holds a.mu.
func (a *Agent) sizeOf(h []llm.Message) int {
	n := len(a.system)
	for _, s := range a.specs {
		n += len(s.Name) + len(s.Description) + len(s.Schema) + 16
	}
	for i := len(h) - 1; i >= 0; i-- {
		n += messageSize(h[i])
		if h[i].Role == llm.Assistant && compacted(h[i]) {
			break
		}
	}
	return n
}

// compacted reports whether a reply holds a compaction block of the
// provider's: Claude, with server-side compaction on, summarises the
// conversation itself, and reads nothing before that block.
func compacted(m llm.Message) bool {
	for _, p := range m.Parts {
		if p.Type != llm.PartProvider {
			continue
		}
		var block struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(p.Raw, &block) == nil && block.Type == "compaction" {
			return true
		}
	}
	return false
}

func messageSize(m llm.Message) int {
	n := 8
	for _, p := range m.Parts {
		n += 16 + len(p.Text) + len(p.ID) + len(p.Name) + len(p.Args) + len(p.Signature) + len(p.Data)
	}
	return n
}

// measure returns the size of a request about to be sent, unless makeRoom
// measured the same history just before; calibrate relates it to the
// tokens the provider counted.
func (r *run) measure(req *llm.Request) int {
	if r.sized > 0 {
		n := r.sized
		r.sized = 0
		return n
	}
	r.a.mu.Lock()
	defer r.a.mu.Unlock()
	return r.a.sizeOf(req.Messages)
}

func (a *Agent) calibrate(bytes int, u llm.Usage) {
	if u.Input <= 0 {
		return
	}
	a.mu.Lock()
	a.gauge = gauge{tokens: u.Input, bytes: bytes}
	a.mu.Unlock()
}

// makeRoom compacts the history before a step that would not fit. It
// reports an outcome to stop with when the step cannot go on.
func (r *run) makeRoom(ctx context.Context) (Outcome, bool) {
	a := r.a
	if a.cfg.NoCompact {
		return Outcome{}, false
	}
	a.mu.Lock()
	est, size := a.estimateSize()
	window, usable := a.room()
	a.mu.Unlock()
	if est <= usable*9/10 {
		r.sized = size // the request ask is about to send
		return Outcome{}, false
	}
	c, err := a.compact(ctx, r)
	switch {
	case err == nil && c.After <= usable:
		return Outcome{}, false
	case err == nil:
		r.step--
		return r.outcome(StopContextFull, "", fmt.Sprintf("the conversation does not fit the model's context window even after compaction: about %d tokens, and the window of %d keeps %d for the reply; the latest turns alone are too large (rewind, or start a new conversation)", c.After, window, window-usable)), true
	case ctx.Err() != nil:
		r.step--
		return r.outcome(StopCancelled, "", cancelReason(ctx)), true
	}
	a.log.Debug("agent: compaction failed", "tokens", est, "usable", usable, "err", err)
	if est <= usable {
		return Outcome{}, false // it still fits
	}
	r.step--
	return r.outcome(StopContextFull, "", fmt.Sprintf("the conversation (about %d tokens) no longer fits the model's context window (%d tokens, %d kept for the reply), and compacting it failed: %v; rewind, or start a new conversation", est, window, window-usable, err)), true
}

// compact summarises the older part of the history. r is the run it
// happens in, nil for [Agent.Compact]. The caller holds a.running.
func (a *Agent) compact(ctx context.Context, r *run) (Compaction, error) {
	a.mu.Lock()
	h := a.history
	before := a.estimate()
	_, usable := a.room()
	msgBytes := 0
	for _, m := range h {
		msgBytes += messageSize(m)
	}
	keep := min(usable, a.tokensFor(msgBytes)) / 4
	cut := a.cutPoint(h, keep)
	g := a.gauge
	system, specs := a.system, a.specs
	a.mu.Unlock()
	if cut <= 1 {
		return Compaction{}, fmt.Errorf("agent: compact: %w: the conversation has %d messages and the latest turn must stay", ErrNothingToCompact, len(h))
	}

	words := min(max(usable/16, 200), 3000)
	prompt := a.cfg.SummaryPrompt
	if prompt == "" {
		prompt = fmt.Sprintf(DefaultSummaryPrompt, words)
	}
	msgs := make([]llm.Message, cut, cut+1)
	copy(msgs, h[:cut])
	if last := msgs[cut-1]; last.Role == llm.User {
		parts := make([]llm.Part, 0, len(last.Parts)+1)
		msgs[cut-1] = llm.Message{Role: llm.User, Parts: append(append(parts, last.Parts...), llm.Text(prompt))}
	} else {
		msgs = append(msgs, llm.UserText(prompt))
	}
	// The same model, system prompt, tools and thinking as the steps
	// before: the provider's cache of that prefix serves the summary
	// request too, and thinking blocks in the history are read as usual.
	req := &llm.Request{
		Model:          a.cfg.Model,
		System:         system,
		Messages:       msgs,
		Tools:          specs,
		ToolChoice:     llm.ToolChoice{Mode: llm.ToolNone},
		MaxTokens:      words * 2,
		ThinkingBudget: a.cfg.ThinkingBudget,
	}
	resp, err := a.client.Send(ctx, req)
	if err != nil {
		return Compaction{}, fmt.Errorf("agent: compact: asking for a summary: %w", err)
	}
	if resp == nil {
		return Compaction{}, errors.New("agent: compact: the client returned no reply and no error")
	}
	model, _ := a.account(resp, nil)
	if r != nil {
		r.spend(model, resp.Usage, nil)
	}
	summary := strings.TrimSpace(resp.Text())
	if summary == "" {
		return Compaction{Usage: resp.Usage}, errors.New("agent: compact: the model wrote no summary")
	}
	// However the model counts words, the summary cannot grow from one
	// compaction to the next beyond this.
	summary = clip.String(summary, words*8)

	// A question right before the kept part stays with the summary, as it
	// was: the reply after it answers it, and it remains a turn to rewind.
	first := []llm.Part{llm.Text(summaryHeader + "\n\n" + summary)}
	if q := h[cut-1]; isQuestion(q) {
		first = append(first, q.Parts...)
	}
	next := make([]llm.Message, 0, 1+len(h)-cut)
	next = append(next, llm.Message{Role: llm.User, Parts: first})
	next = append(next, h[cut:]...)
	if err := validate(next); err != nil {
		return Compaction{Usage: resp.Usage}, fmt.Errorf("agent: compact: the compacted history would not be valid (%v); it was left as it was", err)
	}
	shift := cut - 1

	a.mu.Lock()
	a.history = next
	kept := a.checkpoints[:0:0]
	for _, c := range a.checkpoints {
		if c.Message >= cut {
			c.Message -= shift
			kept = append(kept, c)
		}
	}
	a.checkpoints = kept
	if g.tokens > 0 { // the rate stays: the next request is estimated from the kept part
		b := a.sizeOf(next)
		a.gauge = gauge{tokens: max(a.tokensFor(b), 1), bytes: b}
	}
	after := a.estimate()
	a.mu.Unlock()

	if r != nil {
		if r.mark.n -= shift; r.mark.n < 1 || r.mark.n == 1 && r.mark.parts >= 0 {
			// The run's question went into the summary's turn; a reply
			// of the run was kept after it.
			r.mark = mark{n: 1, parts: -1}
		}
		if r.last >= cut {
			r.last -= shift
		} else {
			r.last = -1
		}
	}
	c := Compaction{Before: before, After: after, Messages: cut, Summary: summary, Usage: resp.Usage}
	a.log.Debug("agent: compacted", "messages", cut, "before", before, "after", after)
	e := Event{Type: EventCompacted, Compaction: c}
	if r != nil {
		r.emit(e)
	} else if f := a.cfg.OnEvent; f != nil {
		f(e)
	}
	return c, nil
}

// cutPoint returns the index of the reply where the part of h kept as it is
// starts: the earliest reply whose suffix holds at most keep tokens, or,
// when even the last reply's does not, that one; then, when a later reply
// answers a question, that one, so that the cut falls between turns. -1
// means none.
// The caller holds a.mu.
func (a *Agent) cutPoint(h []llm.Message, keep int) int {
	cut, tail := -1, 0
	for i := len(h) - 1; i >= 1; i-- {
		tail += a.tokensFor(messageSize(h[i]))
		if h[i].Role != llm.Assistant {
			continue
		}
		if cut >= 0 && tail > keep {
			break
		}
		cut = i
	}
	for i := max(cut, 1); i < len(h); i++ {
		if h[i].Role == llm.Assistant && isQuestion(h[i-1]) {
			return i
		}
	}
	return cut
}

// isQuestion reports whether m is the person's text and nothing else: no
// tool results, no summary.
func isQuestion(m llm.Message) bool {
	if m.Role != llm.User {
		return false
	}
	for _, p := range m.Parts {
		if p.Type != llm.PartText || strings.HasPrefix(p.Text, summaryHeader) {
			return false
		}
	}
	return len(m.Parts) > 0
}

// isSummary reports whether m is a compaction's summary and nothing else.
func isSummary(m llm.Message) bool {
	return len(m.Parts) == 1 && m.Parts[0].Type == llm.PartText && strings.HasPrefix(m.Parts[0].Text, summaryHeader)
}
