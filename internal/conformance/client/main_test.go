package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/internal/peers"
)

// TestConformanceClientMode runs the official conformance suite in client
// mode against this program, one scenario at a time.
func TestConformanceClientMode(t *testing.T) {
	node := peers.Node22(t)
	suite := peers.Conformance(t)
	bin := filepath.Join(t.TempDir(), "client")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, scenario := range []string{"initialize", "tools_call", "sse-retry"} {
		t.Run("the "+scenario+" scenario passes", func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), node, suite, "client",
				"--command", bin, "--scenario", scenario, "-o", t.TempDir())
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if err != nil || !strings.Contains(out.String(), "OVERALL: PASSED") {
				t.Errorf("conformance %s: %v\n%s", scenario, err, out.String())
			}
		})
	}
}

func TestUnknownScenarioIsNamed(t *testing.T) {
	err := run(t.Context(), []string{"http://127.0.0.1:1/mcp"}, "auth/client-credentials-jwt", "", &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `scenario "auth/client-credentials-jwt" is not supported`) {
		t.Errorf("run() = %v", err)
	}
}

func TestMissingURLShowsUsage(t *testing.T) {
	err := run(t.Context(), nil, "initialize", "", &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "usage: client <server-url>") {
		t.Errorf("run() = %v", err)
	}
}
