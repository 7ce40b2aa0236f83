package main

import (
	"strings"
	"testing"
)

func TestResolveMaxTokens(t *testing.T) {
	tests := []struct {
		name    string
		flag    int
		env     string
		model   string
		want    int
		from    string
		wantErr string
	}{
		{name: "the model's limit by default", model: "claude-sonnet-5", want: 128_000, from: "the model's limit"},
		{name: "a dated id is the model's", model: "claude-sonnet-4-5-20250929", want: 64_000, from: "the model's limit"},
		{name: "a provider prefix is dropped", model: "openai/gpt-oss-120b", want: 32_768, from: "the model's limit"},
		{name: "a model the llm table lacks comes from agent-cli's", model: "deepseek-chat", want: 8_192, from: "the model's limit"},
		{name: "an unknown model gets 16k", model: "qwen3:8b", want: 16_384, from: "default"},
		{name: "the variable wins over the model", env: "32_000", model: "claude-sonnet-5", want: 32_000, from: "AGENT_MAX_TOKENS"},
		{name: "the flag wins over the variable", flag: 1000, env: "32000", model: "gpt-5", want: 1000, from: "--max-tokens"},
		{name: "a variable that is no number is refused", env: "lots", wantErr: `AGENT_MAX_TOKENS is "lots"`},
		{name: "a negative flag is refused", flag: -1, wantErr: "--max-tokens is -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, from, err := resolveMaxTokens(tc.flag, tc.model, func(k string) string {
				if k == "AGENT_MAX_TOKENS" {
					return tc.env
				}
				return ""
			})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %d, %v; want an error with %q", n, err, tc.wantErr)
				}
				return
			}
			if err != nil || n != tc.want || !strings.HasPrefix(from, tc.from) {
				t.Fatalf("got %d from %q, %v; want %d from %s", n, from, err, tc.want, tc.from)
			}
		})
	}
}
