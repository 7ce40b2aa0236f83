package main

import (
	"strings"

	"github.com/bridle-dev/bridle/internal/inert"
)

// passedVars lists, in order and once each, the variables of the person's
// environment that the entry's ${VAR} references hand to the server in
// what the approval prompt does not show whole: environment values, header
// values and the URL, whose query values are masked.
func (e mcpEntry) passedVars() []string {
	var names []string
	record := func(name string) string {
		names = append(names, name)
		return ""
	}
	var missing []string
	expand(e.URL, record, &missing)
	for _, k := range keys(e.Env) {
		expand(e.Env[k], record, &missing)
	}
	for _, k := range keys(e.Headers) {
		expand(e.Headers[k], record, &missing)
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// passedNote is the end of [mcpEntry.describe] that names the variables
// the server is given from the person's environment, or "".
func (e mcpEntry) passedNote() string {
	names := e.passedVars()
	if len(names) == 0 {
		return ""
	}
	return "; gives it ${" + inert.Line(strings.Join(names, "}, ${")) + "} from your environment"
}
