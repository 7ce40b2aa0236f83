package durable_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/durable"
	"github.com/bridle-dev/bridle/llm"
)

// A worker runs the runs; any process with a client starts them and
// decides about the calls they wait on.
func ExampleNewWorker() {
	ctx := context.Background()
	opts := &durable.Options{DatabaseURL: os.Getenv("BRIDLE_DATABASE_URL"), ExecutorID: "node-a"}
	w, err := durable.NewWorker(ctx, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	w.Register("helper", func(ctx context.Context, in durable.Input) (durable.Parts, error) {
		cfg, err := llm.ConfigFromEnv("anthropic", nil)
		if err != nil {
			return durable.Parts{}, err
		}
		client, err := llm.New(cfg)
		return durable.Parts{Client: client, Options: &agent.Options{System: "You tidy notes."}}, err
	})
	if err := w.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close(10 * time.Second)

	c := w.Client()
	id, err := c.Start(ctx, "", durable.Input{Agent: "helper", Text: "tidy the notes", ApprovalTimeout: 12 * time.Hour})
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := c.Wait(ctx, id)
	if err == nil && run.State == durable.Waiting {
		c.Decide(ctx, id, durable.Verdict{Decision: agent.Yes, By: "ana"})
	}
}
