package durable

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// Input is what a run starts from. It is stored with the run, so it must
// hold no secrets: keys belong in the worker's [Recipe].
type Input struct {
	// Agent names the [Recipe] that builds the run's agent; empty means
	// "default".
	Agent string `json:"agent,omitempty"`
	// Queue is the queue the run waits in; empty means [DefaultQueue].
	Queue string `json:"queue,omitempty"`
	// Text is the person's turn.
	Text string `json:"text"`
	// History is the conversation before Text; nil starts afresh.
	History []llm.Message `json:"history,omitempty"`
	// ApprovalTimeout bounds how long a call waits for a decision before it
	// is declined; 0 means it waits until someone decides or the run is
	// cancelled.
	ApprovalTimeout time.Duration `json:"approval_timeout,omitempty"`
	// Labels are the caller's own, kept with the run for listing.
	Labels map[string]string `json:"labels,omitempty"`
}

// Parts are what a [Recipe] gives a run: the model client, the tools and
// the agent's options. The run wraps the client and the tools so that each
// request and call is a stored step, and sets Options.Approver and
// Options.OnEvent itself (the worker's [Options.OnEvent] sees the events).
// Calls run one at a time (Options.MaxParallel is 1), so that a replay
// meets the steps in the order they were stored. A sub-agent tool is one
// step; calls of the sub-agent that need approval are declined.
type Parts struct {
	// Client talks to the model. Required.
	Client llm.Client
	// Tools are the tools the model may call; nil means none.
	Tools []tool.Tool
	// Options set up the agent; nil means the defaults (autonomy Ask).
	Options *agent.Options
}

// Recipe builds the agent of a run. It is called each time a worker starts
// or resumes the run, so it must give the same tools and options for the
// same input; it must not act on the world (that is what tools are for).
type Recipe func(ctx context.Context, in Input) (Parts, error)

// State is where a run stands.
type State string

// The states of a run.
const (
	// Queued: waiting for a worker to take it from its queue.
	Queued State = "queued"
	// Running: a worker is running it, or will resume it after a crash.
	Running State = "running"
	// Waiting: a call waits for a decision ([Client.Decide]).
	Waiting State = "waiting"
	// Done: the run ended with an [agent.Outcome].
	Done State = "done"
	// Failed: talking to the model failed, or the run could not be built.
	Failed State = "failed"
	// Cancelled: someone cancelled it.
	Cancelled State = "cancelled"
)

// Run describes a run for listing.
type Run struct {
	// ID is the run's id.
	ID string `json:"id"`
	// Queue is the queue it was started on.
	Queue string `json:"queue"`
	// State is where it stands.
	State State `json:"state"`
	// Agent is the recipe's name.
	Agent string `json:"agent,omitempty"`
	// Created is when it was started.
	Created time.Time `json:"created"`
	// Updated is when its state last changed.
	Updated time.Time `json:"updated"`
	// Pending is the call that waits for a decision, when State is Waiting.
	Pending *agent.Call `json:"pending,omitempty"`
	// Deadline is when a waiting call will be declined; zero means never.
	Deadline time.Time `json:"deadline,omitzero"`
	// Labels are the input's labels.
	Labels map[string]string `json:"labels,omitempty"`
	// Error says why a failed run failed.
	Error string `json:"error,omitempty"`
}

// Result is how a finished run ended.
type Result struct {
	// Outcome is the agent's outcome.
	Outcome agent.Outcome `json:"outcome"`
	// History is the whole conversation, ready for the next run's Input.
	History []llm.Message `json:"history"`
}

// Event is something that happened in a run, as stored. A reply is stored
// whole, with its text, thinking and usage; streamed pieces go only to the
// live watcher. A Write or Exec call is stored before it runs ("calling")
// and when it returned; a Read call when it returned.
type Event struct {
	// Type is "reply" for a whole reply; the agent's event type in words
	// for calls ("calling", "returned", "declined"); "waiting" when the run
	// parked for a decision, and "decided" when the decision came.
	Type string `json:"type"`
	// Step is the agent's step number within its Run.
	Step int `json:"step,omitempty"`
	// Text is a reply's text, or who decided and why.
	Text string `json:"text,omitempty"`
	// Thinking is a reply's visible reasoning.
	Thinking string `json:"thinking,omitempty"`
	// Call is the call of calling, returned, declined, waiting and decided.
	Call *agent.Call `json:"call,omitempty"`
	// Output is what the model read back from a call.
	Output string `json:"output,omitempty"`
	// Failed marks a call that failed or did not run.
	Failed bool `json:"failed,omitempty"`
	// Why says why a call was declined.
	Why string `json:"why,omitempty"`
	// Decision is the decision of a decided event.
	Decision string `json:"decision,omitempty"`
	// Usage is the tokens of a reply.
	Usage *llm.Usage `json:"usage,omitempty"`
}

// Verdict is a decision about a waiting call.
type Verdict struct {
	// Decision is yes, always or no.
	Decision agent.Decision `json:"decision"`
	// By says who decided, for the record.
	By string `json:"by,omitempty"`
	// Note says why, for the record: it is stored with the decided event.
	Note string `json:"note,omitempty"`
}

// parked is what a segment stores when it stops for a decision.
type parked struct {
	Call     agent.Call `json:"call"`
	Step     int        `json:"step"` // the workflow step of the approval
	Deadline time.Time  `json:"deadline,omitzero"`
}

// segResult is a segment workflow's output: a finished run, or a parked one.
type segResult struct {
	Parked *parked `json:"parked,omitempty"`
	Result *Result `json:"result,omitempty"`
}

func jsonCall(c agent.Call) *agent.Call {
	c.Args = json.RawMessage(append([]byte(nil), c.Args...))
	return &c
}
