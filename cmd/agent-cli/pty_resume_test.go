//go:build linux || darwin || freebsd

package main

import (
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func TestRightAndWordRightOnATerminal(t *testing.T) {
	srv := llmtest.NewServer(echo)
	defer srv.Close()
	c := startConsole(t, invocation{dir: t.TempDir(), home: t.TempDir(), ttyOut: true, env: append(modelEnv(srv, "openai", llm.OpenAI, "OPENAI_API_KEY"), "NO_COLOR=1")})
	c.waitFor("> ")
	// "ac", Left twice, Right once, "b".
	c.send("ac\x1b[D\x1b[D\x1b[Cb\r")
	c.waitFor("got [abc]")
	c.waitFor("> ")
	// Home, a word forward (Alt-Right), an insertion there.
	c.send("two four\x1b[H\x1b[1;3Cthree \r")
	c.waitFor("got [two three four]")
	c.waitFor("> ")
	c.send("\x04")
	if code := c.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestResumeOnATerminal(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "reply to " + r.LastMessage().Text() + " with " + strings.Repeat("I", len(r.Messages))}
	})
	defer srv.Close()
	env := append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "NO_COLOR=1")
	for _, q := range []string{"about apples", "about pears"} {
		c := startConsole(t, invocation{dir: dir, home: home, ttyOut: true, env: env})
		c.waitFor("> ")
		c.send(q + "\r")
		c.waitFor("reply to " + q + " with I\r\n")
		c.waitFor("> ")
		c.send("/exit\r")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d", code)
		}
	}

	t.Run("/resume lists the conversations and goes on with the one chosen", func(t *testing.T) {
		c := startConsole(t, invocation{dir: dir, home: home, ttyOut: true, env: env})
		c.waitFor("> ")
		c.send("/resume\r")
		c.waitFor(" 1  ")
		c.waitFor("about pears")
		c.waitFor(" 2  ")
		c.waitFor("about apples")
		c.waitFor("continue which? [1-2, Enter for a new one] ")
		c.send("2\r")
		c.waitFor("(1 turn): about apples")
		c.waitFor("> ")
		c.send("and then?\r")
		c.waitFor("reply to and then? with III\r\n") // the earlier turn went along
		c.waitFor("> ")
		c.send("/exit\r")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d", code)
		}
		last := srv.Requests()[len(srv.Requests())-1]
		if last.Messages[0].Text() != "about apples" {
			t.Errorf("the resumed turn began with %q; want the chosen conversation", last.Messages[0].Text())
		}
	})

	t.Run("--continue goes on with the latest", func(t *testing.T) {
		c := startConsole(t, invocation{args: []string{"--continue"}, dir: dir, home: home, ttyOut: true, env: env})
		c.waitFor("(2 turns): about apples")
		c.waitFor("> ")
		c.send("more?\r")
		c.waitFor("reply to more? with IIIII\r\n")
		c.waitFor("> ")
		c.send("\x04")
		if code := c.wait(); code != 0 {
			t.Fatalf("exit %d", code)
		}
	})
}
