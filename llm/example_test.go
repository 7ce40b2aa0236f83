package llm_test

import (
	"context"
	"fmt"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func Example() {
	// A scripted server stands in for a provider here; with a real one,
	// start from cfg, err := llm.ConfigFromEnv("anthropic", nil).
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "Paris."}))
	defer srv.Close()

	client, err := llm.New(srv.Config(llm.Anthropic))
	if err != nil {
		panic(err)
	}
	req := &llm.Request{
		System:   "Answer in one word.",
		Messages: []llm.Message{llm.UserText("What is the capital of France?")},
	}
	for ev, err := range client.Stream(context.Background(), req) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch ev.Type {
		case llm.EventText:
			fmt.Print(ev.Text)
		case llm.EventDone:
			fmt.Println()
			fmt.Println("stop:", ev.Response.Stop)
		}
	}
	// Output:
	// Paris.
	// stop: end
}
