package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"

	"github.com/bridle-dev/bridle/internal/redact"
	"github.com/bridle-dev/bridle/llm"
)

// localServers names the program behind each local preset, for the
// message when nothing answers at its address.
var localServers = map[string]string{
	"ollama":   "Ollama",
	"lmstudio": "LM Studio's server",
	"llamacpp": "llama.cpp's llama-server",
	"vllm":     "vLLM",
}

// explained is an error said in words a person understands, keeping the
// error it explains for errors.Is and --verbose.
type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }

// explain turns a failure to talk to the model into what a person can act
// on: a refused key, nothing answering at the address, the provider's own
// message. With verbose, the whole chain of Go errors follows.
func explain(err error, m modelChoice, keyFrom keySource, verbose bool) error {
	if err == nil {
		return nil
	}
	msg := ""
	var apiErr *llm.APIError
	switch {
	case errors.As(err, &apiErr) && (apiErr.Status == 401 || apiErr.Status == 403):
		msg = fmt.Sprintf("the %s provider refused the key", m.Provider.Value)
		if keyFrom != "" {
			msg += " from " + string(keyFrom)
		}
		if apiErr.Message != "" {
			msg += fmt.Sprintf(" (%d: %s)", apiErr.Status, apiErr.Message)
		}
		if m.Preset.KeyEnv != "" {
			msg += fmt.Sprintf(": set another in %s, or store one with `agent-cli key set %s`", m.Preset.KeyEnv, m.Preset.Name)
		}
	case refused(err):
		addr := host(m.BaseURL.Value)
		msg = "nothing answers at " + addr
		if name, ok := localServers[m.Preset.Name]; ok && m.BaseURL.From != "AGENT_BASE_URL" {
			msg += " — is " + name + " running?"
		} else {
			msg += " — is the server running, and is AGENT_BASE_URL right?"
		}
	case errors.As(err, &apiErr):
		msg = fmt.Sprintf("the %s provider answered with an error", m.Provider.Value)
		if apiErr.Status != 0 {
			msg += fmt.Sprintf(" (%d)", apiErr.Status)
		}
		if apiErr.Message != "" {
			msg += ": " + apiErr.Message
		}
	default:
		return err
	}
	if verbose {
		msg += "\n  (" + err.Error() + ")"
	} else {
		msg += " (--verbose shows the details)"
	}
	return &explained{msg: msg, err: err}
}

// refused reports whether err is a connection refused: nothing listens at
// the address.
func refused(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// host is the scheme and host of a base URL, its secrets masked.
func host(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return redact.URL(base)
	}
	return u.Scheme + "://" + u.Host
}
