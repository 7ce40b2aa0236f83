//go:build linux || darwin || freebsd

package main

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func TestCodingToolsOnATerminal(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{
			{Name: "glob", Args: `{"pattern":"**/*.go"}`},
			{Name: "grep", Args: `{"pattern":"TODO","include":"*.go"}`},
			{Name: "list_files", Args: `{}`},
		}},
		llmtest.Reply{Calls: []llmtest.Call{{Name: "bash", Args: `{"command":"echo from-bash"}`}}},
		llmtest.Reply{Text: "Looked."},
	))
	defer srv.Close()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":      "/dist/\n",
		"cmd/app/main.go": "package main\n\n// TODO: flags\nfunc main() {}\n",
		"dist/bundle.go":  "// TODO built\n",
	})
	c := startConsole(t, invocation{args: []string{"look around"}, dir: dir, env: append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "NO_COLOR=1")})
	// bash asks, showing the command as code.
	c.waitFor("  bash\r\n  command:\r\n  │ echo from-bash\r\n")
	c.waitFor("run bash (exec)? " + prompt)
	// Before that, the read tools ran unasked (at once, so their previews
	// come in any order), each with its [tool] line and a preview.
	for _, want := range []string{
		"[tool] glob **/*.go", "│ cmd/app/main.go\r\n",
		"[tool] grep TODO", "│ cmd/app/main.go:3: // TODO: flags",
		"[tool] list_files", "│ cmd/app/\r\n",
		"│ (left out: 1 path that .gitignore names)",
	} {
		if !strings.Contains(c.screenText(), want) {
			t.Errorf("the terminal does not show %q before the prompt:\n%s", want, c.screenText())
		}
	}
	c.send("y\r")
	c.waitFor("[tool] bash echo from-bash")
	c.waitFor("│ from-bash")
	c.waitFor("sandbox: ")
	if code := c.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := c.stdout.String(); got != "Looked.\n" {
		t.Errorf("stdout = %q", got)
	}
	screen := c.screenText()
	if n := strings.Count(screen, prompt); n != 1 {
		t.Errorf("asked %d times; want once, for bash:\n%s", n, screen)
	}
	if strings.Contains(screen, "bundle") {
		t.Errorf("a gitignored file was shown:\n%s", screen)
	}
}

func TestCompactOnATerminal(t *testing.T) {
	var summaries atomic.Int32
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		if strings.Contains(r.LastMessage().Text(), "summary of the conversation") {
			summaries.Add(1)
			return llmtest.Reply{Text: "The user asked three questions about the moon."}
		}
		return llmtest.Reply{Text: "About " + r.LastMessage().Text() + ": " + strings.Repeat("the moon is far away. ", 100)}
	})
	defer srv.Close()
	c := startConsole(t, invocation{dir: t.TempDir(), ttyOut: true, env: append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "NO_COLOR=1")})
	c.waitFor("> ")
	c.send("/compact\r")
	c.waitFor("nothing to compact")
	c.waitFor("> ")
	for _, q := range []string{"one", "two", "three"} {
		c.send(q + "\r")
		c.waitFor("About " + q + ":")
		c.waitFor("> ")
	}
	c.send("/compact\r")
	c.waitFor("compacted: ")
	c.waitFor(" replaced by a summary, freeing about ")
	c.waitFor(" tokens; the next request is about ")
	c.waitFor("> ")
	c.send("four\r")
	c.waitFor("About four:")
	c.waitFor("> ")
	c.send("/exit\r")
	if code := c.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if summaries.Load() != 1 || !strings.Contains(last.Messages[0].Text(), "The user asked three questions about the moon.") {
		t.Errorf("%d summary requests; the next turn began with %q; want the summary", summaries.Load(), last.Messages[0].Text())
	}
	if n := len(last.Messages); n >= 7 {
		t.Errorf("the turn after /compact sent %d messages; want fewer than the 7 of the whole conversation", n)
	}
	if n := strings.Count(c.screenText(), "compacted: "); n != 1 {
		t.Errorf("the compaction was told %d times; want once", n)
	}
}
