package main

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/bridle-dev/bridle/internal/redact"
	"github.com/bridle-dev/bridle/llm"
)

// fallbackEntry is one provider of AGENT_FALLBACK.
type fallbackEntry struct {
	text  string // as written, its base URL's credentials masked, for messages
	model modelChoice
}

// parseFallback reads AGENT_FALLBACK: providers to try, in order, when the
// main one is down, written PROVIDER[:MODEL][@BASE_URL] and separated by
// commas, as in "openai:gpt-5-mini,ollama:qwen3:8b". The model is what
// follows the first colon (Ollama's tags have colons of their own); without
// one the preset's default model is used. An unknown provider, a preset
// without a default model and no model given, or a base URL that is not
// http(s) is an error naming the entry.
func parseFallback(value string) ([]fallbackEntry, error) {
	var out []fallbackEntry
	for _, text := range strings.Split(value, ",") {
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		spec, base, hasBase := strings.Cut(text, "@")
		if hasBase {
			text = spec + "@" + redact.URL(base)
		}
		name, model, _ := strings.Cut(spec, ":")
		p, err := llm.FindPreset(name)
		if err != nil {
			return nil, fmt.Errorf("AGENT_FALLBACK entry '%s': unknown provider '%s': known providers are %s", text, name, presetNames())
		}
		m := modelChoice{Preset: p, Provider: setting{p.Name, "AGENT_FALLBACK"}}
		switch {
		case model != "":
			m.Model = setting{model, "AGENT_FALLBACK"}
		case p.DefaultModel != "":
			m.Model = setting{p.DefaultModel, "preset " + p.Name}
		default:
			return nil, fmt.Errorf("AGENT_FALLBACK entry '%s': the %s provider has no default model: write it as %s:MODEL", text, p.Name, p.Name)
		}
		m.BaseURL = setting{p.BaseURL, "preset " + p.Name}
		if hasBase {
			if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, fmt.Errorf("AGENT_FALLBACK entry '%s': '%s' is not an http or https URL", text, redact.URL(base))
			}
			m.BaseURL = setting{strings.TrimRight(base, "/"), "AGENT_FALLBACK"}
		}
		out = append(out, fallbackEntry{text: text, model: m})
	}
	return out, nil
}

// withFallback returns main alone when AGENT_FALLBACK is unset, else a
// client that moves from main to each fallback provider in turn when one is
// down (see llm.Fallback). Each provider's key is found as the main one's
// is: its variable, then the keychain.
func withFallback(main llm.Client, getenv func(string) string, get func(service, account string) (string, error)) (llm.Client, error) {
	entries, err := parseFallback(getenv("AGENT_FALLBACK"))
	if err != nil || len(entries) == 0 {
		return main, err
	}
	clients := []llm.Client{main}
	for _, e := range entries {
		key, _, err := e.model.findKey(getenv, get)
		if err != nil {
			return nil, fmt.Errorf("AGENT_FALLBACK entry '%s': %w", e.text, err)
		}
		c, err := llm.New(e.model.config(key))
		if err != nil {
			return nil, fmt.Errorf("AGENT_FALLBACK entry '%s': %w", e.text, err)
		}
		clients = append(clients, c)
	}
	return llm.Fallback(clients...), nil
}
