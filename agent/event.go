package agent

import (
	"fmt"

	"github.com/bridle-dev/bridle/llm"
)

// EventType says what an [Event] reports.
type EventType int

// The kinds of event, in the order they usually happen within a step.
const (
	// EventText carries a piece of the model's reply in Text. Streaming,
	// pieces arrive as the model writes; with [Options.NoStream], once per
	// reply.
	EventText EventType = iota + 1
	// EventThinking carries a piece of the model's visible reasoning in Text.
	EventThinking
	// EventCalling says a tool is about to run: Call, with its risk.
	EventCalling
	// EventReturned says a tool ran: Call, Output (what the model reads) and
	// Failed.
	EventReturned
	// EventDeclined says a call was not run: Call and Why (what the model
	// reads).
	EventDeclined
	// EventRetrying says the model client is about to retry or repair a
	// request: Retry.
	EventRetrying
	// EventStep says a step ended (one reply and the calls it asked for):
	// Step is its number within the run, Usage the run's usage so far.
	EventStep
	// EventCompacted says older turns were replaced by a summary:
	// Compaction, with the tokens freed.
	EventCompacted
)

var eventNames = [...]string{
	EventText:      "text",
	EventThinking:  "thinking",
	EventCalling:   "calling",
	EventReturned:  "returned",
	EventDeclined:  "declined",
	EventRetrying:  "retrying",
	EventStep:      "step",
	EventCompacted: "compacted",
}

// String returns the event type in lower case: "text", "calling", ...
func (t EventType) String() string {
	if t > 0 && int(t) < len(eventNames) {
		return eventNames[t]
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event is something that happened during [Agent.Run], delivered to
// [Options.OnEvent] as it happens. Which fields mean something depends on
// Type.
type Event struct {
	Type EventType
	// Text is a piece of reply text or thinking.
	Text string
	// Call is the tool call of EventCalling, EventReturned and EventDeclined.
	Call Call
	// Output is what the model reads back from a call that ran.
	Output string
	// Failed marks a call that ran and failed (or was cut to the output cap).
	Failed bool
	// Why says why a call was declined.
	Why string
	// Retry describes the retry of EventRetrying.
	Retry llm.Retry
	// Usage is the usage of the run so far, on EventStep.
	Usage llm.Usage
	// Compaction describes the compaction of EventCompacted.
	Compaction Compaction
	// Step is the step number within the run, from 1, on every event; a
	// sub-agent's events count the sub-agent's steps.
	Step int
	// Agent names the sub-agent the event comes from ("research", or
	// "research/search" when nested); empty for the agent's own events.
	Agent string
	// Depth is the sub-agent's depth: 0 for the agent's own events, 1 for a
	// sub-agent's, 2 for a sub-agent's sub-agent's.
	Depth int
	// Batch, on EventCalling and EventReturned, is nonzero when the call ran
	// at the same time as others: calls with the same Batch ran together.
	Batch int
}
