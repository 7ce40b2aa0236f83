package durable_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/durable"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

// inProcess starts a worker in the test process with recipe r.
func inProcess(t testing.TB, r durable.Recipe, onEvent func(string, agent.Event)) *durable.Worker {
	t.Helper()
	dsn, schema := database(t)
	opts := options(dsn, schema)
	opts.OnEvent = onEvent
	w, err := durable.NewWorker(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	w.Register("", r)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(5 * time.Second) })
	return w
}

func TestStreamedTextReachesTheWatcherAndTheWholeReplyIsStored(t *testing.T) {
	const answer = "The notes are in order, all forty of them, sorted by title."
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{{ID: "c1", Name: "count", Args: `{}`}}},
		llmtest.Reply{Text: answer},
	))
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	var pieces []string
	w := inProcess(t, func(ctx context.Context, in durable.Input) (durable.Parts, error) {
		client, err := llm.New(srv.Config(llm.OpenAI))
		return durable.Parts{Client: client, Tools: []tool.Tool{{
			Name: "count", Description: "Counts the notes.", Risk: tool.Read,
			Func: func(context.Context, json.RawMessage) (string, error) { return "40", nil },
		}}}, err
	}, func(run string, e agent.Event) {
		if e.Type == agent.EventText {
			mu.Lock()
			pieces = append(pieces, e.Text)
			mu.Unlock()
		}
	})
	r, err := w.Run(ctxFor(t), "live", durable.Input{Text: "are the notes in order?"})
	if err != nil {
		t.Fatal(err)
	}
	if r.State != durable.Done {
		t.Fatalf("run is %s (%s), want done", r.State, r.Error)
	}
	mu.Lock()
	got := strings.Join(pieces, "")
	n := len(pieces)
	mu.Unlock()
	if got != answer || n < 2 {
		t.Errorf("the watcher got %d pieces making %q; want the answer in several pieces", n, got)
	}
	evs, err := w.Client().Events(ctxFor(t), "live")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range evs {
		types = append(types, e.Type)
	}
	if want := "reply returned reply"; strings.Join(types, " ") != want {
		t.Errorf("stored events %q, want %q", strings.Join(types, " "), want)
	}
	if last := evs[len(evs)-1]; last.Text != answer || last.Usage == nil || last.Usage.Output == 0 {
		t.Errorf("the stored reply is %q with usage %v, want the whole answer %q with its usage", last.Text, last.Usage, answer)
	}
	res, err := w.Client().Result(ctxFor(t), "live")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome.Text != answer || len(res.History) != 4 {
		t.Errorf("result %q with %d messages, want the answer and 4 messages", res.Outcome.Text, len(res.History))
	}
	if _, err := w.Client().Get(ctxFor(t), "nothing"); err == nil {
		t.Error("Get found a run that was never started")
	}
}

func TestTheReadCallsOfOneReplyAreStepsInTheOrderAsked(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{{ID: "a", Name: "get", Args: `{}`}, {ID: "b", Name: "get", Args: `{}`}, {ID: "c", Name: "get", Args: `{}`}}},
		llmtest.Reply{Text: "three"},
	))
	t.Cleanup(srv.Close)
	w := inProcess(t, func(ctx context.Context, in durable.Input) (durable.Parts, error) {
		client, err := llm.New(srv.Config(llm.Anthropic))
		return durable.Parts{Client: client, Tools: []tool.Tool{{
			Name: "get", Description: "Gets.", Risk: tool.Read,
			Func: func(context.Context, json.RawMessage) (string, error) { return "x", nil },
		}}, Options: &agent.Options{MaxParallel: 4}}, err
	}, nil)
	r, err := w.Run(ctxFor(t), "reads", durable.Input{Text: "get three"})
	if err != nil || r.State != durable.Done {
		t.Fatalf("run: %v, %s (%s)", err, r.State, r.Error)
	}
	evs, err := w.Client().Events(ctxFor(t), "reads")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range evs {
		if e.Type == "returned" {
			ids = append(ids, e.Call.ID)
		}
	}
	if got := strings.Join(ids, " "); got != "a b c" {
		t.Errorf("returned events for calls %q, want \"a b c\": calls of a durable run go one at a time, in order", got)
	}
}
