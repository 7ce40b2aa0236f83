package main

import (
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/internal/redact"
)

// unsetVars lists the variables the entry's ${VAR} references name that
// are unset and have no default: starting the server would fail.
func (s mcpServer) unsetVars(getenv func(string) string) []string {
	var missing []string
	e := s.Entry
	for _, v := range append([]string{e.Command, e.URL}, e.Args...) {
		expand(v, getenv, &missing)
	}
	for _, k := range keys(e.Env) {
		expand(e.Env[k], getenv, &missing)
	}
	for _, k := range keys(e.Headers) {
		expand(e.Headers[k], getenv, &missing)
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range missing {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// unsetProblem is doctor's words for a server whose variables are unset,
// or "".
func (s mcpServer) unsetProblem(getenv func(string) string) string {
	names := s.unsetVars(getenv)
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("MCP server %s uses ${%s}, which %s unset: set %s, or give a default as ${NAME:-value}", s.Name,
		strings.Join(names, "}, ${"), map[bool]string{true: "is", false: "are"}[len(names) == 1], strings.Join(names, ", "))
}

// fallbackRows are doctor's lines for AGENT_FALLBACK: each provider, its
// model and address, or what is wrong with the variable.
func fallbackRows(getenv func(string) string) (rows []string, problem error) {
	value := strings.TrimSpace(getenv("AGENT_FALLBACK"))
	if value == "" {
		return nil, nil
	}
	entries, err := parseFallback(value)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		rows = append(rows, fmt.Sprintf("%s: model %s at %s (AGENT_FALLBACK)", e.model.Provider.Value, e.model.Model.Value, redact.URL(e.model.BaseURL.Value)))
	}
	return rows, nil
}
