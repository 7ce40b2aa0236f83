//go:build linux || darwin || freebsd

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func TestJSONOutput(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Text: "Looking.", Calls: []llmtest.Call{call("list_files", map[string]any{})}},
		llmtest.Reply{Text: "The answer."},
	))
	defer srv.Close()
	res := runAgent(t, agentBinary(t), invocation{args: []string{"--json", "what is here?"}, env: modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")})
	if res.code != 0 {
		t.Fatalf("exit %d", res.code)
	}
	var r jsonResult
	if err := json.Unmarshal([]byte(res.stdout), &r); err != nil || strings.Count(res.stdout, "\n") != 1 {
		t.Fatalf("stdout is not one JSON object: %q (%v)", res.stdout, err)
	}
	if r.Answer != "The answer." || r.Stop != "done" || r.Steps != 2 || r.Usage.Output == 0 || !sessionIDPattern.MatchString(r.Session) {
		t.Errorf("result = %+v", r)
	}
}

func TestConversationsAreSaved(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "reply to " + r.LastMessage().Text()}
	})
	defer srv.Close()
	env := modelEnv(srv, "openai", llm.OpenAI, "OPENAI_API_KEY")
	run := func(args ...string) result {
		return runAgent(t, agentBinary(t), invocation{args: args, dir: dir, home: home, env: env})
	}
	run("first question")
	run("second question")
	res := run("sessions")
	if n := len(regexp.MustCompile(`(?m)^\d{8}-\d{6}-[0-9a-f]{8} `).FindAllString(res.stdout, -1)); n != 2 || !strings.Contains(res.stdout, "first question") {
		t.Fatalf("sessions lists %d:\n%s", n, res.stdout)
	}
	first := regexp.MustCompile(`(?m)^(\S+) .*first question`).FindStringSubmatch(res.stdout)[1]

	run("--continue", "and then?")
	last := srv.Requests()[len(srv.Requests())-1]
	if len(last.Messages) != 3 || last.Messages[0].Text() != "second question" {
		t.Errorf("--continue sent %d messages, first %q; want the last conversation", len(last.Messages), last.Messages[0].Text())
	}
	run("--resume", first, "more?")
	last = srv.Requests()[len(srv.Requests())-1]
	if len(last.Messages) != 3 || last.Messages[0].Text() != "first question" {
		t.Errorf("--resume sent %d messages, first %q", len(last.Messages), last.Messages[0].Text())
	}
	res = run("--resume", "20200101-000000-deadbeef", "x")
	if res.code != 1 || !strings.Contains(res.stderr, "no conversation 20200101-000000-deadbeef") {
		t.Errorf("a missing session: exit %d, %s", res.code, res.stderr)
	}
}

func TestRewindAndCostOnATerminal(t *testing.T) {
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		if len(r.LastToolResults()) > 0 {
			return llmtest.Reply{Text: "written"}
		}
		if q := r.LastMessage().Text(); strings.HasPrefix(q, "write ") {
			return llmtest.Reply{Calls: []llmtest.Call{writeCall(strings.TrimPrefix(q, "write "), "x")}}
		}
		return llmtest.Reply{Text: "ok"}
	})
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine\n"), 0o644)
	c := startConsole(t, invocation{args: []string{"--autonomy", "auto"}, dir: dir, ttyOut: true, env: append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "NO_COLOR=1")})
	c.waitFor("> ")
	c.send("write a.txt\r")
	c.waitFor("written")
	c.waitFor("> ")
	c.send("write keep.txt\r")
	c.waitFor("written")
	c.waitFor("> ")
	c.send("/cost\r")
	c.waitFor("this conversation: tokens ")
	c.waitFor("> ")
	// Someone else changes keep.txt: the rewind refuses, naming it.
	os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("theirs\n"), 0o644)
	c.send("/rewind\r")
	c.waitFor("nothing was rewound: these files changed since agent-cli wrote them: keep.txt")
	c.waitFor("> ")
	os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("x"), 0o644)
	c.send("/rewind 2\r")
	c.waitFor("took back 2 turns; the earliest question was: write a.txt")
	c.waitFor("> ")
	c.send("/exit\r")
	if code := c.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Error("a.txt, written in a rewound turn, is still there")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(data) != "mine\n" {
		t.Errorf("keep.txt = %q; want it as it was before the rewound turn", data)
	}
}

func TestThinkingAndTheSpinner(t *testing.T) {
	t.Run("--thinking shows the reasoning dimmed and asks Claude for it", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Thinking: "pondering the question", Signature: "sig", Text: "ok"}))
		defer srv.Close()
		c := startConsole(t, invocation{args: []string{"--thinking", "hi"}, env: modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY")})
		c.waitFor("\x1b[2mponder") // dimmed
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if !strings.Contains(ownEscapes.ReplaceAllString(c.screenText(), ""), "pondering the question") {
			t.Errorf("the reasoning is not shown: %q", c.screenText())
		}
		var body struct {
			Thinking struct {
				Type   string `json:"type"`
				Budget int    `json:"budget_tokens"`
			} `json:"thinking"`
		}
		json.Unmarshal(srv.Requests()[0].Body, &body)
		if body.Thinking.Type != "enabled" || body.Thinking.Budget < 1024 {
			t.Errorf("thinking = %+v", body.Thinking)
		}
	})
	t.Run("the spinner shows the time, and without colour writes no escape", func(t *testing.T) {
		asked := make(chan struct{}, 1)
		srv := llmtest.NewServer(func(*llmtest.Request) llmtest.Reply {
			asked <- struct{}{}
			return llmtest.Reply{Fault: &llmtest.Fault{Stall: true}}
		})
		defer srv.Close()
		c := startConsole(t, invocation{args: []string{"take your time"}, env: append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "NO_COLOR=1")})
		c.waitFor("working… 0s")
		<-asked
		c.send("\x03")
		c.wait()
		if strings.Contains(c.screenText(), "\x1b") {
			t.Errorf("an escape sequence despite NO_COLOR: %q", c.screenText())
		}
	})
}

func TestMarkdownOnATerminal(t *testing.T) {
	answer := "# Plan\n\nThis is **important** and `code`.\n\n- one\n- two\n\n```go\nfmt.Println(\"hi\")\n```\n"
	for _, tt := range []struct {
		name  string
		env   []string
		plain bool
	}{
		{"with colour it is rendered", nil, false},
		{"with NO_COLOR it is plain", []string{"NO_COLOR=1"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: answer}))
			defer srv.Close()
			c := startConsole(t, invocation{args: []string{"plan"}, ttyOut: true, env: append(modelEnv(srv, "openai", llm.OpenAI, "OPENAI_API_KEY"), tt.env...)})
			if code := c.wait(); code != 0 {
				t.Fatalf("exit %d", code)
			}
			screen := ownEscapes.ReplaceAllString(c.screenText(), "")
			rendered := !strings.Contains(screen, "**important**") && !strings.Contains(screen, "```") && strings.Contains(screen, "important") && strings.Contains(screen, "fmt.Println")
			if rendered == tt.plain {
				t.Errorf("rendered %v, want %v: %q", rendered, !tt.plain, c.screenText())
			}
			assertInert(t, "the terminal", c.screenText())
		})
	}
	t.Run("piped, the answer is the Markdown as written", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: answer}))
		defer srv.Close()
		res := runAgent(t, agentBinary(t), invocation{args: []string{"plan"}, env: modelEnv(srv, "openai", llm.OpenAI, "OPENAI_API_KEY")})
		if res.stdout != answer {
			t.Errorf("stdout = %q", res.stdout)
		}
	})
}
