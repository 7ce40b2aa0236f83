package main

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
)

func TestExplainNamesTheLocalServer(t *testing.T) {
	p, _ := llm.FindPreset("ollama")
	m := modelChoice{Preset: p, Provider: setting{"ollama", "AGENT_PROVIDER"}, BaseURL: setting{p.BaseURL, "preset ollama"}}
	err := fmt.Errorf("llm: %w", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")})
	got := explain(err, m, "", false).Error()
	if !strings.HasPrefix(got, "nothing answers at http://localhost:11434 — is Ollama running?") {
		t.Errorf("explain = %q", got)
	}
	if !errors.Is(explain(err, m, "", false), err) {
		t.Error("the explained error lost its chain")
	}
}
