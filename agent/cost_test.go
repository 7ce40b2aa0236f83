package agent_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
)

func TestARunSaysWhatItCostPerModelAndPerTool(t *testing.T) {
	// Step 1 calls two tools (one of an MCP server), step 2 one, step 3 answers.
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{{Name: "local"}, {Name: "mcp__words__lookup", Args: `{"word":"x"}`}}, Usage: llm.Usage{Input: 1_000_000, Output: 100_000}},
		llmtest.Reply{Calls: []llmtest.Call{{Name: "local"}}, Usage: llm.Usage{Input: 1_000_000, CacheRead: 1_000_000}},
		llmtest.Reply{Text: "done", Usage: llm.Usage{Input: 500_000, Output: 50_000, Reasoning: 20_000}},
	))
	defer srv.Close()
	cfg := srv.Config(llm.Anthropic)
	cfg.Model = "claude-sonnet-4-5-20250929"
	client, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	words := mcp.NewServer("words", "1.0.0", nil)
	words.AddTools(tool.New("lookup", "looks a word up", tool.Read, func(ctx context.Context, in struct {
		Word string `json:"word"`
	}) (string, error) {
		return "found", nil
	}))
	sess, err := mcp.ConnectInProcess(t.Context(), "words", words, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()

	// The usage reported is large: compaction would start.
	a := agent.New(client, &agent.Options{NoCompact: true})
	a.Add(trivialTool("local"))
	if err := a.Connect(t.Context(), "words", sess); err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(t.Context(), "go")
	if err != nil || out.Text != "done" {
		t.Fatalf("Run = %+v, %v", out, err)
	}

	// claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read.
	step1, step2, step3 := 3+1.5, 0.3, 1.5+0.75
	if want := step1 + step2 + step3; !near(out.Usage.Cost.USD, want) || !out.Usage.Cost.Known() {
		t.Errorf("run cost = %+v, want $%v", out.Usage.Cost, want)
	}
	if m, ok := out.Costs.Models[cfg.Model]; !ok || m.Input != 2_500_000 || !near(m.Cost.USD, out.Usage.Cost.USD) {
		t.Errorf("per model = %+v", out.Costs.Models)
	}
	if got := out.Costs.Tools["local"].USD; !near(got, step1/2+step2) {
		t.Errorf("local cost %v, want half of step 1 and all of step 2: %v", got, step1/2+step2)
	}
	if got := out.Costs.Tools["mcp__words__lookup"].USD; !near(got, step1/2) {
		t.Errorf("lookup cost %v, want half of step 1", got)
	}
	if got := out.Costs.Servers["words"].USD; !near(got, step1/2) || len(out.Costs.Servers) != 1 {
		t.Errorf("servers = %+v, want words with half of step 1", out.Costs.Servers)
	}
	if u := a.Usage(); !near(u.Cost.USD, out.Usage.Cost.USD) || !near(a.Costs().Tools["local"].USD, out.Costs.Tools["local"].USD) {
		t.Errorf("the agent's usage %+v does not match the run's", u)
	}
}

func TestAModelWithNoPriceCostsUnknownUnlessTheProgramSaysSo(t *testing.T) {
	replies := func() *llmtest.Server {
		return llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "hi", Usage: llm.Usage{Input: 1000, Output: 10}}))
	}
	srv := replies()
	defer srv.Close()
	a := agent.New(newClient(t, srv, llm.OpenAI), nil) // "test-model" is in no table
	out, err := a.Run(context.Background(), "hello")
	if err != nil {
		t.Fatal(err)
	}
	if out.Usage.Cost.Known() || out.Usage.Cost.String() != "unknown" || out.Usage.Cost.Unpriced != 1010 {
		t.Errorf("cost = %+v (%s), want unknown", out.Usage.Cost, out.Usage.Cost)
	}

	srv2 := replies()
	defer srv2.Close()
	b := agent.New(newClient(t, srv2, llm.OpenAI), &agent.Options{Models: llm.Models{"test-model": {Price: &llm.Price{Input: 1, Output: 100}}}})
	out, err = b.Run(context.Background(), "hello")
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.001 + 0.001; !out.Usage.Cost.Known() || !near(out.Usage.Cost.USD, want) {
		t.Errorf("cost with the program's price = %+v, want $%v", out.Usage.Cost, want)
	}
}

func trivialTool(name string) tool.Tool {
	return tool.Tool{Name: name, Description: "does nothing", Risk: tool.Read,
		Func: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestASubAgentsCostCountsUnderItsTool(t *testing.T) {
	// The parent calls the sub-agent once; the sub-agent answers at once.
	parent := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{{Name: "research", Args: `{"task":"look"}`}}, Usage: llm.Usage{Input: 1_000_000}},
		llmtest.Reply{Text: "done", Usage: llm.Usage{Input: 1_000_000}},
	))
	defer parent.Close()
	child := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "found it", Usage: llm.Usage{Output: 1_000_000}}))
	defer child.Close()
	models := llm.Models{"test-model": {Price: &llm.Price{Input: 1, Output: 10}}}
	research := agent.AsTool(agent.SubAgent{Name: "research", Description: "looks things up",
		Client: newClient(t, child, llm.OpenAI), Options: &agent.Options{Models: models}})
	a := agent.New(newClient(t, parent, llm.Anthropic), &agent.Options{Models: models, Autonomy: agent.Auto, NoCompact: true})
	a.Add(research)
	out, err := a.Run(t.Context(), "go")
	if err != nil || out.Text != "done" {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	// $1 and $1 for the parent's two replies, $10 for the sub-agent's.
	if !near(out.Usage.Cost.USD, 12) {
		t.Errorf("run cost %v, want $12", out.Usage.Cost)
	}
	if got := out.Costs.Tools["research"].USD; !near(got, 1+10) {
		t.Errorf("research cost %v, want the reply that called it and the sub-agent's run: $11", got)
	}
	if got := a.Costs().Models["test-model"]; got.Output != 1_000_000 || !near(got.Cost.USD, 12) {
		t.Errorf("per model %+v, want the sub-agent's tokens counted too", got)
	}
}
