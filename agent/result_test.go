package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

type summary struct {
	Files int    `json:"files" jsonschema:"how many files there are"`
	Main  string `json:"main"`
}

// wantsOutput reports whether a request asks for structured output.
func wantsOutput(r *llmtest.Request) bool {
	var b map[string]json.RawMessage
	json.Unmarshal(r.Body, &b)
	return b["output_config"] != nil || b["response_format"] != nil
}

func TestResultEndsARunWithATypedValue(t *testing.T) {
	everyWay(t, func(t *testing.T, s setup) {
		script := func(r *llmtest.Request) llmtest.Reply {
			switch {
			case wantsOutput(r):
				return llmtest.Reply{Text: `{"files":2,"main":"main.go"}`}
			case len(r.LastToolResults()) > 0:
				return llmtest.Reply{Text: "Two files; main.go is the entry point."}
			}
			return llmtest.Reply{Calls: []llmtest.Call{{Name: "list", Args: `{}`}}}
		}
		list := tool.New("list", "lists files", tool.Read, func(context.Context, struct{}) (string, error) { return "main.go\ngo.mod", nil })
		a, srv := start(t, s, script, &Options{})
		a.Add(list)
		got, out, err := Result[summary](context.Background(), a, "what is here?")
		if err != nil || got != (summary{2, "main.go"}) {
			t.Fatalf("result %+v, %v", got, err)
		}
		if out.Stop != StopDone || out.Steps != 3 || out.Text != `{"files":2,"main":"main.go"}` {
			t.Fatalf("outcome %+v", out)
		}
		last := lastRequest(t, srv)
		if !wantsOutput(last) || !strings.Contains(string(last.Body), `"files"`) || len(last.Tools) != 1 {
			t.Fatalf("the last request %s lacks the schema or the declared tools", last.Body)
		}
		h := a.History()
		if len(h) != 6 || h[4].Text() != resultPrompt || h[5].Text() != out.Text {
			t.Fatalf("history %+v, want the request for the result and the answer at its end", h)
		}
		if err := validate(h); err != nil {
			t.Fatalf("the history cannot be sent: %v", err)
		}
		if a.Usage() != out.Usage {
			t.Fatalf("agent usage %+v, outcome usage %+v", a.Usage(), out.Usage)
		}
	})
}

func TestResultSaysWhenTheAnswerDoesNotMatch(t *testing.T) {
	bothDialects(t, func(t *testing.T, s setup) {
		a, _ := start(t, s, llmtest.Replies(llmtest.Reply{Text: "done"}, llmtest.Reply{Text: `{"files":"two"}`}), &Options{})
		_, out, err := Result[summary](context.Background(), a, "what is here?")
		var oe *llm.OutputError
		if !errors.As(err, &oe) || oe.Text != `{"files":"two"}` || out.Text != oe.Text {
			t.Fatalf("err %v, outcome %+v; want an *llm.OutputError with the text", err, out)
		}
	})
}

func TestResultAsksNothingMoreWhenTheRunDidNotFinish(t *testing.T) {
	a, srv := start(t, setup{llm.Anthropic, true}, llmtest.Replies(llmtest.Reply{Calls: []llmtest.Call{{Name: "list"}}}), &Options{MaxSteps: 1})
	a.Add(tool.New("list", "lists files", tool.Read, func(context.Context, struct{}) (string, error) { return "a", nil }))
	got, out, err := Result[summary](context.Background(), a, "what is here?")
	if err != nil || out.Stop != StopStepLimit || got != (summary{}) || len(srv.Requests()) != 1 {
		t.Fatalf("%+v %+v %v after %d requests", got, out, err, len(srv.Requests()))
	}
}
