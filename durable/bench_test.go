package durable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/durable"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

// BenchmarkOverhead runs the same runs with a plain agent and as durable
// runs, on an in-memory model, so the difference is what storing the steps
// costs. Runs: "text" is one model request; "read" and "write" are two
// requests and one call of that risk; "read10" is two requests and ten
// Read calls in one reply. Per Read call: (read10-read)/9; per model
// request: read - text - one Read call.
func BenchmarkOverhead(b *testing.B) {
	calls := func(risk string, n int) llmtest.Script {
		return func(req *llmtest.Request) llmtest.Reply {
			if len(req.LastToolResults()) > 0 || n == 0 {
				return llmtest.Reply{Text: "done"}
			}
			cs := make([]llmtest.Call, n)
			for i := range cs {
				cs[i] = llmtest.Call{ID: fmt.Sprintf("c%d", i), Name: risk, Args: `{}`}
			}
			return llmtest.Reply{Calls: cs}
		}
	}
	noop := func(context.Context, json.RawMessage) (string, error) { return "ok", nil }
	tools := []tool.Tool{
		{Name: "read", Description: "Reads.", Risk: tool.Read, Func: noop},
		{Name: "write", Description: "Writes.", Risk: tool.Write, Func: noop},
	}
	runs := []struct {
		name string
		risk string
		n    int
	}{{"text", "", 0}, {"read", "read", 1}, {"write", "write", 1}, {"read10", "read", 10}}

	for _, r := range runs {
		srv := llmtest.NewServer(calls(r.risk, r.n))
		cfg := srv.Config(llm.Anthropic)
		cfg.HTTPClient = &http.Client{Transport: srv.Transport()}
		client, err := llm.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("plain/"+r.name, func(b *testing.B) {
			for b.Loop() {
				a := agent.New(client, &agent.Options{Autonomy: agent.Auto})
				a.Add(tools...)
				if _, err := a.Run(context.Background(), "go"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("durable/"+r.name, func(b *testing.B) {
			w := inProcess(b, func(context.Context, durable.Input) (durable.Parts, error) {
				return durable.Parts{Client: client, Tools: tools, Options: &agent.Options{Autonomy: agent.Auto}}, nil
			}, nil)
			i := 0
			for b.Loop() {
				i++
				run, err := w.Run(context.Background(), fmt.Sprintf("b%d", i), durable.Input{Text: "go"})
				if err != nil || run.State != durable.Done {
					b.Fatalf("run %d: %v (%s %s)", i, err, run.State, run.Error)
				}
			}
		})
		srv.Close()
	}
}
