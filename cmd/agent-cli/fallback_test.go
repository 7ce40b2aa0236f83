package main

import (
	"context"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/keychain"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func noKeychain(string, string) (string, error) { return "", keychain.ErrNotFound }

func TestParseFallback(t *testing.T) {
	got, err := parseFallback(" openai:gpt-5-mini, ollama:qwen3:8b ,anthropic,llamacpp:q@http://127.0.0.1:8081/v1/ ")
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, e := range got {
		s = append(s, e.model.Provider.Value+" "+e.model.Model.Value+" "+e.model.BaseURL.Value)
	}
	want := "openai gpt-5-mini https://api.openai.com/v1|ollama qwen3:8b http://localhost:11434/v1|anthropic claude-sonnet-5 https://api.anthropic.com|llamacpp q http://127.0.0.1:8081/v1"
	if strings.Join(s, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(s, "|"), want)
	}
	for value, msg := range map[string]string{
		"openai,nope:x":          "AGENT_FALLBACK entry 'nope:x': unknown provider 'nope'",
		"ollama":                 "write it as ollama:MODEL",
		"vllm:m@localhost:8000/": "'localhost:8000/' is not an http or https URL",
	} {
		if _, err := parseFallback(value); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("AGENT_FALLBACK=%s: err %v, want %q", value, err, msg)
		}
	}
}

func TestFallbackTakesOverWhenTheProviderIsDown(t *testing.T) {
	down := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Fault: &llmtest.Fault{Status: 529}}))
	defer down.Close()
	up := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "answered by the fallback"}))
	defer up.Close()
	cfg := down.Config(llm.Anthropic)
	cfg.MaxRetries = -1
	main, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := envOf("AGENT_FALLBACK", "llamacpp:test-model@"+up.URL+"/v1")
	client, err := withFallback(main, env, noKeychain)
	if err != nil {
		t.Fatal(err)
	}
	var switched []string
	a := agent.New(client, &agent.Options{OnEvent: func(ev agent.Event) {
		if ev.Type == agent.EventRetrying {
			switched = append(switched, ev.Retry.Reason)
		}
	}})
	out, err := a.Run(context.Background(), "hello")
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "answered by the fallback" || len(switched) != 1 || !strings.HasPrefix(switched[0], "fallback: test-model (openai:127.0.0.1") {
		t.Fatalf("answer %q, switches %q; want the fallback's answer and one reported switch", out.Text, switched)
	}
}

func TestFallbackNeedsEachProvidersKey(t *testing.T) {
	main, _ := llm.New(llm.Config{Dialect: llm.OpenAI, Model: "m"})
	if c, err := withFallback(main, envOf(), noKeychain); err != nil || c != main {
		t.Fatalf("with AGENT_FALLBACK unset: %v, %v; want the main client", c, err)
	}
	_, err := withFallback(main, envOf("AGENT_FALLBACK", "openai:gpt-5-mini"), noKeychain)
	if err == nil || !strings.Contains(err.Error(), "AGENT_FALLBACK entry 'openai:gpt-5-mini'") || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("err = %v, want the entry and the variable to set", err)
	}
}
