package durable

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// Interrupted is what the model reads for a Write or Exec call that was
// running when its worker stopped: the call is not run again.
const Interrupted = "interrupted: the worker running this call stopped before it finished, so it may or may not have taken effect; it was not run again. Check what it did before you try it again."

// The stream and event keys of a segment workflow.
const (
	eventsKey   = "events"
	pendingKey  = "pending"
	decisionKey = "decision"
)

// forever is the delay of a gate with no deadline: decided only by a person.
const forever = 100 * 365 * 24 * time.Hour

var errParked = errors.New("the run waits for a decision")

// A run is a chain of segment workflows: "<run>", "<run>/1", "<run>/2", ...
// A segment that needs a decision ends, leaving a gate "<run>/gate<k>"
// delayed until the deadline; the decision (or the deadline) runs the gate,
// which forks the parked segment into segment k from the approval's step.
func segmentID(run string, k int) string {
	if k == 0 {
		return run
	}
	return run + "/" + strconv.Itoa(k)
}

func gateID(run string, k int) string { return run + "/gate" + strconv.Itoa(k) }

// splitID returns the run and segment of a segment or gate id; gate is
// true for a gate.
func splitID(id string) (run string, k int, gate bool) {
	run, rest, ok := strings.Cut(id, "/")
	if !ok {
		return run, 0, false
	}
	if n, ok := strings.CutPrefix(rest, "gate"); ok {
		k, _ = strconv.Atoi(n)
		return run, k, true
	}
	k, _ = strconv.Atoi(rest)
	return run, k, false
}

// session is one execution of a segment workflow: the agent's client, tools
// and approver go through it to the engine.
type session struct {
	w     *Worker
	dc    dbos.Context
	run   string
	seg   int
	in    Input
	nonce string // tells this execution's steps from earlier ones'

	cancel    context.CancelCauseFunc
	parked    *parked
	err       error // an engine failure: the segment fails with it
	inStep    bool  // events now come from inside a step: live only
	replaying bool  // the last step was replayed: events are not sent live again
}

// segment is the workflow of one segment of a run.
func (w *Worker) segment(dc dbos.Context, in Input) (segResult, error) {
	id, err := dbos.GetWorkflowID(dc)
	if err != nil {
		return segResult{}, err
	}
	run, seg, _ := splitID(id)
	recipe := w.recipe(in.Agent)
	if recipe == nil {
		return segResult{}, fmt.Errorf("durable: no recipe %q on this worker: register it with Worker.Register", in.Agent)
	}
	parts, err := recipe(dc, in)
	if err != nil {
		return segResult{}, fmt.Errorf("durable: recipe %q: %w", in.Agent, err)
	}
	if parts.Client == nil {
		return segResult{}, fmt.Errorf("durable: recipe %q gave no llm.Client", in.Agent)
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	s := &session{w: w, dc: dc, run: run, seg: seg, in: in, nonce: hex.EncodeToString(nonce[:])}

	var opts agent.Options
	if parts.Options != nil {
		opts = *parts.Options
	}
	opts.Approver = s.approve
	opts.OnEvent = s.event
	// Calls run one at a time, so that a replay meets the steps in order.
	opts.MaxParallel = 1
	a := agent.New(&stepClient{s: s, inner: parts.Client}, &opts)
	tools := make([]tool.Tool, len(parts.Tools))
	for i, t := range parts.Tools {
		tools[i] = s.wrap(t)
	}
	a.Add(tools...)
	if in.History != nil {
		if err := a.SetHistory(in.History); err != nil {
			return segResult{}, fmt.Errorf("durable: the run's history: %w", err)
		}
	}

	ctx, cancel := context.WithCancelCause(dc)
	defer cancel(nil)
	s.cancel = cancel
	out, runErr := a.Run(ctx, in.Text)
	if s.err != nil {
		return segResult{}, s.err
	}
	if p := s.parked; p != nil {
		return s.park(p)
	}
	if runErr != nil {
		return segResult{}, runErr
	}
	return segResult{Result: &Result{Outcome: out, History: a.History()}}, nil
}

// park ends a segment that waits for a decision: it records the call and
// leaves a gate delayed until the deadline.
func (s *session) park(p *parked) (segResult, error) {
	delay := forever
	if s.in.ApprovalTimeout > 0 {
		delay = s.in.ApprovalTimeout
		// The deadline is read in a step so that a replay keeps it.
		at, err := dbos.RunAsStep(s.dc, func(context.Context) (time.Time, error) {
			return time.Now().Add(delay).UTC(), nil
		}, dbos.WithStepName("deadline"))
		if err != nil {
			return segResult{}, err
		}
		p.Deadline = at
		delay = time.Until(at)
	}
	if err := dbos.SetEvent(s.dc, pendingKey, *p); err != nil {
		return segResult{}, err
	}
	if err := dbos.WriteStream(s.dc, eventsKey, Event{Type: "waiting", Call: jsonCall(p.Call)}); err != nil {
		return segResult{}, err
	}
	self, _ := dbos.GetWorkflowID(s.dc)
	g := gateInput{Run: s.run, Seg: s.seg + 1, From: self, Step: p.Step, Queue: s.in.queue(), Call: p.Call}
	_, err := dbos.RunWorkflow(s.dc, s.w.gate, g,
		dbos.WithQueue(s.w.gates), dbos.WithWorkflowID(gateID(s.run, s.seg+1)), dbos.WithDelay(max(delay, time.Millisecond)))
	if err != nil {
		return segResult{}, fmt.Errorf("durable: parking run %s: %w", s.run, err)
	}
	return segResult{Parked: p}, nil
}

func (in Input) queue() string {
	if in.Queue == "" {
		return DefaultQueue
	}
	return in.Queue
}

// fail stops the run on an engine failure.
func (s *session) fail(err error) {
	if s.err == nil {
		s.err = fmt.Errorf("durable: run %s: %w", s.run, err)
		s.cancel(s.err)
	}
}

// event sends an agent event to the live watcher and stores it. Streamed
// pieces, retries and anything after the run parked are not stored.
func (s *session) event(e agent.Event) {
	if s.parked != nil || s.err != nil {
		return
	}
	if f := s.w.opts.OnEvent; f != nil && !s.replaying {
		f(s.run, e)
	}
	if s.inStep {
		return
	}
	// Each stored event is a commit: a Read call is stored once it
	// returned, a call that changes something also before it runs; text,
	// thinking and usage are stored with the whole reply.
	switch {
	case e.Type == agent.EventCalling && e.Call.Risk != tool.Read,
		e.Type == agent.EventReturned, e.Type == agent.EventDeclined:
		s.write(Event{Type: e.Type.String(), Step: e.Step, Call: jsonCall(e.Call), Output: e.Output, Failed: e.Failed, Why: e.Why})
	}
}

func (s *session) write(d Event) {
	if err := dbos.WriteStream(s.dc, eventsKey, d); err != nil {
		s.fail(err)
	}
}

// step runs fn as a stored step; events fn sends go only to the live
// watcher.
func step[R any](s *session, name string, fn func(context.Context) (R, error)) (R, error) {
	ran := false
	s.inStep = true
	r, err := dbos.RunAsStep(s.dc, func(ctx context.Context) (R, error) {
		ran = true
		return fn(ctx)
	}, dbos.WithStepName(name))
	s.inStep = false
	s.replaying = !ran
	return r, err
}

// approve is the agent's approver: a decision given to this segment's gate
// answers; without one the run parks.
func (s *session) approve(ctx context.Context, c agent.Call) agent.Decision {
	if s.inStep {
		// A sub-agent's call, inside its parent's tool step: a run cannot
		// park there.
		return agent.No
	}
	at, err := dbos.GetStepID(s.dc)
	if err != nil {
		s.fail(err)
		return agent.No
	}
	at++ // the step of the GetEvent below, where a fork starts
	got, err := dbos.GetEvent[gateDecision](s.dc, gateID(s.run, s.seg), decisionKey, 0)
	if err != nil && !errors.Is(err, dbos.ErrTimeout) {
		s.fail(err)
		return agent.No
	}
	if err == nil && got.Step == at && got.Call == c.ID {
		v := got.Verdict
		// The parked segment's own waiting event is not in this one's stream.
		s.write(Event{Type: "waiting", Call: jsonCall(c)})
		s.write(Event{Type: "decided", Call: jsonCall(c), Decision: v.Decision.String(), Text: v.By, Why: v.Note})
		return v.Decision
	}
	s.parked = &parked{Call: c, Step: at}
	s.cancel(errParked)
	return agent.No
}

// stepClient makes each model request a stored step.
type stepClient struct {
	s     *session
	inner llm.Client
}

func (c *stepClient) Send(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	return c.ask(ctx, req, nil)
}

func (c *stepClient) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		open := true
		resp, err := c.ask(ctx, req, func(ev llm.Event) bool {
			open = open && yield(ev, nil)
			return open
		})
		if !open {
			return
		}
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		yield(llm.Event{Type: llm.EventDone, Response: resp}, nil)
	}
}

// ask gets one reply as a step, streaming its pieces to forward (when not
// nil) as they come, and stores the whole reply as an event.
func (c *stepClient) ask(ctx context.Context, req *llm.Request, forward func(llm.Event) bool) (*llm.Response, error) {
	s := c.s
	resp, err := step(s, "model", func(context.Context) (*llm.Response, error) {
		// The agent's ctx carries its retry observer; it ends with the workflow's.
		if forward == nil {
			return c.inner.Send(ctx, req)
		}
		for ev, err := range c.inner.Stream(ctx, req) {
			if err != nil {
				return nil, err
			}
			switch ev.Type {
			case llm.EventText, llm.EventThinking:
				if !forward(ev) {
					return nil, errors.New("the reader stopped reading the stream")
				}
			case llm.EventDone:
				if ev.Response == nil {
					return nil, errors.New("the stream ended with no reply")
				}
				return ev.Response, nil
			}
		}
		return nil, llm.ErrStreamEnded
	})
	if err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, errors.New("the stored reply is empty")
	}
	u := resp.Usage
	d := Event{Type: "reply", Text: resp.Text(), Usage: &u}
	for _, p := range resp.Parts {
		if p.Type == llm.PartThinking {
			d.Thinking += p.Text
		}
	}
	s.write(d)
	return resp, nil
}

// toolResult is a tool call's stored result.
type toolResult struct {
	Text   string `json:"text"`
	Failed bool   `json:"failed,omitempty"`
}

// wrap makes each call of t a stored step. A Write or Exec call first
// stores a mark with this execution's nonce: a mark from an earlier
// execution without a result means the call was cut off while running.
func (s *session) wrap(t tool.Tool) tool.Tool {
	orig, err := t.Prepare()
	if err != nil {
		return t // agent.Add reports it
	}
	t.Func = func(ctx context.Context, args json.RawMessage) (string, error) {
		var mark string
		if orig.Risk != tool.Read {
			m, err := step(s, "begin:"+orig.Name, func(context.Context) (string, error) { return s.nonce, nil })
			if err != nil {
				s.fail(err)
				return "", err
			}
			mark = m
		}
		r, err := step(s, "tool:"+orig.Name, func(context.Context) (toolResult, error) {
			if orig.Risk != tool.Read && mark != s.nonce {
				return toolResult{Text: Interrupted, Failed: true}, nil
			}
			out, err := orig.Call(ctx, args)
			if err != nil {
				return toolResult{Text: err.Error(), Failed: true}, nil
			}
			return toolResult{Text: out}, nil
		})
		if err != nil {
			s.fail(err)
			return "", err
		}
		if r.Failed {
			return "", errors.New(r.Text)
		}
		return r.Text, nil
	}
	return t
}
