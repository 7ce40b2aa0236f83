package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/internal/peers"
)

// baseline lists the server scenarios of the conformance suite (0.1.16,
// --suite all) that the Go SDK's own everything-server passes in stateful
// HTTP mode: all 32. Ours must pass every one.
var baseline = []string{
	"server-initialize", "logging-set-level", "ping", "completion-complete",
	"tools-list", "tools-call-simple-text", "tools-call-image", "tools-call-audio",
	"tools-call-embedded-resource", "tools-call-mixed-content", "tools-call-with-logging",
	"tools-call-error", "tools-call-with-progress", "tools-call-sampling",
	"tools-call-elicitation", "json-schema-2020-12", "elicitation-sep1034-defaults",
	"server-sse-polling", "server-sse-multiple-streams", "elicitation-sep1330-enums",
	"resources-list", "resources-read-text", "resources-read-binary",
	"resources-templates-read", "resources-subscribe", "resources-unsubscribe",
	"prompts-list", "prompts-get-simple", "prompts-get-with-args",
	"prompts-get-embedded-resource", "prompts-get-with-image", "dns-rebinding-protection",
}

func TestConformanceSuitePassesEveryBaselineScenario(t *testing.T) {
	node := peers.Node22(t)
	suite := peers.Conformance(t)

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	url := startServer(t, ctx)

	results := t.TempDir()
	cmd := exec.CommandContext(ctx, node, suite, "server", "--url", url, "--suite", "all", "-o", results)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("conformance suite failed: %v\n%s", err, summary(out))
	}

	passed := scenarioResults(t, results)
	count := 0
	for _, name := range baseline {
		ok, ran := passed[name]
		switch {
		case !ran:
			t.Errorf("scenario %s did not run", name)
		case !ok:
			t.Errorf("scenario %s failed", name)
		default:
			count++
		}
	}
	t.Logf("%d of %d baseline scenarios pass (%d scenarios ran)", count, len(baseline), len(passed))
}

// startServer runs the program in this process on a free loopback port
// and returns its URL; it stops when the test ends.
func startServer(t *testing.T, ctx context.Context) string {
	t.Helper()
	ctx, stop := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"-port", "0"}, pw, io.Discard)
		pw.CloseWithError(io.EOF)
		done <- err
	}()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("server did not start: %v", err)
	}
	go io.Copy(io.Discard, pr)
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("server said %q, not where it listens", line)
	}
	return url
}

var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$`)

// scenarioResults reads the suite's result folders: scenario name →
// whether none of its checks failed.
func scenarioResults(t *testing.T, dir string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	res := make(map[string]bool)
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			t.Errorf("scenario %s: %v", m[1], err)
			continue
		}
		var checks []struct {
			ID, Status, ErrorMessage string
		}
		if err := json.Unmarshal(data, &checks); err != nil {
			t.Errorf("scenario %s: checks.json: %v", m[1], err)
			continue
		}
		ok := true
		for _, c := range checks {
			if c.Status == "FAILURE" {
				ok = false
				t.Logf("scenario %s: check %s failed: %s", m[1], c.ID, c.ErrorMessage)
			}
		}
		res[m[1]] = ok
	}
	return res
}

// summary keeps the end of the suite's output, where its summary is.
func summary(out []byte) string {
	s := string(out)
	if i := strings.LastIndex(s, "=== SUMMARY ==="); i >= 0 {
		return s[i:]
	}
	if len(s) > 4000 {
		s = "…" + s[len(s)-4000:]
	}
	return s
}
