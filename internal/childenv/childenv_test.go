package childenv

import (
	"runtime"
	"slices"
	"testing"
)

func TestFilter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the Unix names")
	}
	env := []string{"HOME=/h", "ANTHROPIC_API_KEY=sk-secret", "PATH=/bin", "LC_ALL=C", "GOFLAGS=-mod=mod",
		"OPENAI_API_KEY=sk-2", "CGO_ENABLED=0", "AWS_SECRET_ACCESS_KEY=x", "GOOGLE_API_KEY=g", "noequals", "=x"}
	t.Run("the base list keeps what programs need and drops keys", func(t *testing.T) {
		got := Filter(env)
		want := []string{"HOME=/h", "PATH=/bin", "LC_ALL=C"}
		if !slices.Equal(got, want) {
			t.Errorf("Filter = %q, want %q", got, want)
		}
	})
	t.Run("the Go list adds the toolchain's variables, still no keys", func(t *testing.T) {
		got := Filter(env, Go...)
		want := []string{"HOME=/h", "PATH=/bin", "LC_ALL=C", "GOFLAGS=-mod=mod", "CGO_ENABLED=0"}
		if !slices.Equal(got, want) {
			t.Errorf("Filter = %q, want %q", got, want)
		}
	})
}

func TestGoPatternsDoNotLetProviderKeysThrough(t *testing.T) {
	// "GO*" matches GOOGLE_API_KEY; Filter with Go must not.
	for _, name := range []string{"GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"} {
		if got := Filter([]string{name + "=x"}, Go...); len(got) != 0 {
			t.Errorf("Filter let %s through", name)
		}
	}
}
