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

	t.Run("killed during a model request, the request is made again and nothing else", func(t *testing.T) {
		arrived, release := m.holdAnswer(t, "model")
		if _, err := c.Start(ctxFor(t), "model", durable.Input{Text: "look model"}); err != nil {
			t.Fatal(err)
		}
		<-arrived
		w.kill()
		release()
		w = e.start(top, "node-a")
		res := finish(t, c, "model")
		if got := fx.count("look", "model"); got != 1 {
			t.Errorf("look ran %d times, want 1: a completed step was repeated", got)
		}
		if got := m.requests("model"); got != 3 {
			t.Errorf("the model got %d requests, want 3 (the interrupted one asked again)", got)
		}
		want := strings.ReplaceAll(history(t, plain), "plain", "model")
		if got := history(t, res); got != want {
			t.Errorf("history after the crash:\n%s\nwant, as without one:\n%s", got, want)
		}
	})

	t.Run("killed during a Read call, the call runs again", func(t *testing.T) {
		arrived, release := fx.holdNext(t, "look", "read")
		if _, err := c.Start(ctxFor(t), "read", durable.Input{Text: "look read"}); err != nil {
			t.Fatal(err)
		}
		<-arrived
		w.kill()
		release()
		w = e.start(top, "node-a")
		res := finish(t, c, "read")
		if got := fx.count("look", "read"); got != 2 {
			t.Errorf("look ran %d times, want 2: a Read call cut off runs again", got)
		}
		if got := m.requests("read"); got != 2 {
			t.Errorf("the model got %d requests, want 2: a completed step was repeated", got)
		}
		want := strings.ReplaceAll(history(t, plain), "plain", "read")
		if got := history(t, res); got != want {
			t.Errorf("history after the crash:\n%s\nwant, as without one:\n%s", got, want)
		}
	})

	t.Run("killed during a Write call, the call is reported as interrupted and not run again", func(t *testing.T) {
		arrived, release := fx.holdNext(t, "save", "write")
		if _, err := c.Start(ctxFor(t), "write", durable.Input{Text: "save write"}); err != nil {
			t.Fatal(err)
		}
		<-arrived
		w.kill()
		release()
		w = e.start(top, "node-a")
		res := finish(t, c, "write")
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
		arrived, release := fx.holdNext(t, "look", "moved")
		if _, err := c.Start(ctxFor(t), "moved", durable.Input{Text: "look moved"}); err != nil {
			t.Fatal(err)
		}
		<-arrived
		w.kill()
		release()
		e.start(top, "node-b", "TEST_RECOVER=node-a")
		res := finish(t, c, "moved")
		if got := fx.count("look", "moved"); got != 2 {
			t.Errorf("look ran %d times, want 2", got)
		}
		want := strings.ReplaceAll(history(t, plain), "plain", "moved")
		if got := history(t, res); got != want {
			t.Errorf("history after the move:\n%s\nwant, as without one:\n%s", got, want)
		}
	})
	m.allValid(t)
}
