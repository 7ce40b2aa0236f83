package llm

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Preset is a known provider: how to reach it and which key it needs.
type Preset struct {
	// Name is how the preset is chosen, lower case: "anthropic", "ollama".
	Name string
	// Dialect is the wire protocol the provider speaks.
	Dialect Dialect
	// BaseURL is the API root.
	BaseURL string
	// KeyEnv is the environment variable that conventionally holds the
	// key; empty for local servers, which need none.
	KeyEnv string
	// DefaultModel is a current model id; empty where the choice belongs to
	// the user (local servers serve whatever was loaded).
	DefaultModel string
}

// presets are the providers Bridle knows, in the order Presets lists them.
var presets = []Preset{
	{"anthropic", Anthropic, anthropicBase, "ANTHROPIC_API_KEY", "claude-sonnet-5"},
	{"openai", OpenAI, openaiBase, "OPENAI_API_KEY", "gpt-5.5"},
	{"ollama", OpenAI, "http://localhost:11434/v1", "", ""},
	{"openrouter", OpenAI, "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "openrouter/auto"},
	{"groq", OpenAI, "https://api.groq.com/openai/v1", "GROQ_API_KEY", "openai/gpt-oss-120b"},
	{"deepseek", OpenAI, "https://api.deepseek.com", "DEEPSEEK_API_KEY", "deepseek-chat"},
	{"mistral", OpenAI, "https://api.mistral.ai/v1", "MISTRAL_API_KEY", "mistral-large-latest"},
	{"gemini", OpenAI, "https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY", "gemini-2.5-flash"},
	{"xai", OpenAI, "https://api.x.ai/v1", "XAI_API_KEY", "grok-4"},
	{"together", OpenAI, "https://api.together.xyz/v1", "TOGETHER_API_KEY", "meta-llama/Llama-3.3-70B-Instruct-Turbo"},
	{"lmstudio", OpenAI, "http://localhost:1234/v1", "", ""},
	{"llamacpp", OpenAI, "http://localhost:8080/v1", "", ""},
	{"vllm", OpenAI, "http://localhost:8000/v1", "", ""},
}

// Presets returns every known preset, a copy the caller may change.
func Presets() []Preset { return slices.Clone(presets) }

// FindPreset returns the preset named name, ignoring case. An unknown name
// is an error that lists the known ones.
func FindPreset(name string) (Preset, error) {
	for _, p := range presets {
		if strings.EqualFold(p.Name, strings.TrimSpace(name)) {
			return p, nil
		}
	}
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return Preset{}, fmt.Errorf("llm: unknown provider %q; known providers: %s", name, strings.Join(names, ", "))
}

// Config returns a Config for the preset with the given key (empty for
// local servers) and the preset's default model.
func (p Preset) Config(apiKey string) Config {
	return Config{Dialect: p.Dialect, BaseURL: p.BaseURL, Model: p.DefaultModel, APIKey: apiKey}
}

// ErrNoKey reports that a provider needs a key and none was found. The
// error wrapping it names the variable to set.
var ErrNoKey = errors.New("no API key")

// ConfigFromEnv returns the Config for the named preset with its key read
// from the preset's variable through getenv (nil means os.Getenv). When the
// variable is empty the error wraps [ErrNoKey] and says which to set, as
// in "llm: no API key for anthropic: set ANTHROPIC_API_KEY". The key itself
// never appears in an error.
func ConfigFromEnv(preset string, getenv func(string) string) (Config, error) {
	p, err := FindPreset(preset)
	if err != nil {
		return Config{}, err
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	var key string
	if p.KeyEnv != "" {
		key = strings.TrimSpace(getenv(p.KeyEnv))
		if key == "" {
			return Config{}, fmt.Errorf("llm: %w for %s: set %s", ErrNoKey, p.Name, p.KeyEnv)
		}
	}
	return p.Config(key), nil
}
