package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
)

// repl holds a conversation on the terminal: each line is a turn on the
// same agent. Ctrl-C cancels the turn in progress (or the line being
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

	s.ui.notice("agent-cli: ask about the code in %s; Ctrl-C cancels a turn, Ctrl-D or /exit leaves", s.work.abs)
	for {
		s.ui.line("")
		fmt.Fprint(s.ui.err, s.ui.paint(bold, "> "))
		wait, stop := interruptible()
		line, err := s.lines.next(wait)
		interrupted := wait.Err() != nil
		stop()
		switch {
		case terminated.Load():
			return errInterrupted
		case interrupted:
			fmt.Fprintln(s.ui.err)
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(s.ui.err)
			return nil
		case err != nil:
			return err
		}
		switch line = strings.TrimSpace(line); line {
		case "":
			continue
		case "/exit", "/quit":
			return nil
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
