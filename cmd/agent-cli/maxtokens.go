package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// minDefaultMaxTokens is the reply cap for a model the table does not
// know: large enough for a whole file, and within what current models
// allow.
const minDefaultMaxTokens = 16_384

// outputLimits are the most tokens one reply may have, by model id, for
// the presets' models and their neighbours.
var outputLimits = map[string]int{
	"claude-opus-5-5": 128_000, "claude-opus-5": 128_000, "claude-opus-4-8": 128_000, "claude-opus-4-7": 128_000,
	"claude-opus-4-6": 128_000, "claude-opus-4-5": 64_000, "claude-opus-4-1": 32_000, "claude-opus-4": 32_000,
	"claude-sonnet-5-5": 128_000, "claude-sonnet-5": 128_000, "claude-sonnet-4-6": 128_000, "claude-sonnet-4-5": 64_000,
	"claude-sonnet-4": 64_000, "claude-haiku-4-5": 64_000, "claude-3-7-sonnet": 64_000, "claude-3-5-haiku": 8_192,
	"gpt-5.5": 128_000, "gpt-5.4": 128_000, "gpt-5.4-mini": 128_000, "gpt-5.4-nano": 128_000, "gpt-5.2": 128_000,
	"gpt-5.1": 128_000, "gpt-5": 128_000, "gpt-5-mini": 128_000, "gpt-5-nano": 128_000,
	"gpt-4.1": 32_768, "gpt-4.1-mini": 32_768, "gpt-4o": 16_384, "gpt-4o-mini": 16_384, "o3": 100_000, "o4-mini": 100_000,
	"gpt-oss-120b": 32_768, "gpt-oss-20b": 32_768,
	"gemini-3-pro-preview": 65_536, "gemini-3-flash-preview": 65_536, "gemini-2.5-pro": 65_536, "gemini-2.5-flash": 65_536,
	"grok-4": 64_000, "grok-4.3": 20_000,
	"deepseek-chat": 8_192, "deepseek-reasoner": 65_536, "deepseek-v4-flash": 384_000, "deepseek-v4-pro": 384_000,
	"mistral-large-latest": 32_768,
}

// dateSuffix matches a date at the end of a model id: -20250929, -2025-09-29.
var dateSuffix = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)

// modelMaxOutput returns the most tokens a reply of model id may have,
// when the table knows. Ids match without regard to case, a provider
// prefix ("openai/gpt-oss-120b") or a date suffix.
func modelMaxOutput(id string) (int, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	if n, ok := outputLimits[id]; ok {
		return n, true
	}
	if loc := dateSuffix.FindStringIndex(id); loc != nil {
		n, ok := outputLimits[id[:loc[0]]]
		return n, ok
	}
	return 0, false
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
