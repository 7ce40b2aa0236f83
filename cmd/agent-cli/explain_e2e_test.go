package main

import (
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func TestErrorsAPersonUnderstands(t *testing.T) {
	t.Run("a refused key says so and how to set another", func(t *testing.T) {
		srv := llmtest.NewServer(func(*llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Fault: &llmtest.Fault{Status: 401, Message: "invalid x-api-key"}}
		})
		defer srv.Close()
		env := modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")
		res := runAgent(t, agentBinary(t), invocation{args: []string{"hi"}, env: env})
		want := "the anthropic provider refused the key from ANTHROPIC_API_KEY (401: invalid x-api-key): set another in ANTHROPIC_API_KEY, or store one with `agent-cli key set anthropic` (--verbose shows the details)"
		if res.code != 1 || !strings.Contains(res.stderr, want) || strings.Contains(res.stderr, "llm: status") {
			t.Errorf("exit %d, stderr:\n%s", res.code, res.stderr)
		}
		res = runAgent(t, agentBinary(t), invocation{args: []string{"--verbose", "hi"}, env: env})
		if !strings.Contains(res.stderr, "llm: status 401") {
			t.Errorf("--verbose does not show the chain:\n%s", res.stderr)
		}
	})
	t.Run("nothing answering at the address says so", func(t *testing.T) {
		closed := llmtest.NewServer(llmtest.Replies())
		base := closed.Config(llm.OpenAI).BaseURL
		closed.Close()
		res := runAgent(t, agentBinary(t), invocation{args: []string{"hi"}, env: []string{"AGENT_PROVIDER=ollama", "AGENT_MODEL=qwen3", "AGENT_BASE_URL=" + base}})
		host := strings.TrimSuffix(base, "/v1")
		if res.code != 1 || !strings.Contains(res.stderr, "nothing answers at "+host+" — is the server running, and is AGENT_BASE_URL right?") {
			t.Errorf("exit %d, stderr:\n%s", res.code, res.stderr)
		}
	})
}

func TestDoctorShowsEveryLine(t *testing.T) {
	t.Run("an unknown provider is on the provider line, and the other lines are there", func(t *testing.T) {
		res := runAgent(t, agentBinary(t), invocation{args: []string{"doctor"}, env: []string{"AGENT_PROVIDER=nope"}})
		for _, want := range []string{"provider   nope (AGENT_PROVIDER): unknown AGENT_PROVIDER 'nope'", "base URL   unknown", "key        unknown"} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("doctor lacks %q:\n%s", want, res.stdout)
			}
		}
		if res.code != 1 {
			t.Errorf("exit %d; want 1", res.code)
		}
	})
	t.Run("a preset without a model still shows its base URL and key", func(t *testing.T) {
		res := runAgent(t, agentBinary(t), invocation{args: []string{"doctor"}, env: []string{"AGENT_PROVIDER=ollama"}})
		for _, want := range []string{"model      the ollama provider has no default model", "base URL   http://localhost:11434/v1 (preset ollama)", "key        none needed for ollama"} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("doctor lacks %q:\n%s", want, res.stdout)
			}
		}
		if res.code != 1 {
			t.Errorf("exit %d; want 1 without a model", res.code)
		}
	})
}
