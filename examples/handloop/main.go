// Command handloop is an agent written by hand: send the conversation,
// run the tool calls of the reply, append their results, and repeat until
// the model answers. It is what agent.Run does, minus approval, events,
// history repair and limits; its tests check that both make the same
// calls and reach the same answer.
//
// It runs against a scripted model server on the loopback interface, so it
// needs no key and no network:
//
//	go run ./examples/handloop
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

// maxSteps bounds the replies one question may take.
const maxSteps = 10

// loop answers question with the model behind client and the given tools.
// It returns the model's final text.
func loop(ctx context.Context, client llm.Client, system string, tools []tool.Tool, question string, log io.Writer) (string, error) {
	specs := agent.ToolSpecs(tools...) // what the model is told about the tools
	history := []llm.Message{llm.UserText(question)}
	for step := 1; step <= maxSteps; step++ {
		resp, err := client.Send(ctx, &llm.Request{System: system, Messages: history, Tools: specs})
		if err != nil {
			return "", fmt.Errorf("step %d: %w", step, err)
		}
		reply := resp.Message()
		history = append(history, reply)
		calls := reply.ToolCalls()
		if len(calls) == 0 {
			return reply.Text(), nil // no calls: this is the answer
		}
		results := make([]llm.Part, len(calls))
		for i, call := range calls {
			fmt.Fprintf(log, "[tool] %s %s\n", call.Name, call.Args)
			results[i] = agent.CallTool(ctx, tools, call) // runs it; a failure is a result too
		}
		history = append(history, llm.Message{Role: llm.User, Parts: results})
	}
	return "", fmt.Errorf("no answer after %d steps", maxSteps)
}

type textArgs struct {
	Text string `json:"text" jsonschema:"the text"`
}

// demoTools are the tools of the demonstration: two that only read.
func demoTools() []tool.Tool {
	return []tool.Tool{
		tool.New("count_words", "Count the words of a text.", tool.Read,
			func(ctx context.Context, in textArgs) (string, error) {
				return fmt.Sprint(len(strings.Fields(in.Text))), nil
			}),
		tool.New("upper", "Write a text in capitals.", tool.Read,
			func(ctx context.Context, in textArgs) (string, error) {
				return strings.ToUpper(in.Text), nil
			}),
	}
}

// demoModel is the scripted model: it calls both tools in one reply, then
// answers with what they returned.
func demoModel(r *llmtest.Request) llmtest.Reply {
	if results := r.LastToolResults(); len(results) == 2 {
		return llmtest.Reply{Text: fmt.Sprintf("%s words; in capitals: %s.", results[0].Text, results[1].Text)}
	}
	return llmtest.Reply{Calls: []llmtest.Call{
		{Name: "count_words", Args: `{"text":"the quick brown fox"}`},
		{Name: "upper", Args: `{"text":"the quick brown fox"}`},
	}}
}

func main() {
	if err := run(context.Background(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "handloop:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, stdout, stderr io.Writer) error {
	srv := llmtest.NewServer(demoModel)
	defer srv.Close()
	client, err := llm.New(srv.Config(llm.Anthropic))
	if err != nil {
		return err
	}
	answer, err := loop(ctx, client, "Use the tools.", demoTools(), "How many words in 'the quick brown fox', and how does it look in capitals?", stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, answer)
	return nil
}
