package durable_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/durable"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func TestMistakesGetClearAnswers(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "hello"}))
	t.Cleanup(srv.Close)
	w := inProcess(t, func(ctx context.Context, in durable.Input) (durable.Parts, error) {
		client, err := llm.New(srv.Config(llm.Anthropic))
		return durable.Parts{Client: client}, err
	}, nil)
	c := w.Client()
	ctx := ctxFor(t)

	if r, err := w.Run(ctx, "hi", durable.Input{Text: "hi"}); err != nil || r.State != durable.Done {
		t.Fatalf("a plain run: %v, %s (%s)", err, r.State, r.Error)
	}

	t.Run("a run of a recipe no worker has fails, naming it", func(t *testing.T) {
		r, err := w.Run(ctx, "stray", durable.Input{Agent: "nobody", Text: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		if r.State != durable.Failed || !strings.Contains(r.Error, `"nobody"`) {
			t.Errorf("run is %s with error %q; want failed, naming the recipe", r.State, r.Error)
		}
	})
	t.Run("an id that is taken or holds a slash is refused", func(t *testing.T) {
		if _, err := c.Start(ctx, "hi", durable.Input{Text: "again"}); err == nil {
			t.Error("a second run with the id of the first was started")
		}
		if _, err := c.Start(ctx, "a/b", durable.Input{Text: "hi"}); err == nil || !strings.Contains(err.Error(), `"a/b"`) {
			t.Errorf("id a/b: %v; want an error naming it", err)
		}
	})
	t.Run("deciding about a run that waits for nothing says so", func(t *testing.T) {
		if err := c.Decide(ctx, "hi", durable.Verdict{}); !errors.Is(err, durable.ErrNotWaiting) {
			t.Errorf("Decide on a finished run: %v, want ErrNotWaiting", err)
		}
		if err := c.Decide(ctx, "ghost", durable.Verdict{}); !errors.Is(err, durable.ErrNoRun) {
			t.Errorf("Decide on no run: %v, want ErrNoRun", err)
		}
	})
	t.Run("the result of a run that is not done is refused", func(t *testing.T) {
		if _, err := c.Result(ctx, "stray"); err == nil || !strings.Contains(err.Error(), "failed") {
			t.Errorf("Result of a failed run: %v; want an error saying it failed", err)
		}
	})
	t.Run("a worker with no database is refused", func(t *testing.T) {
		if _, err := durable.NewWorker(ctx, &durable.Options{}); err == nil || !strings.Contains(err.Error(), "DatabaseURL") {
			t.Errorf("NewWorker with no database: %v; want an error naming DatabaseURL", err)
		}
	})
}
