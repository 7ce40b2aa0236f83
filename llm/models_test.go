package llm_test

import (
	"math"
	"testing"

	"github.com/bridle-dev/bridle/llm"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestPriceChargesEachKindOfToken(t *testing.T) {
	p := llm.Price{Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.3}
	tests := []struct {
		name string
		u    llm.Usage
		want float64
	}{
		{"plain input and output", llm.Usage{Input: 1_000_000, Output: 1_000_000}, 18},
		{"cache reads and writes are parts of input", llm.Usage{Input: 1_000_000, CacheRead: 600_000, CacheWrite: 400_000}, 0.6*0.3 + 0.4*3.75},
		{"reasoning is output, not on top of it", llm.Usage{Output: 1000, Reasoning: 800}, 0.015},
		{"nothing costs nothing", llm.Usage{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.Cost(tt.u)
			if !near(got.USD, tt.want) || !got.Known() {
				t.Errorf("Cost(%+v) = %+v, want $%v", tt.u, got, tt.want)
			}
		})
	}
	// With no cache prices, cached tokens cost input.
	flat := llm.Price{Input: 2, Output: 8}
	if got := flat.Cost(llm.Usage{Input: 500_000, CacheRead: 500_000}); !near(got.USD, 1) {
		t.Errorf("cache reads with no cache price = %v, want $1", got.USD)
	}
}

func TestLookupModelFindsIdsAsProvidersWriteThem(t *testing.T) {
	for _, id := range []string{"claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5", "Claude-Sonnet-4-5", "gpt-4o-2024-08-06"} {
		m, ok := llm.LookupModel(id)
		if !ok || m.Price == nil || m.Context == 0 || m.MaxOutput == 0 {
			t.Errorf("LookupModel(%q) = %+v, %v", id, m, ok)
		}
	}
	if _, ok := llm.LookupModel("llama3.2:3b"); ok {
		t.Error("a local model was found in the table")
	}
	for _, p := range llm.Presets() {
		if p.DefaultModel == "" || p.Name == "openrouter" || p.Name == "groq" || p.Name == "together" || p.Name == "mistral" || p.Name == "deepseek" {
			continue
		}
		if _, ok := llm.LookupModel(p.DefaultModel); !ok {
			t.Errorf("the default model of preset %s, %q, is not in the table", p.Name, p.DefaultModel)
		}
	}
	if len(llm.ModelIDs()) < 20 {
		t.Errorf("the table has %d models", len(llm.ModelIDs()))
	}
}

func TestAProgramsModelsWinOverTheTable(t *testing.T) {
	own := llm.Models{
		"claude-sonnet-4-5": {Price: &llm.Price{Input: 1, Output: 1}},
		"my-local-model":    {Context: 8192},
	}
	m, ok := own.Lookup("claude-sonnet-4-5-20250929")
	if !ok || m.Price.Input != 1 || m.Context != 200_000 {
		t.Errorf("Lookup = %+v, %v; want the program's price and the table's window", m, ok)
	}
	if got := own.Cost("claude-sonnet-4-5", llm.Usage{Input: 1_000_000}); !near(got.USD, 1) {
		t.Errorf("Cost = %v, want the program's price", got)
	}
	local := own.Cost("my-local-model", llm.Usage{Input: 100, Output: 20})
	if local.Known() || local.Unpriced != 120 || local.String() != "unknown" {
		t.Errorf("a model with no price costs %+v (%s), want unknown with 120 unpriced tokens", local, local)
	}
	var none llm.Models
	if _, ok := none.Lookup("gpt-4o"); !ok {
		t.Error("a nil Models does not fall back to the table")
	}
}

func TestCostSaysWhenItIsUnknownOrPartial(t *testing.T) {
	tests := []struct {
		c    llm.Cost
		want string
	}{
		{llm.Cost{USD: 0.01234}, "$0.0123"},
		{llm.Cost{USD: 12.345}, "$12.35"},
		{llm.Cost{Unpriced: 10}, "unknown"},
		{llm.Cost{USD: 0.5, Unpriced: 10}, "at least $0.5000"},
		{llm.Cost{}, "$0.0000"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.c, got, tt.want)
		}
	}
	sum := llm.Usage{Input: 1, Cost: llm.Cost{USD: 1}}.Add(llm.Usage{Input: 2, Cost: llm.Cost{Unpriced: 2}})
	if sum.Cost.USD != 1 || sum.Cost.Unpriced != 2 {
		t.Errorf("Usage.Add of costs = %+v", sum.Cost)
	}
}
