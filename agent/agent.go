// Package agent is the loop between a model and tools: it asks the model,
// runs the tools the model calls, gives back the results, and repeats until
// the model answers. Around the loop it keeps the guard rails a person can
// trust.
//
//   - Each call's [tool.Risk] meets the agent's [Autonomy]: a call runs, is
//     refused, or waits for the [Approver] (yes, always, no).
//   - Optional hooks check the person's text, each call, and the final answer
//     ([Options.CheckInput], [Options.CheckCall], [Options.CheckOutput]).
//   - Unknown tools, bad arguments, tool errors, panics and oversized output
//     become failed calls the model reads; the turn goes on.
//   - The conversation stays on the agent and is always valid to send again,
//     even after a cancelled run; it saves to JSON and loads back.
//
// Tools come from [Agent.Add] or from a [ToolSource] such as an MCP session
// with [Agent.Connect];
// the loop does not tell them apart. Progress is reported to
// [Options.OnEvent]; the package knows nothing about terminals.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// DefaultMaxSteps is the step limit when [Options.MaxSteps] is 0.
const DefaultMaxSteps = 50

// DefaultMaxOutput is the tool output cap when [Options.MaxOutput] is 0.
const DefaultMaxOutput = 64 << 10

// Options sets up an [Agent]. A nil *Options, and the zero value of each
// field, mean the defaults.
type Options struct {
	// System is the system prompt. The instructions of connected MCP servers
	// are appended to it.
	System string
	// Model overrides the client's model; empty means the client's.
	Model string
	// MaxSteps bounds the model replies one Run asks for; 0 means
	// [DefaultMaxSteps]. Calls in the reply that reaches the limit are not
	// run: the model is told so, and Run stops with [StopStepLimit].
	MaxSteps int
	// MaxTokens caps each reply; 0 means the client's default.
	MaxTokens int
	// Autonomy says which calls run without asking; the zero value is [Ask].
	Autonomy Autonomy
	// NoStream asks for whole replies: text events come once per reply.
	NoStream bool
	// MaxOutput caps what the model reads from one tool call, in bytes; 0
	// means [DefaultMaxOutput]. Longer output is cut, with a note saying how
	// much, and the call counts as failed.
	MaxOutput int
	// ThinkingBudget, above 0, turns on extended thinking with that many
	// tokens.
	ThinkingBudget int
	// Approver is asked about calls the autonomy does not let run on their
	// own; nil declines them all.
	Approver Approver
	// OnEvent receives progress as it happens, one event at a time: on the
	// goroutine that called Run, or, while Read calls run at once, on theirs.
	// Nil means none. It may call [Agent.History] and [Agent.Usage] but not
	// Run. A sub-agent's events come here too, with Agent and Depth set.
	OnEvent func(Event)
	// Logger receives steps and tool calls at Debug; nil means none.
	Logger *slog.Logger
	// CheckInput, when set, sees the person's text before the model does. An
	// error refuses it: Run returns [StopRefused] with the error's message
	// as the reason, and the text is not added to the history.
	CheckInput func(ctx context.Context, text string) error
	// RiskOf, when set, says the risk of one call, which can be higher than
	// its tool's: a write to a file that runs code later (a VCS hook, a
	// program's own configuration) is better treated as [tool.Exec]. A
	// lower risk than the tool's is ignored. An approval of "always" holds
	// for calls of that tool up to the risk it was given at. c.Risk is the
	// tool's; c.Args may not have passed the schema when the call is not
	// going to run (the step limit, a cancelled run).
	RiskOf func(c Call) tool.Risk
	// CheckCall, when set, sees each tool call that passed its schema,
	// before autonomy and approval. An error refuses the call: it does not
	// run, and the model reads "refused: " and the error's message. It also
	// sees the calls of sub-agents ([Call.Agent] names them), from several
	// goroutines when sub-agents run at once.
	CheckCall func(ctx context.Context, c Call) error
	// CheckOutput, when set, sees the final text of a run before Run returns
	// it. It passes the text (returns it unchanged), replaces it (returns
	// another), or blocks it (returns an error: Run returns [StopRefused]
	// with the error's message and no text). The history keeps the text it
	// returned; a blocked text is removed from the history.
	CheckOutput func(ctx context.Context, text string) (string, error)
	// Name names the agent in traces; empty means none. A sub-agent's is
	// its [SubAgent.Name].
	Name string
	// MaxParallel bounds the Read calls of one reply that run at once; 0
	// means [DefaultMaxParallel], 1 runs every call one at a time.
	MaxParallel int
	// MaxDepth bounds the nesting of sub-agents ([AsTool]): a sub-agent of
	// the agent runs at depth 1, its own at depth 2; a call that would go
	// deeper fails. 0 means [DefaultMaxDepth].
	MaxDepth int
	// ContextWindow is the model's context window in tokens; 0 means the
	// one Models or the table of package llm gives for the model, else
	// [DefaultContextWindow].
	ContextWindow int
	// NoCompact turns off compaction before a step that would not fit the
	// context window; [Agent.Compact] still works.
	NoCompact bool
	// SummaryPrompt replaces [DefaultSummaryPrompt], the instruction that
	// asks the model for the summary a compaction puts in place of older
	// turns.
	SummaryPrompt string
	// Models tells what the program knows of models, by id: prices,
	// context windows and output limits that add to or override the table
	// of package llm ([llm.LookupModel]). Nil means the table alone.
	Models llm.Models
	// Checkpoints, when set, records what each Write call may change before
	// it runs, so that [Agent.Rewind] can restore it; nil means Rewind
	// takes back the conversation only.
	Checkpoints Checkpointer
}

// Stop says why a run ended. Its values are spelt like [llm.StopReason]'s:
// lower case, words joined by an underscore.
type Stop string

// The stop reasons.
const (
	// StopDone: the model answered.
	StopDone Stop = "done"
	// StopStepLimit: the run reached [Options.MaxSteps] replies.
	StopStepLimit Stop = "step_limit"
	// StopMaxTokens: the last reply reached the token cap. Tool calls in it
	// were not run and are not in the history.
	StopMaxTokens Stop = "max_tokens"
	// StopRefused: a guardrail hook or the model refused; see Reason.
	StopRefused Stop = "refused"
	// StopCancelled: the context ended the run.
	StopCancelled Stop = "cancelled"
	// StopContextFull: the conversation no longer fits the model's context
	// window and compaction could not make it fit; see Reason.
	StopContextFull Stop = "context_full"
)

// Outcome is how a run ended.
type Outcome struct {
	// Stop is why the run ended.
	Stop Stop
	// Steps counts the model replies of this run.
	Steps int
	// Text is the text of the last reply: the answer when Stop is
	// [StopDone], what had arrived when the run was cancelled.
	Text string
	// Usage counts the tokens of this run, and their cost.
	Usage llm.Usage
	// Costs breaks Usage down by model and by tool.
	Costs Costs
	// Reason explains any stop but [StopDone], in words a person can read.
	Reason string
}

// ErrBusy is returned by [Agent.Run] and [Agent.SetHistory] while another
// Run of the same agent is going on.
var ErrBusy = errors.New("agent: a Run is already going on with this agent; wait for it to return, or use another agent")

// Agent holds a conversation with a model and the tools the model may
// call. Its methods are safe to call from several goroutines, but Runs of
// one agent happen one at a time: a Run started while another is going on
// returns [ErrBusy].
type Agent struct {
	client llm.Client
	cfg    Options
	log    *slog.Logger

	running sync.Mutex // held for the whole of a Run

	mu      sync.Mutex // guards everything below
	history []llm.Message
	usage   llm.Usage
	tools   map[string]*entry
	order   []*entry
	specs   []llm.ToolSpec
	servers []server
	system  string
	always  map[string]tool.Risk // tool → the highest risk approved for good

	costs       Costs
	checkpoints []Checkpoint             // of the Write calls in the history, oldest first
	model       string                   // the model that answered last
	gauge       gauge                    // the last request's size and tokens
	guessed     bool                     // the context window was not known and was logged
	infos       map[string]llm.ModelInfo // by model id, looked up once
}

// New returns an agent that talks to the model through client; nil opts
// means the defaults.
func New(client llm.Client, opts *Options) *Agent {
	var cfg Options
	if opts != nil {
		cfg = *opts
	}
	if client == nil {
		panic("agent.New: the llm.Client is nil")
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Agent{
		client: client,
		cfg:    cfg,
		log:    log,
		tools:  map[string]*entry{},
		always: map[string]tool.Risk{},
		system: cfg.System,
	}
}

// Usage returns the tokens used by every run of the agent, and their cost
// ([Agent.Costs] breaks it down).
func (a *Agent) Usage() llm.Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.usage
}

// Run sends text to the model as the person's turn and runs the tools the
// model calls until it answers, the step limit is reached, or ctx ends.
//
// Run returns an error only when talking to the model failed (the Outcome
// then still counts the steps and usage so far); everything else, including
// cancellation, is an [Outcome]. It also returns [ErrBusy] when another Run
// of the agent is going on, and an error when text is empty and the
// conversation does not end with the person's turn (empty text continues a
// conversation that does, as after [StopStepLimit]).
//
// The history stays valid to send whatever happens: every tool call gets a
// result (calls that never ran read "cancelled: ..."), streamed text that
// reached OnEvent before a failure is kept as the assistant's turn, and a run
// that got nothing from the model leaves the history as it found it.
func (a *Agent) Run(ctx context.Context, text string) (Outcome, error) {
	if !a.running.TryLock() {
		return Outcome{}, ErrBusy
	}
	defer a.running.Unlock()
	r := &run{a: a, max: a.cfg.MaxSteps}
	r.top()
	return r.traced(ctx, text)
}

// run is the state of one Run.
type run struct {
	a     *Agent
	max   int
	step  int
	usage llm.Usage
	costs Costs
	sent  int // the size of the last request, for the gauge
	sized int // the size of the next request, when makeRoom measured it
	mark  mark
	last  int  // index in the history of this run's last assistant message, or -1
	held  bool // the final reply's text event waits for CheckOutput
	family
}

func (r *run) emit(e Event) {
	root := r.root
	if f := root.a.cfg.OnEvent; f != nil {
		e.Step, e.Agent, e.Depth = r.step, r.path, r.depth
		root.evmu.Lock()
		defer root.evmu.Unlock()
		f(e)
	}
}

func (r *run) do(ctx context.Context, text string) (Outcome, error) {
	a := r.a
	r.last = -1
	if a.cfg.CheckInput != nil {
		if err := a.cfg.CheckInput(ctx, text); err != nil {
			return Outcome{Stop: StopRefused, Reason: reason(err)}, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return Outcome{Stop: StopCancelled, Reason: cancelReason(ctx)}, nil
	}
	m, ok := a.pushUser(text)
	if !ok {
		return Outcome{}, errors.New("agent: the text is empty and the conversation does not end with the person's turn: give Run something to send")
	}
	r.mark = m
	defer r.tidy()
	if r.root == r {
		// A sub-agent's model shares its parent's observer.
		ctx = llm.WithRetryObserver(ctx, func(rt llm.Retry) { r.emit(Event{Type: EventRetrying, Retry: rt}) })
	}

	for {
		r.step++
		if out, stop := r.makeRoom(ctx); stop {
			return out, nil
		}
		resp, partial, err := r.ask(ctx)
		if err != nil {
			if partial != "" {
				r.last = a.pushAssistant(llm.Message{Role: llm.Assistant, Parts: []llm.Part{llm.Text(partial)}})
			}
			r.step--
			if ctx.Err() != nil {
				return r.outcome(StopCancelled, partial, cancelReason(ctx)), nil
			}
			a.log.Debug("agent: model failed", "step", r.step+1, "err", err)
			return r.outcome("", partial, ""), fmt.Errorf("agent: asking the model (step %d): %w", r.step+1, err)
		}
		msg, calls := tidyReply(resp, r.step)
		r.account(resp, calls)
		text := msg.Text()
		a.log.Debug("agent: reply", "step", r.step, "stop", resp.Stop, "calls", len(calls), "usage", resp.Usage)

		if resp.Stop == llm.StopMaxTokens && len(calls) > 0 {
			msg.Parts = dropCalls(msg.Parts)
			r.keep(msg)
			return r.finish(ctx, StopMaxTokens, text, "the reply reached the token limit in the middle of a tool call; the call was not run (raise MaxTokens, or ask for smaller steps)")
		}
		if len(calls) == 0 {
			r.keep(msg)
			switch resp.Stop {
			case llm.StopPause:
				// The provider paused a long turn: sending it back continues it.
				if r.step >= r.max {
					return r.finish(ctx, StopStepLimit, text, fmt.Sprintf("the run reached its limit of %d steps; run again to continue", r.max))
				}
				r.emit(Event{Type: EventStep, Usage: r.usage})
				continue
			case llm.StopMaxTokens:
				return r.finish(ctx, StopMaxTokens, text, "the reply reached the token limit (raise MaxTokens)")
			case llm.StopRefusal:
				return r.finish(ctx, StopRefused, text, "the model refused to answer")
			}
			return r.finish(ctx, StopDone, text, "")
		}

		r.last = a.pushAssistant(msg)
		var results []llm.Part
		if r.step >= r.max {
			why := fmt.Sprintf("not run: the run reached its limit of %d steps before this call could run; the user can continue the conversation", r.max)
			results = make([]llm.Part, len(calls))
			for i, c := range calls {
				r.emit(Event{Type: EventDeclined, Call: a.describe(c), Why: why})
				results[i] = llm.ToolResult(c.ID, why, true)
			}
		} else {
			results = r.runCalls(ctx, calls)
		}
		a.pushResults(results)
		if ctx.Err() != nil {
			r.emit(Event{Type: EventStep, Usage: r.usage})
			return r.outcome(StopCancelled, text, cancelReason(ctx)), nil
		}
		if r.step >= r.max {
			return r.finish(ctx, StopStepLimit, text, fmt.Sprintf("the run reached its limit of %d steps; run again to continue", r.max))
		}
		r.emit(Event{Type: EventStep, Usage: r.usage})
	}
}

// keep adds a final reply to the history, if there is anything in it to
// send back.
func (r *run) keep(msg llm.Message) {
	if keepable(msg) {
		r.last = r.a.pushAssistant(msg)
	}
}

// finish ends a run that got a reply: it applies CheckOutput, sends a text
// event held for it, and reports the last step.
func (r *run) finish(ctx context.Context, stop Stop, text, why string) (Outcome, error) {
	if check := r.a.cfg.CheckOutput; check != nil && text != "" {
		checked, err := check(ctx, text)
		switch {
		case err != nil:
			r.a.setText(r.last, "")
			stop, text, why = StopRefused, "", reason(err)
		case checked != text:
			r.a.setText(r.last, checked)
			text = checked
		}
	}
	if r.held && text != "" {
		r.emit(Event{Type: EventText, Text: text})
	}
	r.emit(Event{Type: EventStep, Usage: r.usage})
	return r.outcome(stop, text, why), nil
}

func (r *run) outcome(stop Stop, text, why string) Outcome {
	return Outcome{Stop: stop, Steps: r.step, Text: text, Usage: r.usage, Costs: r.costs, Reason: why}
}

// tidy leaves the history as the run found it when the model's side of the
// run left nothing in it.
func (r *run) tidy() {
	r.a.mu.Lock()
	defer r.a.mu.Unlock()
	for i := r.mark.n; i < len(r.a.history); i++ {
		if r.a.history[i].Role == llm.Assistant {
			return
		}
	}
	r.a.restore(r.mark)
}

// ask gets one reply, streamed unless NoStream, sending events as it goes.
// After a failure it returns the text that had been streamed.
func (r *run) ask(ctx context.Context) (*llm.Response, string, error) {
	a := r.a
	req := a.request()
	r.sent = r.measure(req)
	if a.cfg.NoStream {
		resp, err := a.client.Send(ctx, req)
		if err != nil {
			return nil, "", err
		}
		if resp == nil {
			return nil, "", errors.New("the client returned no reply and no error")
		}
		for _, p := range resp.Parts {
			if p.Type == llm.PartThinking && p.Text != "" {
				r.emit(Event{Type: EventThinking, Text: p.Text})
			}
		}
		// The reply that ends the run has its text checked before it is shown.
		final := r.step >= r.max || resp.Stop == llm.StopMaxTokens ||
			resp.Stop != llm.StopPause && len(resp.ToolCalls()) == 0
		r.held = final && a.cfg.CheckOutput != nil
		if t := resp.Text(); t != "" && !r.held {
			r.emit(Event{Type: EventText, Text: t})
		}
		return resp, "", nil
	}
	var partial strings.Builder
	for ev, err := range a.client.Stream(ctx, req) {
		if err != nil {
			return nil, partial.String(), err
		}
		switch ev.Type {
		case llm.EventText:
			partial.WriteString(ev.Text)
			r.emit(Event{Type: EventText, Text: ev.Text})
		case llm.EventThinking:
			r.emit(Event{Type: EventThinking, Text: ev.Text})
		case llm.EventDone:
			if ev.Response == nil {
				return nil, partial.String(), errors.New("the stream ended with no reply")
			}
			return ev.Response, "", nil
		}
	}
	return nil, partial.String(), llm.ErrStreamEnded
}

// request builds the next request from the history.
func (a *Agent) request() *llm.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := len(a.history)
	return &llm.Request{
		Model:          a.cfg.Model,
		System:         a.system,
		Messages:       a.history[:n:n],
		Tools:          a.specs,
		MaxTokens:      a.cfg.MaxTokens,
		ThinkingBudget: a.cfg.ThinkingBudget,
	}
}

// lastModel is the model that answered last, else the configured one. The
// caller holds a.mu.
func (a *Agent) lastModel() string {
	if a.model != "" {
		return a.model
	}
	return a.cfg.Model
}

func reason(err error) string {
	if s := err.Error(); s != "" {
		return s
	}
	return "refused without a reason"
}

func cancelReason(ctx context.Context) string {
	if c := context.Cause(ctx); c != nil && c != ctx.Err() {
		return "cancelled: " + c.Error()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "cancelled: the deadline passed"
	}
	return "cancelled"
}

// describe returns the Call a hook or event sees for a tool call part.
func (a *Agent) describe(p llm.Part) Call {
	c := Call{ID: p.ID, Name: p.Name, Args: p.Args, Risk: tool.Exec}
	if e := a.lookup(p.Name); e != nil {
		c.Risk = a.riskOf(c, e.t.Risk)
	}
	return c
}

// riskOf is the risk of call c of a tool of risk r: r, or more when
// [Options.RiskOf] says so.
func (a *Agent) riskOf(c Call, r tool.Risk) tool.Risk {
	c.Risk = r
	if a.cfg.RiskOf != nil {
		if more := a.cfg.RiskOf(c); more > r && more <= tool.Exec {
			return more
		}
	}
	return r
}
