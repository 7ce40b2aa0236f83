package durable_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/durable"
)

// setup starts a model, an effects server and a client on a new schema.
func setup(t *testing.T, autonomy string, concurrency int) (env, *model, *effects, *durable.Client) {
	t.Helper()
	dsn, schema := database(t)
	m, fx := newModel(t), newEffects(t)
	e := env{dsn: dsn, schema: schema, model: m.config().BaseURL, effects: fx.srv.URL, autonomy: autonomy, concurrency: concurrency}
	// The first worker creates the schema; the client needs it.
	return e, m, fx, nil
}

func newClient(t *testing.T, e env) *durable.Client {
	t.Helper()
	c, err := durable.NewClient(context.Background(), options(e.dsn, e.schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// finish waits for run id to be done and returns its result.
func finish(t *testing.T, c *durable.Client, id string) durable.Result {
	t.Helper()
	ctx := ctxFor(t)
	r, err := c.Wait(ctx, id, durable.Done)
	if err != nil {
		t.Fatalf("waiting for run %s: %v", id, err)
	}
	if r.State != durable.Done {
		t.Fatalf("run %s is %s (%s), want done", id, r.State, r.Error)
	}
	res, err := c.Result(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func history(t *testing.T, r durable.Result) string {
	b, err := json.Marshal(r.History)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAWorkerKilledMidRunIsResumedByTheNextOne(t *testing.T) {
	e, m, fx, _ := setup(t, "auto", 0)
	top := t
	w := e.start(t, "node-a")
	c := newClient(t, e)

	// A run nothing interrupts, to compare with.
	if _, err := c.Start(ctxFor(t), "plain", durable.Input{Text: "look plain"}); err != nil {
		t.Fatal(err)
	}
	plain := finish(t, c, "plain")

	// crash starts run id asking text, kills the worker once hold says the
	// step has arrived, lets the step go, starts the next worker with
	// restart, and returns the run's result.
	crash := func(t *testing.T, id, text string, hold func() (<-chan struct{}, func()), restart func()) durable.Result {
		t.Helper()
		arrived, release := hold()
		if _, err := c.Start(ctxFor(t), id, durable.Input{Text: text}); err != nil {
			t.Fatal(err)
		}
		<-arrived
		w.kill()
		release()
		restart()
		return finish(t, c, id)
	}
	again := func() { w = e.start(top, "node-a") }
	// asWithout compares run id's history with the uninterrupted one's.
	asWithout := func(t *testing.T, res durable.Result, id, after string) {
		t.Helper()
		want := strings.ReplaceAll(history(t, plain), "plain", id)
		if got := history(t, res); got != want {
			t.Errorf("history after the %s:\n%s\nwant, as without one:\n%s", after, got, want)
		}
	}

	t.Run("killed during a model request, the request is made again and nothing else", func(t *testing.T) {
		res := crash(t, "model", "look model", func() (<-chan struct{}, func()) { return m.holdAnswer(t, "model") }, again)
		if got := fx.count("look", "model"); got != 1 {
			t.Errorf("look ran %d times, want 1: a completed step was repeated", got)
		}
		if got := m.requests("model"); got != 3 {
			t.Errorf("the model got %d requests, want 3 (the interrupted one asked again)", got)
		}
		asWithout(t, res, "model", "crash")
	})

	t.Run("killed during a Read call, the call runs again", func(t *testing.T) {
		res := crash(t, "read", "look read", func() (<-chan struct{}, func()) { return fx.holdNext(t, "look", "read") }, again)
		if got := fx.count("look", "read"); got != 2 {
			t.Errorf("look ran %d times, want 2: a Read call cut off runs again", got)
		}
		if got := m.requests("read"); got != 2 {
			t.Errorf("the model got %d requests, want 2: a completed step was repeated", got)
		}
		asWithout(t, res, "read", "crash")
	})

	t.Run("killed during a Write call, the call is reported as interrupted and not run again", func(t *testing.T) {
		res := crash(t, "write", "save write", func() (<-chan struct{}, func()) { return fx.holdNext(t, "save", "write") }, again)
		if got := fx.count("save", "write"); got != 1 {
			t.Errorf("save ran %d times, want 1: an interrupted Write must not run again", got)
		}
		if got := m.requests("write"); got != 2 {
			t.Errorf("the model got %d requests, want 2", got)
		}
		if got := res.Outcome.Text; got != "finished: "+durable.Interrupted {
			t.Errorf("the model answered %q; want it to have read that the call was interrupted", got)
		}
		evs, err := c.Events(ctxFor(t), "write")
		if err != nil {
			t.Fatal(err)
		}
		var returned []string
		for _, ev := range evs {
			if ev.Type == "returned" {
				returned = append(returned, ev.Output)
			}
		}
		if len(returned) != 1 || returned[0] != durable.Interrupted {
			t.Errorf("stored returned events %q, want one saying the call was interrupted", returned)
		}
	})

	t.Run("killed for good, another machine takes its runs over", func(t *testing.T) {
		res := crash(t, "moved", "look moved", func() (<-chan struct{}, func()) { return fx.holdNext(t, "look", "moved") },
			func() { e.start(top, "node-b", "TEST_RECOVER=node-a") })
		if got := fx.count("look", "moved"); got != 2 {
			t.Errorf("look ran %d times, want 2", got)
		}
		asWithout(t, res, "moved", "move")
	})
	m.allValid(t)
}
