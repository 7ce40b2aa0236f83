package durable_test

import (
	"fmt"
	"testing"

	"github.com/bridle-dev/bridle/durable"
)

func TestTwoWorkersDrainOneQueueWithoutRunningAStepTwice(t *testing.T) {
	const runs, limit = 8, 2
	e, m, fx, _ := setup(t, "auto", limit)
	e.start(t, "node-a")
	e.start(t, "node-b")
	c := newClient(t, e)
	for i := range runs {
		if _, err := c.Start(ctxFor(t), fmt.Sprintf("q%d", i), durable.Input{Text: fmt.Sprintf("save q%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range runs {
		id := fmt.Sprintf("q%d", i)
		res := finish(t, c, id)
		if want := "finished: save " + id + ": value 7"; res.Outcome.Text != want {
			t.Errorf("run %s answered %q, want %q", id, res.Outcome.Text, want)
		}
		if got := fx.count("save", id); got != 1 {
			t.Errorf("save ran %d times for run %s, want 1", got, id)
		}
		if got := m.requests(id); got != 2 {
			t.Errorf("the model got %d requests for run %s, want 2", got, id)
		}
	}
	fx.mu.Lock()
	most := fx.most
	fx.mu.Unlock()
	if most > limit {
		t.Errorf("%d runs called a tool at once; the queue allows %d", most, limit)
	}
	list, err := c.Runs(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != runs {
		t.Errorf("Runs lists %d runs, want %d", len(list), runs)
	}
	for _, r := range list {
		if r.State != durable.Done || r.Queue != durable.DefaultQueue {
			t.Errorf("run %s is %s on queue %q, want done on %q", r.ID, r.State, r.Queue, durable.DefaultQueue)
		}
	}
	m.allValid(t)
}
