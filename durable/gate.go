package durable

import (
	"context"
	"errors"
	"fmt"

	"github.com/bridle-dev/bridle/agent"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// gateInput is what a gate knows about the call it waits on.
type gateInput struct {
	Run   string     `json:"run"`
	Seg   int        `json:"seg"`  // the segment the decision starts
	From  string     `json:"from"` // the parked segment
	Step  int        `json:"step"` // its approval step
	Queue string     `json:"queue"`
	Call  agent.Call `json:"call"`
}

// gateDecision is the event a gate sets for the segment it starts.
type gateDecision struct {
	Step    int     `json:"step"`
	Call    string  `json:"call"`
	Verdict Verdict `json:"verdict"`
}

// gate runs when a decision arrives or the deadline passes: it records the
// verdict and forks the parked segment from its approval step, on the
// run's queue.
func (w *Worker) gate(dc dbos.Context, g gateInput) (string, error) {
	v, err := dbos.Recv[Verdict](dc, decisionKey, 0)
	switch {
	case errors.Is(err, dbos.ErrTimeout):
		v = Verdict{Decision: agent.No, By: "deadline", Note: "no one decided before the deadline"}
	case err != nil:
		return "", err
	}
	if err := dbos.SetEvent(dc, decisionKey, gateDecision{Step: g.Step, Call: g.Call.ID, Verdict: v}); err != nil {
		return "", err
	}
	next := segmentID(g.Run, g.Seg)
	_, err = dbos.RunAsStep(dc, func(ctx context.Context) (string, error) {
		_, err := dbos.ForkWorkflow[segResult](w.dc, dbos.ForkWorkflowInput{
			OriginalWorkflowID: g.From,
			ForkedWorkflowID:   next,
			StartStep:          uint(g.Step),
			QueueName:          g.Queue,
		})
		if err != nil {
			// A gate that stopped after forking forks again: the fork is there.
			if _, e := dbos.RetrieveWorkflow[segResult](w.dc, next); e == nil {
				return next, nil
			}
			return "", fmt.Errorf("durable: resuming run %s: %w", g.Run, err)
		}
		return next, nil
	}, dbos.WithStepName("resume"))
	return v.Decision.String(), err
}
