package agent_test

import (
	"context"
	"fmt"
	"os"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func ExampleStore() {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Text: "Paris."},
		llmtest.Reply{Text: "About two million people."},
	))
	defer srv.Close()
	client, _ := llm.New(srv.Config(llm.Anthropic))
	dir, _ := os.MkdirTemp("", "sessions")
	defer os.RemoveAll(dir)
	store := &agent.Store{Dir: dir}

	// A first conversation, saved.
	a := agent.New(client, nil)
	a.Run(context.Background(), "What is the capital of France?")
	var s agent.Session
	a.Save(&s)
	if err := store.Save(&s); err != nil {
		fmt.Println(err)
		return
	}

	// Later: list the sessions, load the newest, and go on.
	list, _ := store.List()
	fmt.Println(list[0].Title, list[0].Messages)
	saved, _ := store.Load(list[0].ID)
	b := agent.New(client, nil)
	if err := b.Load(saved); err != nil {
		fmt.Println(err)
		return
	}
	out, _ := b.Run(context.Background(), "And its population?")
	fmt.Println(out.Text, len(b.History()))
	// Output:
	// What is the capital of France? 2
	// About two million people. 4
}
