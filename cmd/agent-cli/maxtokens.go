package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bridle-dev/bridle/llm"
)

// minDefaultMaxTokens is the reply cap for a model the table does not
// know: large enough for a whole file, and within what current models
// allow.
const minDefaultMaxTokens = 16_384

// ownModels adds to package llm's model table the output limits of the
// presets' models it leaves out, so that no default asks for more than a
// model allows (DeepSeek refuses max_tokens above 8192).
var ownModels = llm.Models{
	"claude-opus-4-1":      {MaxOutput: 32_000},
	"claude-opus-4":        {MaxOutput: 32_000},
	"claude-sonnet-4":      {MaxOutput: 64_000},
	"claude-3-7-sonnet":    {MaxOutput: 64_000},
	"claude-3-5-haiku":     {MaxOutput: 8_192},
	"gpt-4.1-mini":         {MaxOutput: 32_768},
	"o4-mini":              {MaxOutput: 100_000},
	"gpt-oss-120b":         {MaxOutput: 32_768},
	"gpt-oss-20b":          {MaxOutput: 32_768},
	"deepseek-chat":        {MaxOutput: 8_192},
	"deepseek-reasoner":    {MaxOutput: 65_536},
	"mistral-large-latest": {MaxOutput: 32_768},
}

// modelMaxOutput returns the most tokens a reply of model id may have,
// when it is known (see llm.LookupModel for how ids match).
func modelMaxOutput(id string) (int, bool) {
	info, _ := ownModels.Lookup(id)
	return info.MaxOutput, info.MaxOutput > 0
}

// resolveMaxTokens picks the reply cap: --max-tokens, then
// AGENT_MAX_TOKENS, then the model's own limit, then 16,384.
func resolveMaxTokens(flag int, model string, getenv func(string) string) (int, string, error) {
	switch {
	case flag < 0:
		return 0, "", fmt.Errorf("--max-tokens is %d: give a number of tokens, such as 32000", flag)
	case flag > 0:
		return flag, "--max-tokens", nil
	}
	if v := strings.TrimSpace(getenv("AGENT_MAX_TOKENS")); v != "" {
		n, err := strconv.Atoi(strings.ReplaceAll(v, "_", ""))
		if err != nil || n < 1 {
			return 0, "", fmt.Errorf("AGENT_MAX_TOKENS is %q: give a number of tokens, such as 32000", v)
		}
		return n, "AGENT_MAX_TOKENS", nil
	}
	if n, ok := modelMaxOutput(model); ok {
		return n, "the model's limit", nil
	}
	return minDefaultMaxTokens, "default for a model of unknown limit", nil
}
