//go:build linux || darwin || freebsd

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// echo answers each message by quoting it.
func echo(r *llmtest.Request) llmtest.Reply {
	return llmtest.Reply{Text: "got [" + r.LastMessage().Text() + "]"}
}

func TestTheLineEditor(t *testing.T) {
	home := t.TempDir()
	env := func(srv *llmtest.Server) []string {
		return append(modelEnv(srv, "openai", llm.OpenAI, "OPENAI_API_KEY"), "NO_COLOR=1")
	}

	t.Run("editing keys move the cursor instead of reaching the model", func(t *testing.T) {
		srv := llmtest.NewServer(echo)
		defer srv.Close()
		c := startConsole(t, invocation{dir: t.TempDir(), home: home, env: env(srv), ttyOut: true})
		c.waitFor("> ")
		// "wrld", Left three times, "o"; Home, "hello "; End, "!".
		c.send("wrld\x1b[D\x1b[D\x1b[Do\x1b[Hhello \x1b[F!\r")
		c.waitFor("got [hello world!]")
		// A word back (Alt-Left) and an insertion there.
		c.send("one three\x1b[1;3Dtwo \r")
		c.waitFor("got [one two three]")
		c.waitFor("> ")
		c.send("\x04")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d", code)
		}
		for _, r := range srv.Requests() {
			if strings.Contains(r.LastMessage().Text(), "\x1b") {
				t.Errorf("an escape reached the model: %q", r.LastMessage().Text())
			}
		}
	})

	t.Run("Up recalls a line of an earlier run", func(t *testing.T) {
		srv := llmtest.NewServer(echo)
		defer srv.Close()
		c := startConsole(t, invocation{dir: t.TempDir(), home: home, env: env(srv), ttyOut: true})
		c.waitFor("> ")
		c.send("\x1b[A\x1b[A\r") // two back: "one two three", then "hello world!"
		c.waitFor("got [hello world!]")
		c.waitFor("> ")
		c.send("/exit\r")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d", code)
		}
		data, err := os.ReadFile(filepath.Join(home, ".local", "state", "agent-cli", "history"))
		if err != nil || !strings.Contains(string(data), `"one two three"`) {
			t.Errorf("history file: %q, %v", data, err)
		}
		if fi, err := os.Stat(filepath.Join(home, ".local", "state", "agent-cli", "history")); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("history file mode %v; want 0600", fi.Mode().Perm())
		}
	})

	t.Run("a pasted block is one message, and a trailing backslash goes on", func(t *testing.T) {
		srv := llmtest.NewServer(echo)
		defer srv.Close()
		c := startConsole(t, invocation{dir: t.TempDir(), home: t.TempDir(), env: env(srv), ttyOut: true})
		c.waitFor("> ")
		c.send("\x1b[200~first line\rsecond line\rthird\x1b[201~")
		c.send("\r")
		c.waitFor("got [first line\r\nsecond line\r\nthird]")
		c.waitFor("> ")
		c.send("one\\\r")
		c.waitFor("… ")
		c.send("two\r")
		c.waitFor("got [one\r\ntwo]")
		c.waitFor("> ")
		c.send("\x04")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d requests; want one for the paste and one for the continued line", n)
		}
	})
}

func TestSlashCommands(t *testing.T) {
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "model " + r.Model + ", " + strings.Repeat("I", len(r.Messages)) + " messages"}
	})
	defer srv.Close()
	c := startConsole(t, invocation{dir: t.TempDir(), ttyOut: true, env: append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "NO_COLOR=1")})
	c.waitFor("> ")
	c.send("/help\r")
	c.waitFor("/clear")
	c.waitFor("/model [NAME]")
	c.waitFor("> ")
	c.send("hi\r")
	c.waitFor("model claude-sonnet-5, I messages")
	c.waitFor("> ")
	c.send("again\r")
	c.waitFor("model claude-sonnet-5, III messages")
	c.waitFor("> ")
	c.send("/model claude-other\r")
	c.waitFor("the model is now claude-other")
	c.waitFor("> ")
	c.send("and now?\r")
	c.waitFor("model claude-other, IIIII messages") // the conversation went on
	c.waitFor("> ")
	c.send("/clear\r")
	c.waitFor("a new conversation")
	c.waitFor("> ")
	c.send("fresh\r")
	c.waitFor("model claude-other, I messages")
	c.waitFor("> ")
	c.send("/frobnicate\r")
	c.waitFor("unknown command /frobnicate: the commands are /help, /clear, /compact, /cost, /model, /resume, /rewind, /exit")
	c.waitFor("> ")
	c.send("/usr/bin/env is what?\r") // a path, not a command
	c.waitFor("model claude-other, III messages")
	c.waitFor("> ")
	c.send("/exit\r")
	if code := c.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.LastMessage().Text(), "/") && !strings.HasPrefix(r.LastMessage().Text(), "/usr") {
			t.Errorf("a command reached the model: %q", r.LastMessage().Text())
		}
	}

	t.Run("agent-cli help prints the help", func(t *testing.T) {
		res := runAgent(t, agentBinary(t), invocation{args: []string{"help"}})
		if res.code != 0 || !strings.Contains(res.stdout, "Usage:") || !strings.Contains(res.stdout, "/clear") {
			t.Errorf("exit %d, stdout:\n%s", res.code, res.stdout)
		}
	})
}
