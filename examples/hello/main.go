// Command hello runs an agent with one small tool against a scripted model
// server on the loopback interface, so it needs no key and no network: the
// model calls the tool, reads what it returned, and answers.
//
//	go run ./examples/hello
//
// To ask a real model instead, make the client from a preset and drop the
// server: cfg, err := llm.ConfigFromEnv("anthropic", nil), then llm.New(cfg).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

type wordsArgs struct {
	Text string `json:"text" jsonschema:"the text whose words to count"`
}

func main() {
	if err := run(context.Background(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
}

// run asks the question and prints the answer on stdout, the tool calls on
// stderr.
func run(ctx context.Context, stdout, stderr io.Writer) error {
	// The scripted model: first it calls count_words, then it answers with
	// what the tool returned.
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		if results := r.LastToolResults(); len(results) > 0 {
			return llmtest.Reply{Text: "The sentence has " + results[0].Text + " words."}
		}
		return llmtest.Reply{Calls: []llmtest.Call{{Name: "count_words", Args: `{"text":"the quick brown fox jumps over the lazy dog"}`}}}
	})
	defer srv.Close()

	client, err := llm.New(srv.Config(llm.Anthropic))
	if err != nil {
		return err
	}
	countWords := tool.New("count_words", "Count the words of a text.", tool.Read,
		func(ctx context.Context, in wordsArgs) (string, error) {
			return fmt.Sprint(len(strings.Fields(in.Text))), nil
		})

	a := agent.New(client, &agent.Options{
		System: "Answer in one sentence. Use the tools for counting.",
		OnEvent: func(e agent.Event) {
			if e.Type == agent.EventCalling {
				fmt.Fprintf(stderr, "[tool] %s %s\n", e.Call.Name, e.Call.Args)
			}
		},
	})
	a.Add(countWords)

	out, err := a.Run(ctx, "How many words are in 'the quick brown fox jumps over the lazy dog'?")
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, out.Text)
	return nil
}
