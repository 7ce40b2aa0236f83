//go:build unix

package mcp

import (
	"slices"
	"strings"
	"testing"
)

func TestCommandEnviron(t *testing.T) {
	parent := []string{"HOME=/home/me", "PATH=/bin", "LC_ALL=C", "ANTHROPIC_API_KEY=sk-secret", "GOFLAGS=-mod=mod", "GOOGLE_API_KEY=g"}
	tests := []struct {
		name string
		c    Command
		want []string
	}{
		{"no Env passes only the allow-list", Command{}, []string{"HOME=/home/me", "PATH=/bin", "LC_ALL=C"}},
		{"Env entries are added, and win", Command{Env: []string{"TOKEN=t", "PATH=/opt/bin"}}, []string{"HOME=/home/me", "LC_ALL=C", "TOKEN=t", "PATH=/opt/bin"}},
		{"EnvNames adds named variables", Command{EnvNames: []string{"GOFLAGS"}}, []string{"HOME=/home/me", "PATH=/bin", "LC_ALL=C", "GOFLAGS=-mod=mod"}},
		{"InheritEnv passes everything", Command{InheritEnv: true, Env: []string{"X=1"}}, append(slices.Clone(parent), "X=1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.Environ(parent); !slices.Equal(got, tt.want) {
				t.Errorf("Environ = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCommandKeepsSecretsFromTheServer(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("LC_BRIDLE", "kept")
	s, err := ConnectCommand(t.Context(), "env", helperCommand(t, "sdk", "GIVEN=yes"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := callTool(t, s, "environ", "")
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Split(out, "\n")
	if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "ANTHROPIC_API_KEY=") }) {
		t.Errorf("the server got ANTHROPIC_API_KEY: %q", env)
	}
	for _, want := range []string{"GIVEN=yes", "LC_BRIDLE=kept"} {
		if !slices.Contains(env, want) {
			t.Errorf("the server did not get %s: %q", want, env)
		}
	}
}
