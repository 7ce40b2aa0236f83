package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// timed are the scenarios that time the client (sse-retry measures the
// wait before a reconnection): they run on their own, after the rest,
// since a machine busy with the parallel scenarios delays the client.
var timed = []string{"sse-retry"}

// TestConformanceClientMode runs every client scenario of the official
// conformance suite against this program (the suite's "all", in parallel,
// then each timed scenario alone); all but those the suite marks
// "extension" must pass.
func TestConformanceClientMode(t *testing.T) {
	node := peers.Node22(t)
	suite := peers.Conformance(t)
	bin := filepath.Join(t.TempDir(), "client")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	results := t.TempDir()
	cmd := exec.CommandContext(ctx, node, suite, "client", "--command", bin, "--suite", "all", "-o", results)
	cmd.WaitDelay = 5 * time.Second
	out, _ := cmd.CombinedOutput() // the extensions fail it; the results say which
	passed := scenarioResults(t, results)
	for _, name := range timed {
		alone := t.TempDir()
		cmd := exec.CommandContext(ctx, node, suite, "client", "--command", bin, "--scenario", name, "-o", alone)
		cmd.WaitDelay = 5 * time.Second
		more, _ := cmd.CombinedOutput()
		out = append(out, more...)
		delete(passed, name)
		for k, v := range scenarioResults(t, alone) {
			passed[k] = v
		}
	}

	required, ok := 0, 0
	for _, s := range clientScenarios(t, node, suite) {
		if s.extension {
			continue // not required: this client does not offer the grants they test
		}
		required++
		pass, ran := passed[s.name]
		switch {
		case !ran:
			t.Errorf("scenario %s did not run", s.name)
		case !pass:
			t.Errorf("scenario %s failed", s.name)
		default:
			ok++
		}
	}
	if t.Failed() {
		t.Logf("suite output:\n%s", tail(out))
	}
	t.Logf("%d of %d required client scenarios pass", ok, required)
}

var resultDir = regexp.MustCompile(`^(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$`)

// scenarioResults reads the suite's result folders (auth scenarios one
// level down, under auth/): scenario name → whether no check failed. The
// failed checks are logged.
func scenarioResults(t *testing.T, dir string) map[string]bool {
	t.Helper()
	res := make(map[string]bool)
	var walk func(dir, prefix string)
	walk = func(dir, prefix string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			m := resultDir.FindStringSubmatch(e.Name())
			if m == nil {
				walk(filepath.Join(dir, e.Name()), prefix+e.Name()+"/")
				continue
			}
			name := prefix + m[1]
			data, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
			if err != nil {
				t.Errorf("scenario %s: %v", name, err)
				continue
			}
			var checks []struct{ ID, Status, ErrorMessage string }
			if err := json.Unmarshal(data, &checks); err != nil {
				t.Errorf("scenario %s: checks.json: %v", name, err)
				continue
			}
			pass := len(checks) > 0
			for _, c := range checks {
				if c.Status == "FAILURE" {
					pass = false
					if !strings.HasPrefix(name, "auth/client-credentials") && !strings.HasPrefix(name, "auth/cross-app") {
						t.Logf("scenario %s: check %s failed: %s", name, c.ID, c.ErrorMessage)
					}
				}
			}
			res[name] = pass
		}
	}
	walk(dir, "")
	return res
}

// tail keeps the end of the suite's output, where its summary is.
func tail(out []byte) string {
	s := string(out)
	if len(s) > 6000 {
		s = "…" + s[len(s)-6000:]
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
