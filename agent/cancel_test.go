package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

// sent returns the messages of the last request, with OpenAI's separate
// user message after tool results joined back into one turn, as the agent
// keeps them.
func sent(t *testing.T, srv *llmtest.Server) []llm.Message {
	t.Helper()
	var out []llm.Message
	for _, m := range lastRequest(t, srv).Messages {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			out[n-1].Parts = append(out[n-1].Parts, m.Parts...)
			continue
		}
		out = append(out, m)
	}
	return out
}

func TestCancelledMidStreamThenNextRunSendsAValidHistory(t *testing.T) {
	bothDialects(t, func(t *testing.T, s setup) {
		script := llmtest.Replies(
			llmtest.Reply{Text: "The first half, then the second half", Fault: &llmtest.Fault{DropAfter: 4, Stall: true}},
			llmtest.Reply{Text: "Here it is again."},
		)
		ctx, cancel := context.WithCancel(t.Context())
		var ev events
		a, srv := start(t, s, script, &Options{OnEvent: func(e Event) {
			ev.add(e)
			if e.Type == EventText {
				cancel()
			}
		}})
		out, err := a.Run(ctx, "tell me")
		if err != nil {
			t.Fatal(err)
		}
		seen := ev.text()
		if out.Stop != StopCancelled || seen == "" || out.Text != seen {
			t.Fatalf("outcome = %+v after text events %q", out, seen)
		}
		mustValid(t, a)

		out, err = a.Run(t.Context(), "again please")
		if err != nil {
			t.Fatalf("the next run failed: %v", err)
		}
		if out.Text != "Here it is again." {
			t.Fatalf("outcome = %+v", out)
		}
		msgs := sent(t, srv)
		if len(msgs) != 3 || msgs[0].Text() != "tell me" || msgs[1].Text() != seen || msgs[2].Text() != "again please" {
			t.Fatalf("the next run sent:\n%s", dump(msgs))
		}
	})
}

func TestCancelledMidToolAnswersEveryCall(t *testing.T) {
	bothDialects(t, func(t *testing.T, s setup) {
		ctx, cancel := context.WithCancel(t.Context())
		slow := tool.Tool{Name: "slow", Risk: tool.Read, Func: func(ctx context.Context, _ json.RawMessage) (string, error) {
			cancel() // the person presses Ctrl-C while it runs
			<-ctx.Done()
			return "", ctx.Err()
		}}
		ran := 0
		script := llmtest.Replies(
			llmtest.Reply{Text: "Working.", Calls: []llmtest.Call{{Name: "slow"}, {Name: "t"}}},
			llmtest.Reply{Text: "Carrying on."},
		)
		// One at a time: the second call waits for the first, and so never runs.
		a, srv := start(t, s, script, &Options{MaxParallel: 1})
		a.Add(slow, counter("t", tool.Read, &ran))
		out, err := a.Run(ctx, "work")
		if err != nil {
			t.Fatal(err)
		}
		if out.Stop != StopCancelled || out.Steps != 1 || out.Text != "Working." {
			t.Fatalf("outcome = %+v", out)
		}
		if ran != 0 {
			t.Fatal("a call after the cancellation ran")
		}
		mustValid(t, a)

		if _, err := a.Run(t.Context(), "go on"); err != nil {
			t.Fatalf("the next run failed: %v", err)
		}
		msgs := sent(t, srv)
		if len(msgs) != 3 {
			t.Fatalf("the next run sent:\n%s", dump(msgs))
		}
		res := msgs[2].Parts
		if len(res) != 3 || res[0].Type != llm.PartToolResult || res[1].Type != llm.PartToolResult || res[2].Text != "go on" {
			t.Fatalf("the next run sent:\n%s", dump(msgs))
		}
		for _, r := range res[:2] {
			if !strings.Contains(r.Text, "cancelled: the user stopped the run") {
				t.Errorf("result %q", r.Text)
			}
		}
	})
}

func TestCancelledWhileAskingDeclines(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	f := script(reply(call("c1", "w", `{}`), call("c2", "w", `{}`)))
	runs := 0
	a := New(f, &Options{Approver: func(ctx context.Context, c Call) Decision {
		cancel()
		<-ctx.Done()
		return Yes // a careless approver: cancellation still wins
	}})
	a.Add(counter("w", tool.Write, &runs))
	out, _ := a.Run(ctx, "go")
	if out.Stop != StopCancelled || runs != 0 {
		t.Fatalf("outcome %+v, runs %d", out, runs)
	}
	mustValid(t, a)
}
