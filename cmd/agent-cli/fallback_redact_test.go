package main

import (
	"strings"
	"testing"
)

// AGENT_FALLBACK's base URLs may hold a password or a key in the query, as
// AGENT_BASE_URL's may: doctor's lines and the errors naming an entry mask
// them.
func TestFallbackCredentialsAreMasked(t *testing.T) {
	base := "https://user:PASSWORD@gw.example.com/v1?key=SECRET"
	rows, err := fallbackRows(func(string) string { return "openai:gpt-5-mini@" + base })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rows, "\n"), "openai: model gpt-5-mini at https://user:***@gw.example.com/v1?key=*** (AGENT_FALLBACK)"; got != want {
		t.Errorf("doctor's line = %q, want %q", got, want)
	}
	for _, value := range []string{
		"nope:model@" + base,
		"openai:m@ftp://user:PASSWORD@gw.example.com/?key=SECRET",
	} {
		_, err := parseFallback(value)
		if err == nil {
			t.Fatalf("%s: no error", value)
		}
		if msg := err.Error(); strings.Contains(msg, "PASSWORD") || strings.Contains(msg, "SECRET") {
			t.Errorf("the error shows a credential: %s", msg)
		} else if !strings.Contains(msg, "user:***@gw.example.com") {
			t.Errorf("the error does not name the entry masked: %s", msg)
		}
	}
}
