package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/keychain"
	"github.com/zalando/go-keyring"
)

func TestKeyCommand(t *testing.T) {
	keyring.MockInit()
	const secret = "sk-piped-key-77"
	ctx := context.Background()

	steps := []struct {
		name   string
		args   []string
		stdin  string
		err    string
		stored string // the keychain then holds this for anthropic ("" = nothing)
	}{
		{"set stores the first line of piped stdin", []string{"set", "anthropic"}, secret + "\nignored\n", "", secret},
		{"the stored key is found for a question", nil, "", "", secret},
		{"set refuses an empty key", []string{"set", "anthropic"}, "\n", "no key given", secret},
		{"set refuses an unknown provider", []string{"set", "nope"}, secret, "unknown provider 'nope'", secret},
		{"set refuses a provider that needs no key", []string{"set", "ollama"}, secret, "needs no key", secret},
		{"delete removes the key", []string{"delete", "anthropic"}, "", "", ""},
		{"delete says when there is nothing to delete", []string{"delete", "anthropic"}, "", "there is no anthropic key in the keychain", ""},
		{"other words get the usage", []string{"show", "anthropic"}, "", "usage: agent-cli key set PROVIDER", ""},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			var stderr strings.Builder
			if s.args != nil {
				err := keyCommand(ctx, s.args, strings.NewReader(s.stdin), &stderr)
				if s.err == "" && err != nil || s.err != "" && (err == nil || !strings.Contains(err.Error(), s.err)) {
					t.Fatalf("err = %v; want %q", err, s.err)
				}
				if strings.Contains(stderr.String(), secret) || err != nil && strings.Contains(err.Error(), secret) {
					t.Fatalf("the key was shown: %s %v", stderr.String(), err)
				}
			}
			got, err := keychain.Get(keychainService, "anthropic")
			if s.stored == "" && !errors.Is(err, keychain.ErrNotFound) || s.stored != "" && got != s.stored {
				t.Fatalf("keychain holds %q, %v; want %q", got, err, s.stored)
			}
			if s.stored != "" {
				m, _ := resolveModel("anthropic", "", envOf())
				if key, from, err := m.findKey(envOf(), keychain.Get); key != secret || err != nil || !strings.Contains(string(from), "keychain") {
					t.Fatalf("findKey: the stored key found %v, from %q, err %v", key == secret, from, err)
				}
			}
		})
	}
}

func TestKeyCommandWithoutKeychain(t *testing.T) {
	keyring.MockInitWithError(errors.New("dbus: no session bus"))
	t.Cleanup(keyring.MockInit)
	err := keyCommand(context.Background(), []string{"set", "openai"}, strings.NewReader("sk-x\n"), &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "no keychain service is available") || !strings.Contains(err.Error(), "set OPENAI_API_KEY instead") {
		t.Fatalf("err = %v; want it to say there is no keychain and point at OPENAI_API_KEY", err)
	}
}
