package main

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/internal/peers"
)

// listed is one client scenario of the suite's list.
type listed struct {
	name      string
	extension bool
}

// clientScenarios reads the client scenarios from the suite's list: a
// line "  - name [2025-06-18,2025-11-25]" each, after "Client scenarios".
func clientScenarios(t *testing.T, node, suite string) []listed {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), node, suite, "list").Output()
	if err != nil {
		t.Fatalf("conformance list: %v", err)
	}
	var res []listed
	inClient := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Client scenarios") {
			inClient = true
			continue
		}
		if !inClient || !strings.HasPrefix(strings.TrimSpace(line), "- ") {
			if inClient && strings.TrimSpace(line) == "" {
				break
			}
			continue
		}
		name, versions, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "- "), " ")
		res = append(res, listed{name: name, extension: strings.Contains(versions, "extension")})
	}
	if len(res) == 0 {
		t.Fatalf("conformance list names no client scenarios:\n%s", out)
	}
	return res
}

// TestConformanceClientMode runs every client scenario of the official
// conformance suite against this program, one at a time (sse-retry times
// the reconnection, which a machine busy with parallel scenarios delays);
// all but those the suite marks "extension" must pass, and those are not
// run (this client does not offer the grants they test).
func TestConformanceClientMode(t *testing.T) {
	node := peers.Node22(t)
	suite := peers.Conformance(t)
	bin := filepath.Join(t.TempDir(), "client")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	required, passed := 0, 0
	for _, s := range clientScenarios(t, node, suite) {
		if !s.extension {
			required++
		}
		t.Run("the "+s.name+" scenario", func(t *testing.T) {
			if s.extension {
				t.Skip("an extension scenario: not required")
			}
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "client", "--command", bin, "--scenario", s.name, "-o", t.TempDir())
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			ok := err == nil && strings.Contains(string(out), "OVERALL: PASSED")
			switch {
			case !ok:
				t.Errorf("conformance %s: %v\n%s", s.name, err, tail(out))
			default:
				passed++
			}
		})
	}
	t.Logf("%d of %d required client scenarios pass", passed, required)
}

// tail keeps the end of the suite's output, where the failed checks are.
func tail(out []byte) string {
	s := string(out)
	if len(s) > 4000 {
		s = "…" + s[len(s)-4000:]
	}
	return s
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

func TestBadContextIsNamed(t *testing.T) {
	err := run(t.Context(), []string{"http://127.0.0.1:1/mcp"}, "auth/pre-registration", "{", &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "MCP_CONFORMANCE_CONTEXT is not a JSON object") {
		t.Errorf("run() = %v", err)
	}
}
