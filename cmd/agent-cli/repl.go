package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/internal/inert"
)

// repl holds a conversation on the terminal: each message is a turn on the
// same agent. Messages are typed in a line editor (history, cursor keys,
// paste); a line starting with a slash is a command, never sent to the
// model. Ctrl-C cancels the turn in progress (or drops the line being
// typed); Ctrl-D or /exit leaves.
//
// The turns do not run under ctx, which the first Ctrl-C cancels for good:
// interrupts are taken here, one turn at a time, and a SIGTERM still ends
// the conversation.
func (s *session) repl(ctx context.Context) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	base := context.WithoutCancel(ctx)
	var terminated atomic.Bool

	// interruptible returns a context that the next signal cancels.
	interruptible := func() (context.Context, context.CancelFunc) {
		c, cancel := context.WithCancel(base)
		go func() {
			select {
			case v := <-sig:
				if v == syscall.SIGTERM {
					terminated.Store(true)
				}
				cancel()
			case <-c.Done():
			}
		}()
		return c, cancel
	}

	s.ui.notice("agent-cli: ask about the code in %s; /help lists the commands, Ctrl-C cancels a turn, Ctrl-D or /exit leaves", s.work.abs)
	for {
		s.ui.line("")
		wait, stop := interruptible()
		line, err := s.readMessage(wait)
		interrupted := wait.Err() != nil
		stop()
		switch {
		case terminated.Load():
			return errInterrupted
		case interrupted, errors.Is(err, errDropped):
			if interrupted {
				fmt.Fprintln(s.ui.err)
			}
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(s.ui.err)
			return nil
		case err != nil:
			return err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if name, arg, ok := command(line); ok {
			if done := s.command(ctx, name, arg); done {
				return nil
			}
			continue
		}

		turn, stop := interruptible()
		err = s.ask(turn, line)
		stop()
		switch {
		case terminated.Load():
			return errInterrupted
		case err != nil && !errors.Is(err, errInterrupted):
			s.ui.failure(err)
		}
	}
}

// readMessage reads the next message: in the line editor when there is
// one, else a line.
func (s *session) readMessage(ctx context.Context) (string, error) {
	if s.editor != nil {
		return s.editor.read(ctx, s.ui.paint(bold, "> "))
	}
	fmt.Fprint(s.ui.err, s.ui.paint(bold, "> "))
	return s.lines.next(ctx)
}

// slashCommand is a slash command: a slash and a word, then its argument.
// "/usr/bin/x is what?" has a second slash, so it is a message.
var slashCommand = regexp.MustCompile(`^/([a-z][a-z-]*)(?:\s+(.*))?$`)

// command splits a slash command into its name and argument.
func command(line string) (name, arg string, ok bool) {
	m := slashCommand.FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	return m[1], strings.TrimSpace(m[2]), true
}

// commands are the conversation's slash commands, for /help.
var commands = []struct{ name, help string }{
	{"/help", "list the commands"},
	{"/clear", "start a new conversation: the model forgets the earlier turns"},
	{"/compact", "replace the older turns with a summary, to make room"},
	{"/cost", "the tokens and cost of the conversation so far"},
	{"/model [NAME]", "go on with another model of the same provider, or say which is used"},
	{"/resume [ID]", "continue a saved conversation of this folder (a list to choose from)"},
	{"/rewind [N]", "take back the last N turns (1 when left out), and the files written in them"},
	{"/exit", "leave (so does Ctrl-D)"},
}

func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, strings.Fields(c.name)[0])
	}
	return strings.Join(names, ", ")
}

// command runs a slash command; done reports that the conversation ends.
func (s *session) command(ctx context.Context, name, arg string) (done bool) {
	switch name {
	case "exit", "quit":
		return true
	case "help":
		var b strings.Builder
		b.WriteString("commands:\n")
		for _, c := range commands {
			fmt.Fprintf(&b, "  %-15s %s\n", c.name, c.help)
		}
		b.WriteString("A line ending in \\ goes on on the next; a pasted block is one message, sent with Enter.")
		s.ui.line("%s", b.String())
	case "clear":
		if err := s.agent.SetHistory(nil); err != nil {
			s.ui.failure(err)
			return false
		}
		if s.store != nil {
			s.saved = &agent.Session{ID: agent.NewSessionID()}
		}
		s.ui.notice("a new conversation: the earlier turns are forgotten")
	case "cost":
		s.ui.notice("this conversation: %s", usageLine(s.agent.Usage()))
	case "compact":
		// The agent's EventCompacted says what was freed.
		if _, err := s.agent.Compact(ctx); err != nil {
			s.ui.failure(err)
			return false
		}
		s.save()
	case "rewind":
		n := 1
		if arg != "" {
			if _, err := fmt.Sscan(arg, &n); err != nil || n < 1 {
				s.ui.failure(fmt.Errorf("/rewind %s: give a number of turns, such as /rewind 2", arg))
				return false
			}
		}
		s.rewind(ctx, n)
	case "resume":
		o := *s.opts
		o.cont, o.resume = false, arg
		if arg == "" {
			if err := s.pickSession(ctx, &o); err != nil || o.resume == "" {
				return false
			}
		}
		if err := s.openSession(&o); err != nil {
			s.ui.failure(err)
		}
	case "model":
		if arg == "" {
			s.ui.notice("the model is %s", s.model)
			return false
		}
		if err := s.switchModel(ctx, arg); err != nil {
			s.ui.failure(err)
			return false
		}
		s.ui.notice("the model is now %s", s.model)
	default:
		s.ui.line("%s unknown command /%s: the commands are %s", s.ui.paint(yellow, "?"), inert.Line(name), commandNames())
	}
	return false
}
