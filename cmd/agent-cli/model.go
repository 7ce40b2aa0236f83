package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/keychain"
	"github.com/bridle-dev/bridle/llm"
)

// keychainService is the keychain service agent-cli stores keys under; the
// account is the provider's preset name.
const keychainService = "agent-cli"

// setting is a resolved value and where it came from, for doctor and for
// error messages.
type setting struct {
	Value string
	From  string // "--model", "AGENT_MODEL", "default", "preset anthropic"
}

// modelChoice is what agent-cli will talk to.
type modelChoice struct {
	Preset   llm.Preset
	Provider setting
	Model    setting
	BaseURL  setting
}

// resolveModel picks the provider, model and base URL from the flags, then
// the environment, then the preset. An unknown provider or a preset without
// a default model is an error that says what to set.
func resolveModel(flagProvider, flagModel string, getenv func(string) string) (modelChoice, error) {
	var m modelChoice
	switch {
	case flagProvider != "":
		m.Provider = setting{flagProvider, "--provider"}
	case getenv("AGENT_PROVIDER") != "":
		m.Provider = setting{getenv("AGENT_PROVIDER"), "AGENT_PROVIDER"}
	default:
		m.Provider = setting{"anthropic", "default"}
	}
	p, err := llm.FindPreset(m.Provider.Value)
	if err != nil {
		name := "AGENT_PROVIDER"
		if m.Provider.From == "--provider" {
			name = "--provider"
		}
		return m, fmt.Errorf("unknown %s '%s': known providers are %s", name, m.Provider.Value, presetNames())
	}
	m.Preset = p
	m.Provider.Value = p.Name

	var first error // the first setting missing; the others are resolved all the same
	switch {
	case flagModel != "":
		m.Model = setting{flagModel, "--model"}
	case getenv("AGENT_MODEL") != "":
		m.Model = setting{getenv("AGENT_MODEL"), "AGENT_MODEL"}
	case p.DefaultModel != "":
		m.Model = setting{p.DefaultModel, "preset " + p.Name}
	default:
		// The base URL is still resolved, so that doctor can show it.
		first = fmt.Errorf("the %s provider has no default model: set AGENT_MODEL (or pass --model) to the model to use", p.Name)
	}

	switch {
	case getenv("AGENT_BASE_URL") != "":
		m.BaseURL = setting{strings.TrimRight(getenv("AGENT_BASE_URL"), "/"), "AGENT_BASE_URL"}
	case p.BaseURL != "":
		m.BaseURL = setting{p.BaseURL, "preset " + p.Name}
	default:
		if first == nil {
			first = fmt.Errorf("the %s provider has no default address: set AGENT_BASE_URL to its API root", p.Name)
		}
	}
	return m, first
}

func presetNames() string {
	var names []string
	for _, p := range llm.Presets() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// needsKey reports whether the provider wants an API key; local servers
// (ollama, llama.cpp, LM Studio, vLLM) do not.
func (m modelChoice) needsKey() bool { return m.Preset.KeyEnv != "" }

// keySource says where a key was found: the variable's name, or the
// keychain entry. It never holds the key.
type keySource string

// findKey looks for the provider's key in its variable, then in the
// keychain. For a provider that needs no key it returns "", "", nil.
// The error says what to set, and when the keychain could not be asked,
// says that too.
func (m modelChoice) findKey(getenv func(string) string, get func(service, account string) (string, error)) (string, keySource, error) {
	if !m.needsKey() {
		return "", "", nil
	}
	if k := strings.TrimSpace(getenv(m.Preset.KeyEnv)); k != "" {
		return k, keySource(m.Preset.KeyEnv), nil
	}
	k, err := get(keychainService, m.Preset.Name)
	if err == nil && strings.TrimSpace(k) != "" {
		return strings.TrimSpace(k), keySource("keychain (" + keychainService + "/" + m.Preset.Name + ")"), nil
	}
	if errors.Is(err, keychain.ErrUnavailable) {
		return "", "", fmt.Errorf("no %s key: set %s (there is no keychain service on this machine to store it in)", m.Preset.Name, m.Preset.KeyEnv)
	}
	return "", "", fmt.Errorf("no %s key: set %s, or store the key with `agent-cli key set %s`", m.Preset.Name, m.Preset.KeyEnv, m.Preset.Name)
}

// config is the llm.Config for the choice and key.
func (m modelChoice) config(key string) llm.Config {
	cfg := m.Preset.Config(key)
	cfg.Model = m.Model.Value
	cfg.BaseURL = m.BaseURL.Value
	return cfg
}
