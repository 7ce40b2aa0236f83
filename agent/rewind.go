package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// Checkpointer keeps what Write calls change, so that [Agent.Rewind] can
// put it back. The program supplies it in [Options.Checkpoints]; [Files]
// is one that keeps copies of the files a call names.
type Checkpointer interface {
	// Checkpoint is called before a Write call runs, after it was
	// approved. It records what the call may change and returns a function
	// the agent calls once the call has returned (whether it failed or
	// not); that function returns the record to keep, JSON that sessions
	// save. An error from Checkpoint keeps the call from running: the model
	// reads it. An error from the function leaves the call without a
	// checkpoint.
	Checkpoint(ctx context.Context, c Call) (after func() (json.RawMessage, error), err error)
	// Restore puts back what the records say, given newest first. It
	// restores everything or nothing: when something cannot be restored,
	// such as a file changed by someone else since the agent wrote it, it
	// changes nothing and returns an error that names it (a
	// [*ConflictError] for changed files).
	Restore(ctx context.Context, records []json.RawMessage) error
}

// Checkpoint is what an agent's [Checkpointer] recorded for one Write call.
type Checkpoint struct {
	// Message is the index in the history of the reply that made the call.
	Message int `json:"message"`
	// Call is the call's id and Tool the tool's name.
	Call string `json:"call"`
	Tool string `json:"tool"`
	// Record is what the Checkpointer returned.
	Record json.RawMessage `json:"record"`
}

// ConflictError reports files that changed since the agent last wrote
// them, so a rewind would lose someone else's work. Nothing was restored.
type ConflictError struct {
	// Paths are the files, as the checkpoints name them.
	Paths []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("cannot restore: changed since the agent wrote them: %s; nothing was restored (undo those changes, or keep the files as they are)", strings.Join(e.Paths, ", "))
}

// summaryHeader starts the text part a compaction puts in place of the
// turns it replaced; it is not a turn of its own.
const summaryHeader = "[Summary of the earlier conversation]"

// turn is where a person's turn starts in the history: a text part of a
// user message.
type turn struct{ msg, part int }

// turns returns where each of the person's turns starts, oldest first. The
// summary of a compaction is not a turn.
func turns(h []llm.Message) []turn {
	var out []turn
	for i, m := range h {
		if m.Role != llm.User {
			continue
		}
		for j, p := range m.Parts {
			if p.Type == llm.PartText && !strings.HasPrefix(p.Text, summaryHeader) {
				out = append(out, turn{i, j})
			}
		}
	}
	return out
}

// Turns returns how many of the person's turns the history holds that
// [Agent.Rewind] can take back (turns replaced by a compaction's summary
// are not among them).
func (a *Agent) Turns() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(turns(a.history))
}

// Rewind takes the conversation back n of the person's turns: each turn's
// question, the replies and the tool calls that followed go. Before that,
// it has [Options.Checkpoints] restore what the Write calls of those turns
// changed, newest first. When that fails, a file changed since for
// instance, Rewind returns the error (a [*ConflictError] names the files)
// and neither the history nor any file changes. It returns the text of the
// earliest question taken back, for the person to edit and send again.
//
// It returns [ErrBusy] during a Run, and an error when n is below 1 or
// above [Agent.Turns].
func (a *Agent) Rewind(ctx context.Context, n int) (string, error) {
	if n < 1 {
		return "", fmt.Errorf("agent: rewind %d turns: give a number of turns from 1", n)
	}
	if !a.running.TryLock() {
		return "", ErrBusy
	}
	defer a.running.Unlock()

	a.mu.Lock()
	ts := turns(a.history)
	if n > len(ts) {
		a.mu.Unlock()
		return "", fmt.Errorf("agent: rewind %d turns: the conversation holds %d that can be taken back", n, len(ts))
	}
	cut := ts[len(ts)-n]
	question := a.history[cut.msg].Parts[cut.part].Text
	var records []json.RawMessage
	keep := len(a.checkpoints)
	for i := len(a.checkpoints) - 1; i >= 0 && a.checkpoints[i].Message > cut.msg; i-- {
		records = append(records, a.checkpoints[i].Record)
		keep = i
	}
	cp := a.cfg.Checkpoints
	a.mu.Unlock()

	if len(records) > 0 {
		if cp == nil {
			return "", fmt.Errorf("agent: rewind %d turns: they hold %d checkpoints but Options.Checkpoints is not set to restore them; nothing changed", n, len(records))
		}
		if err := cp.Restore(ctx, records); err != nil {
			return "", fmt.Errorf("agent: rewind %d turns: %w", n, err)
		}
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	m := &a.history[cut.msg]
	if cut.part == 0 {
		clear(a.history[cut.msg:])
		a.history = a.history[:cut.msg]
	} else {
		m.Parts = slices.Clip(m.Parts[:cut.part])
		clear(a.history[cut.msg+1:])
		a.history = a.history[:cut.msg+1]
	}
	clear(a.checkpoints[keep:])
	a.checkpoints = a.checkpoints[:keep]
	a.gauge = gauge{}
	return question, nil
}

// checkpoint records a Write call's checkpoint before it runs, when the
// agent has a Checkpointer. It returns the function to call once the call
// returned, or why the call may not run.
func (r *run) checkpoint(ctx context.Context, c Call) (done func(), why string) {
	a := r.a
	cp := a.cfg.Checkpoints
	if cp == nil || c.Risk != tool.Write {
		return func() {}, ""
	}
	after, err := cp.Checkpoint(ctx, c)
	if err != nil {
		return nil, "not run: the checkpoint to undo this call could not be made: " + reason(err)
	}
	msg := r.last
	return func() {
		rec, err := after()
		if err != nil {
			a.log.Debug("agent: checkpoint", "tool", c.Name, "call", c.ID, "err", err)
			return
		}
		if !json.Valid(rec) {
			a.log.Debug("agent: checkpoint", "tool", c.Name, "call", c.ID, "err", errors.New("the record is not JSON"))
			return
		}
		a.mu.Lock()
		a.checkpoints = append(a.checkpoints, Checkpoint{Message: msg, Call: c.ID, Tool: c.Name, Record: rec})
		a.mu.Unlock()
	}, ""
}
