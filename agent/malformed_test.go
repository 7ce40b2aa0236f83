package agent

import (
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

func TestArgumentsThatAreNotJSONBecomeAFailedCall(t *testing.T) {
	for _, s := range []setup{{llm.OpenAI, true}, {llm.OpenAI, false}, {llm.Anthropic, true}} {
		t.Run("in "+s.String(), func(t *testing.T) {
			runs := 0
			a, srv := start(t, s, quote(llmtest.Call{ID: "c1", Name: "t", Args: `{"path": "a`}), &Options{Autonomy: Auto})
			a.Add(counter("t", tool.Read, &runs))
			out, err := a.Run(t.Context(), "go")
			if err != nil {
				t.Fatal(err)
			}
			if runs != 0 {
				t.Fatal("the tool ran with arguments that are not JSON")
			}
			res := lastRequest(t, srv).LastToolResults()
			// OpenAI has no error flag: the client marks the text instead.
			failed := res != nil && (res[0].IsError || s.dialect == llm.OpenAI && strings.HasPrefix(res[0].Text, "Error: "))
			if out.Stop != StopDone || len(res) != 1 || !failed || !strings.Contains(res[0].Text, "not valid JSON") {
				t.Fatalf("outcome %+v, results %+v", out, res)
			}
			mustValid(t, a)
		})
	}
}

func TestMaxTokensInsideToolArgumentsIsAnOutcome(t *testing.T) {
	for _, s := range []setup{{llm.OpenAI, true}, {llm.OpenAI, false}, {llm.Anthropic, true}} {
		t.Run("in "+s.String(), func(t *testing.T) {
			runs := 0
			a, _ := start(t, s, llmtest.Replies(llmtest.Reply{Text: "Let me look.", Calls: []llmtest.Call{{Name: "t", Args: `{"path": "lon`}}, Stop: llm.StopMaxTokens}), &Options{Autonomy: Auto})
			a.Add(counter("t", tool.Read, &runs))
			out, err := a.Run(t.Context(), "go")
			if err != nil {
				t.Fatal(err)
			}
			if out.Stop != StopMaxTokens || runs != 0 || out.Text != "Let me look." {
				t.Fatalf("outcome %+v, runs %d", out, runs)
			}
			mustValid(t, a)
		})
	}
}
