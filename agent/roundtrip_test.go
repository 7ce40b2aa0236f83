package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
)

type wordArgs struct {
	Word string `json:"word" jsonschema:"the word to look up"`
}

func TestSameAnswerDirectlyAndOverMCP(t *testing.T) {
	lookup := tool.New("lookup", "looks a word up", tool.Read, func(ctx context.Context, in wordArgs) (string, error) {
		return in.Word + ": a small brown bird", nil
	})
	// The model calls whatever tool it is offered, and quotes its answer.
	script := func(r *llmtest.Request) llmtest.Reply {
		if res := r.LastToolResults(); len(res) > 0 {
			return llmtest.Reply{Text: "It means " + res[0].Text}
		}
		return llmtest.Reply{Calls: []llmtest.Call{{Name: r.Tools[0], Args: `{"word":"wren"}`}}}
	}
	type result struct {
		out   Outcome
		calls []llm.Part
		res   []llm.Part
		asked int
		sys   string
	}
	ask := func(t *testing.T, s setup, add func(a *Agent)) result {
		var r result
		a, srv := start(t, s, script, &Options{System: "Answer briefly.", Approver: func(context.Context, Call) Decision {
			r.asked++
			return No
		}})
		add(a)
		out, err := a.Run(t.Context(), "what is a wren?")
		if err != nil {
			t.Fatal(err)
		}
		req := lastRequest(t, srv)
		r.out, r.calls, r.res, r.sys = out, req.Messages[1].ToolCalls(), req.LastToolResults(), req.System
		return r
	}
	bothDialects(t, func(t *testing.T, s setup) {
		direct := ask(t, s, func(a *Agent) { a.Add(lookup) })
		served := ask(t, s, func(a *Agent) {
			srv := mcp.NewServer("words", "1.0.0", &mcp.ServerOptions{Instructions: "Look words up before answering."})
			srv.AddTools(lookup)
			sess, err := mcp.ConnectInProcess(t.Context(), "words", srv, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sess.Close() })
			if err := a.Connect(t.Context(), "words", sess); err != nil {
				t.Fatal(err)
			}
			if err := a.Connect(t.Context(), "words", sess); err == nil {
				t.Error("a second session under one name was accepted")
			}
		})
		if direct.out.Text != "It means wren: a small brown bird" || served.out.Text != direct.out.Text {
			t.Fatalf("answers differ:\n direct %+v\n served %+v", direct.out, served.out)
		}
		if direct.out.Steps != served.out.Steps || direct.asked != 0 || served.asked != 0 {
			t.Fatalf("steps %d and %d, asked %d and %d", direct.out.Steps, served.out.Steps, direct.asked, served.asked)
		}
		if len(direct.calls) != 1 || len(served.calls) != 1 ||
			direct.calls[0].Name != "lookup" || served.calls[0].Name != "mcp__words__lookup" ||
			string(direct.calls[0].Args) != string(served.calls[0].Args) {
			t.Fatalf("calls differ:\n direct %+v\n served %+v", direct.calls, served.calls)
		}
		if len(served.res) != 1 || served.res[0].Text != direct.res[0].Text || served.res[0].IsError {
			t.Fatalf("results differ: %+v and %+v", direct.res, served.res)
		}
		if want := "Answer briefly.\n\n# Instructions from the MCP server \"words\"\n\nLook words up before answering."; served.sys != want || direct.sys != "Answer briefly." {
			t.Errorf("system prompts:\n%q\n%q", direct.sys, served.sys)
		}
	})
}

func TestThinkingSurvivesTheRoundTripAndSaving(t *testing.T) {
	// Characters JSON escapes, base64 ones, and a multi-byte one.
	sig := "EqQBCkYIBxgC+/Kk==<&>\u2028é" + strings.Repeat("s", 200)
	for _, stream := range []bool{true, false} {
		s := setup{llm.Anthropic, stream}
		t.Run("in "+s.String(), func(t *testing.T) {
			script := llmtest.Replies(
				llmtest.Reply{Thinking: "The file will say.", Signature: sig, Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a"}`}}},
				llmtest.Reply{RedactedThinking: "opaque+data==", Text: "It says so."},
				llmtest.Reply{Text: "Still so."},
			)
			var ev events
			a, srv := start(t, s, script, &Options{ThinkingBudget: 2048, MaxTokens: 4096, OnEvent: ev.add})
			a.Add(reader())
			if _, err := a.Run(t.Context(), "what does a say?"); err != nil {
				t.Fatal(err)
			}
			want := llm.Thinking("The file will say.", sig)
			if got := lastRequest(t, srv).Messages[1].Parts[0]; !samePart(got, want) {
				t.Fatalf("the second request carries %+v", got)
			}
			if th := ev.of(EventThinking); len(th) == 0 || th[0].Text == "" {
				t.Errorf("thinking events: %+v", th)
			}

			// Save, load into a new agent, and continue.
			saved, err := json.Marshal(a.History())
			if err != nil {
				t.Fatal(err)
			}
			var h []llm.Message
			if err := json.Unmarshal(saved, &h); err != nil {
				t.Fatal(err)
			}
			b := New(a.client, &Options{ThinkingBudget: 2048, MaxTokens: 4096, NoStream: !s.stream})
			b.Add(reader())
			if err := b.SetHistory(h); err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(h, a.History(), func(x, y llm.Message) bool {
				xb, _ := json.Marshal(x)
				yb, _ := json.Marshal(y)
				return string(xb) == string(yb)
			}) {
				t.Fatal("the loaded history differs")
			}
			if _, err := b.Run(t.Context(), "still?"); err != nil {
				t.Fatal(err)
			}
			msgs := lastRequest(t, srv).Messages
			if got := msgs[1].Parts[0]; !samePart(got, want) {
				t.Fatalf("after loading, the request carries %+v", got)
			}
			if got := msgs[3].Parts[0]; !samePart(got, llm.RedactedThinking("opaque+data==")) {
				t.Fatalf("redacted thinking came back as %+v", got)
			}
		})
	}
}

func TestEventsArriveInOrder(t *testing.T) {
	everyWay(t, func(t *testing.T, s setup) {
		script := llmtest.Replies(
			llmtest.Reply{Text: "Let me look.", Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a"}`}}, Usage: llm.Usage{Input: 100, Output: 10}},
			llmtest.Reply{Text: "It says contents of a.", Usage: llm.Usage{Input: 150, Output: 20}},
		)
		var ev events
		a, _ := start(t, s, script, &Options{OnEvent: ev.add})
		a.Add(reader())
		out, err := a.Run(t.Context(), "read a")
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		texts := 0
		for _, e := range ev.all {
			if e.Type == EventText {
				texts++
			}
			if n := len(kinds); n > 0 && e.Type == EventText && kinds[n-1] == "text" {
				continue
			}
			kinds = append(kinds, e.Type.String()+map[bool]string{true: "", false: string(rune('0' + e.Step))}[e.Type == EventText])
		}
		want := "text calling1 returned1 step1 text step2"
		if got := strings.Join(kinds, " "); got != want {
			t.Fatalf("events: %s\nwant:   %s", got, want)
		}
		if s.stream && texts <= 2 || !s.stream && texts != 2 {
			t.Errorf("%d text events (streaming %v)", texts, s.stream)
		}
		if ev.text() != "Let me look.It says contents of a." {
			t.Errorf("text %q", ev.text())
		}
		steps := ev.of(EventStep)
		if steps[0].Usage != (llm.Usage{Input: 100, Output: 10, Cost: llm.Cost{Unpriced: 110}}) || steps[1].Usage != (llm.Usage{Input: 250, Output: 30, Cost: llm.Cost{Unpriced: 280}}) {
			t.Errorf("step usage: %+v, %+v", steps[0].Usage, steps[1].Usage)
		}
		if c := ev.of(EventCalling)[0].Call; c.Name != "read_file" || c.Risk != tool.Read || c.ID == "" {
			t.Errorf("calling %+v", c)
		}
		if r := ev.of(EventReturned)[0]; r.Output != "contents of a" || r.Failed {
			t.Errorf("returned %+v", r)
		}
		if out.Usage != steps[1].Usage {
			t.Errorf("outcome usage %+v", out.Usage)
		}
	})
}

func TestUsageAddsUpAcrossRuns(t *testing.T) {
	bothDialects(t, func(t *testing.T, s setup) {
		a, _ := start(t, s, llmtest.Replies(
			llmtest.Reply{Text: "one", Usage: llm.Usage{Input: 100, Output: 7}},
			llmtest.Reply{Text: "two", Usage: llm.Usage{Input: 120, Output: 9}},
		), &Options{})
		first, _ := a.Run(t.Context(), "1")
		second, _ := a.Run(t.Context(), "2")
		if first.Usage != (llm.Usage{Input: 100, Output: 7, Cost: llm.Cost{Unpriced: 107}}) || second.Usage != (llm.Usage{Input: 120, Output: 9, Cost: llm.Cost{Unpriced: 129}}) {
			t.Fatalf("per run: %+v, %+v", first.Usage, second.Usage)
		}
		if a.Usage() != (llm.Usage{Input: 220, Output: 16, Cost: llm.Cost{Unpriced: 236}}) {
			t.Fatalf("total %+v", a.Usage())
		}
	})
}

func samePart(x, y llm.Part) bool {
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

func TestConnectUnderALongNameStillCallsTheServersTool(t *testing.T) {
	srv := mcp.NewServer("words", "1.0.0", nil)
	srv.AddTools(tool.New("lookup", "looks a word up", tool.Read, func(ctx context.Context, in wordArgs) (string, error) {
		return in.Word + ": found", nil
	}))
	sess, err := mcp.ConnectInProcess(t.Context(), "words", srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	script := func(r *llmtest.Request) llmtest.Reply {
		if res := r.LastToolResults(); len(res) > 0 {
			return llmtest.Reply{Text: res[0].Text}
		}
		return llmtest.Reply{Calls: []llmtest.Call{{Name: r.Tools[0], Args: `{"word":"wren"}`}}}
	}
	a, model := start(t, setup{llm.Anthropic, true}, script, &Options{})
	name := "a server whose name is far too long for any provider's tool names"
	if err := a.Connect(t.Context(), name, sess); err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(t.Context(), "look up wren")
	if err != nil || out.Text != "wren: found" {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	offered := model.Requests()[0].Tools[0]
	if err := tool.CheckName(offered); err != nil || offered != mcpName(name, "lookup") {
		t.Fatalf("offered %q: %v", offered, err)
	}
}
