package llm

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// PricesDate is the day the prices, context windows and output limits of
// the model table ([LookupModel]) were last checked against the providers'
// published figures. Prices change; a program that must be exact supplies
// its own ([Models]).
//
// The table is our own, small, and covers the models of the presets'
// providers. A maintained Go catalogue exists (charm.land/catwalk), and its
// figures were a source for this table, but it is not a dependency: its
// module needs a newer Go than this one and brings a metrics stack with it,
// its data lives in an internal package (the public one fetches from a
// server), and its fields name cache prices loosely. A table of a few dozen
// lines that a program can extend is the smaller promise.
const PricesDate = "2026-12-01"

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	// Input is the price of input tokens not read from or written to the
	// cache.
	Input float64 `json:"input"`
	// Output is the price of output tokens, reasoning included.
	Output float64 `json:"output"`
	// CacheWrite is the price of input tokens written to the prompt cache;
	// 0 means they cost Input.
	CacheWrite float64 `json:"cache_write,omitempty"`
	// CacheRead is the price of input tokens read from the prompt cache; 0
	// means they cost Input.
	CacheRead float64 `json:"cache_read,omitempty"`
}

// Cost returns what u costs at price p. Reasoning is part of u.Output and
// is charged as output.
func (p Price) Cost(u Usage) Cost {
	cw, cr := p.CacheWrite, p.CacheRead
	if cw == 0 {
		cw = p.Input
	}
	if cr == 0 {
		cr = p.Input
	}
	plain := max(u.Input-u.CacheRead-u.CacheWrite, 0)
	usd := float64(plain)*p.Input + float64(u.CacheWrite)*cw + float64(u.CacheRead)*cr + float64(u.Output)*p.Output
	return Cost{USD: usd / 1e6}
}

// Cost is an amount in US dollars. Tokens of a model with no known price
// are not given a price of zero: they are counted in Unpriced, and the cost
// says it is unknown (or, summed with priced tokens, a lower bound).
type Cost struct {
	// USD is the price of the tokens whose price is known.
	USD float64 `json:"usd"`
	// Unpriced counts the tokens left out of USD for want of a price.
	Unpriced int `json:"unpriced,omitempty"`
}

// Known reports whether every token was priced.
func (c Cost) Known() bool { return c.Unpriced == 0 }

// Add returns the sum of c and d.
func (c Cost) Add(d Cost) Cost { return Cost{USD: c.USD + d.USD, Unpriced: c.Unpriced + d.Unpriced} }

// String returns "$0.0123"; "unknown" when no token was priced; "at least
// $0.0123" when some were not.
func (c Cost) String() string {
	switch {
	case c.Unpriced > 0 && c.USD == 0:
		return "unknown"
	case c.Unpriced > 0:
		return "at least " + dollars(c.USD)
	}
	return dollars(c.USD)
}

func dollars(v float64) string {
	if v >= 1 {
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}

// ModelInfo is what is known of a model: its limits and its price. A zero
// field is unknown.
type ModelInfo struct {
	// Context is the context window: the most tokens of input and output
	// one request can hold.
	Context int `json:"context,omitempty"`
	// MaxOutput is the most tokens one reply can have.
	MaxOutput int `json:"max_output,omitempty"`
	// Price is the model's price; nil when it is not known.
	Price *Price `json:"price,omitempty"`
}

func info(context, maxOutput int, in, out, cacheWrite, cacheRead float64) ModelInfo {
	return ModelInfo{Context: context, MaxOutput: maxOutput,
		Price: &Price{Input: in, Output: out, CacheWrite: cacheWrite, CacheRead: cacheRead}}
}

// models is the table, by the provider's model id (as of [PricesDate]).
// Only the providers' own models are here: a host's price for an open
// model differs from one host to the next.
var models = map[string]ModelInfo{
	// Anthropic: cache writes (5 minutes) cost 1.25× input, reads 0.1×.
	"claude-opus-5-5":   info(1_000_000, 128_000, 4, 20, 5, 0.2),
	"claude-opus-5":     info(1_000_000, 128_000, 5, 25, 6.25, 0.5),
	"claude-opus-4-8":   info(1_000_000, 128_000, 5, 25, 6.25, 0.5),
	"claude-opus-4-7":   info(1_000_000, 128_000, 5, 25, 6.25, 0.5),
	"claude-opus-4-6":   info(200_000, 128_000, 5, 25, 6.25, 0.5),
	"claude-opus-4-5":   info(200_000, 64_000, 5, 25, 6.25, 0.5),
	"claude-sonnet-5-5": info(1_000_000, 128_000, 2, 10, 2.5, 0.1),
	"claude-sonnet-5":   info(1_000_000, 128_000, 2, 10, 2.5, 0.2),
	"claude-sonnet-4-6": info(200_000, 128_000, 3, 15, 3.75, 0.3),
	"claude-sonnet-4-5": info(200_000, 64_000, 3, 15, 3.75, 0.3),
	"claude-haiku-4-5":  info(200_000, 64_000, 1, 5, 1.25, 0.1),
	// OpenAI: no charge for cache writes.
	"gpt-5.5":      info(1_050_000, 128_000, 5, 30, 0, 0.5),
	"gpt-5.4":      info(1_050_000, 128_000, 2.5, 15, 0, 0.25),
	"gpt-5.4-mini": info(400_000, 128_000, 0.75, 4.5, 0, 0.075),
	"gpt-5.4-nano": info(400_000, 128_000, 0.2, 1.25, 0, 0.02),
	"gpt-5.2":      info(400_000, 128_000, 1.75, 14, 0, 0.175),
	"gpt-5.1":      info(400_000, 128_000, 1.25, 10, 0, 0.125),
	"gpt-5":        info(400_000, 128_000, 1.25, 10, 0, 0.125),
	"gpt-5-mini":   info(400_000, 128_000, 0.25, 2, 0, 0.025),
	"gpt-5-nano":   info(400_000, 128_000, 0.05, 0.4, 0, 0.005),
	"gpt-4.1":      info(1_047_576, 32_768, 2, 8, 0, 0.5),
	"gpt-4o":       info(128_000, 16_384, 2.5, 10, 0, 1.25),
	"gpt-4o-mini":  info(128_000, 16_384, 0.15, 0.6, 0, 0.075),
	"o3":           info(200_000, 100_000, 2, 8, 0, 0.5),
	// Google, through its OpenAI-compatible endpoint.
	"gemini-3-pro-preview":   info(1_048_576, 65_536, 2, 12, 0, 0.2),
	"gemini-3-flash-preview": info(1_048_576, 65_536, 0.5, 3, 0, 0.05),
	"gemini-2.5-pro":         info(1_048_576, 65_536, 1.25, 10, 0, 0.125),
	"gemini-2.5-flash":       info(1_048_576, 65_536, 0.3, 2.5, 0, 0.03),
	// xAI.
	"grok-4":   info(256_000, 64_000, 3, 15, 0, 0.75),
	"grok-4.3": info(200_000, 20_000, 1.25, 2.5, 0, 0.2),
	// DeepSeek.
	"deepseek-v4-flash": info(1_000_000, 384_000, 0.14, 0.28, 0, 0.0028),
	"deepseek-v4-pro":   info(1_000_000, 384_000, 0.435, 0.87, 0, 0.003625),
}

// dated matches a date at the end of a model id: -20250929, -2025-09-29.
var dated = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)

// LookupModel returns what the table knows of the model with the given id,
// as of [PricesDate]. Ids match without regard to case, a provider prefix
// ("anthropic/claude-sonnet-5") or a date suffix ("claude-sonnet-4-5-20250929").
func LookupModel(id string) (ModelInfo, bool) {
	return lookup(models, id)
}

// ModelIDs returns the ids of the table, sorted.
func ModelIDs() []string { return slices.Sorted(maps.Keys(models)) }

func lookup(table map[string]ModelInfo, id string) (ModelInfo, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return ModelInfo{}, false
	}
	if m, ok := table[id]; ok {
		return m, true
	}
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
		if m, ok := table[id]; ok {
			return m, true
		}
	}
	if loc := dated.FindStringIndex(id); loc != nil {
		if m, ok := table[id[:loc[0]]]; ok {
			return m, true
		}
	}
	return ModelInfo{}, false
}

// Models is what a program knows of models, by id, to add to the table or
// override it: its own prices, a local model's context window. A nil Models
// is the table alone.
type Models map[string]ModelInfo

// Lookup returns what is known of model id: the entry of m, with the
// fields it leaves zero taken from the table ([LookupModel]).
func (m Models) Lookup(id string) (ModelInfo, bool) {
	base, inTable := LookupModel(id)
	lower := make(map[string]ModelInfo, len(m))
	for k, v := range m {
		lower[strings.ToLower(k)] = v
	}
	own, ok := lookup(lower, id)
	if !ok {
		return base, inTable
	}
	if own.Context == 0 {
		own.Context = base.Context
	}
	if own.MaxOutput == 0 {
		own.MaxOutput = base.MaxOutput
	}
	if own.Price == nil {
		own.Price = base.Price
	}
	return own, true
}

// Cost returns what u cost on model id: priced when its price is known,
// else with every token counted in Cost.Unpriced.
func (m Models) Cost(id string, u Usage) Cost {
	if info, _ := m.Lookup(id); info.Price != nil {
		return info.Price.Cost(u)
	}
	return Cost{Unpriced: u.Input + u.Output}
}
