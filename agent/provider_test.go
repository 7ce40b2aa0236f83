package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// A paused turn of Claude's server tools holds only provider blocks; the
// agent keeps them and sends them back to continue.
func TestAPausedTurnOfProviderBlocksGoesBack(t *testing.T) {
	search := json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"go"}}`)
	script := llmtest.Replies(
		llmtest.Reply{Parts: []llm.Part{llm.Provider("", search)}, Stop: llm.StopPause},
		llmtest.Reply{Text: "Go 1.26 is out."},
	)
	a, srv := start(t, setup{llm.Anthropic, true}, script, &Options{})
	out, err := a.Run(context.Background(), "what is new in Go?")
	if err != nil || out.Stop != StopDone || out.Text != "Go 1.26 is out." {
		t.Fatalf("%+v, %v", out, err)
	}
	second := srv.Requests()[1]
	if !strings.Contains(string(second.Body), `"server_tool_use"`) {
		t.Fatalf("the paused turn did not go back: %s", second.Body)
	}
	h := a.History()
	if len(h) != 2 || len(h[1].Parts) != 2 || h[1].Parts[0].Type != llm.PartProvider || h[1].Text() != out.Text {
		t.Fatalf("history %+v, want the paused turn and its continuation as one reply", h)
	}
	if err := a.SetHistory(h); err != nil {
		t.Fatalf("a history with provider parts does not load back: %v", err)
	}
}
