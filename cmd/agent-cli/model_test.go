package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/keychain"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestResolveModel(t *testing.T) {
	tests := []struct {
		name                  string
		flagProvider, flagMod string
		env                   func(string) string
		want                  string // provider/from model/from url/from
	}{
		{"with nothing set it is anthropic and its default model", "", "", envOf(),
			"anthropic/default claude-sonnet-5/preset anthropic https://api.anthropic.com/preset anthropic"},
		{"the variables choose", "", "", envOf("AGENT_PROVIDER", "OpenAI", "AGENT_MODEL", "gpt-x", "AGENT_BASE_URL", "http://127.0.0.1:8080/v1/"),
			"openai/AGENT_PROVIDER gpt-x/AGENT_MODEL http://127.0.0.1:8080/v1/AGENT_BASE_URL"},
		{"the flags win over the variables", "groq", "m-flag", envOf("AGENT_PROVIDER", "openai", "AGENT_MODEL", "m-env"),
			"groq/--provider m-flag/--model https://api.groq.com/openai/v1/preset groq"},
		{"a local preset takes the model from the variable", "", "", envOf("AGENT_PROVIDER", "ollama", "AGENT_MODEL", "qwen3"),
			"ollama/AGENT_PROVIDER qwen3/AGENT_MODEL http://localhost:11434/v1/preset ollama"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := resolveModel(tt.flagProvider, tt.flagMod, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%s/%s %s/%s %s/%s", m.Provider.Value, m.Provider.From, m.Model.Value, m.Model.From, m.BaseURL.Value, m.BaseURL.From)
			if got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestResolveModelErrors(t *testing.T) {
	tests := []struct {
		name, flagProvider string
		env                func(string) string
		want               []string
	}{
		{"an unknown AGENT_PROVIDER is named with the known ones", "", envOf("AGENT_PROVIDER", "x"),
			[]string{"unknown AGENT_PROVIDER 'x'", "anthropic, openai, ollama"}},
		{"an unknown --provider is named as the flag", "nope", envOf(), []string{"unknown --provider 'nope'"}},
		{"a preset without a default model asks for AGENT_MODEL", "", envOf("AGENT_PROVIDER", "vllm"), []string{"set AGENT_MODEL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := resolveModel(tt.flagProvider, "", tt.env)
			for _, want := range tt.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v; want %q in it", err, want)
				}
			}
		})
	}
}

func TestFindKey(t *testing.T) {
	const secret = "sk-secret-123"
	stored := func(string, string) (string, error) { return secret, nil }
	none := func(s, a string) (string, error) {
		return "", fmt.Errorf("keychain: %s/%s: %w", s, a, keychain.ErrNotFound)
	}
	unavailable := func(string, string) (string, error) {
		return "", fmt.Errorf("keychain: %w (dbus)", keychain.ErrUnavailable)
	}
	var asked []string
	recording := func(s, a string) (string, error) { asked = append(asked, s+"/"+a); return none(s, a) }

	tests := []struct {
		name     string
		provider string
		env      func(string) string
		get      func(string, string) (string, error)
		from     string
		err      string
	}{
		{"the variable comes first", "anthropic", envOf("ANTHROPIC_API_KEY", secret), unavailable, "ANTHROPIC_API_KEY", ""},
		{"the keychain comes next", "anthropic", envOf(), stored, "keychain (agent-cli/anthropic)", ""},
		{"without either the error names the variable and the command", "anthropic", envOf(), none, "",
			"set ANTHROPIC_API_KEY, or store the key with `agent-cli key set anthropic`"},
		{"without a keychain service the error says so and names the variable", "openai", envOf(), unavailable, "",
			"set OPENAI_API_KEY (there is no keychain service on this machine"},
		{"a local preset needs no key", "llamacpp", envOf(), unavailable, "", ""},
		{"the keychain is asked under agent-cli and the provider", "groq", envOf(), recording, "", "set GROQ_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := resolveModel(tt.provider, "m", envOf())
			if err != nil {
				t.Fatal(err)
			}
			key, from, err := m.findKey(tt.env, tt.get)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v; want %q in it", err, tt.err)
				}
				if strings.Contains(err.Error(), secret) {
					t.Fatalf("the error shows the key: %v", err)
				}
				return
			}
			if err != nil || string(from) != tt.from {
				t.Fatalf("from %q, err %v; want from %q", from, err, tt.from)
			}
			if tt.from != "" && key != secret {
				t.Fatalf("key %q; want the stored one", key)
			}
		})
	}
	if strings.Join(asked, ",") != "agent-cli/groq" {
		t.Errorf("the keychain was asked for %v; want agent-cli/groq", asked)
	}
}
