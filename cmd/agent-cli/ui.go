package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/internal/inert"
	"github.com/bridle-dev/bridle/tool"
	"golang.org/x/term"
)

// isTerminal reports whether f is a file open on a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// ui shows a run: the answer on stdout, and on stderr one line for each
// thing that happened. On a terminal, and without NO_COLOR, stderr gets
// colour and a spinner while the model is working.
type ui struct {
	out, err io.Writer
	outTTY   bool // stdout is a terminal: the answer streams as it comes
	errTTY   bool // stderr is a terminal
	fancy    bool // stderr is a terminal that may get colour
	spins    bool // stderr is a terminal that may get a spinner, with or without colour

	mu         sync.Mutex // orders writes to out and err
	midLine    bool       // the answer on stdout does not end its line yet
	midThought bool       // the thinking on stderr does not end its line yet
	pending    strings.Builder
	called     bool // this step called a tool, so its text was not the answer

	autonomy    agent.Autonomy // to explain why a call was not run
	maxSteps    int
	interactive bool // whether the person could have been asked
	spin        *spinner
	getenv      func(string) string
	quietOut    bool         // --json: the answer goes into the JSON object, not to stdout
	thinking    bool         // --thinking: the model's reasoning is shown, dimmed
	began       time.Time    // when the run began, for the spinner's clock
	answer      inert.Stream // the answer streamed to a terminal
	md          *markdown    // renders the answer on a terminal with colour; nil when plain
}

func newUI(stdout, stderr io.Writer, getenv func(string) string) *ui {
	errTTY := isTerminal(stderr)
	spins := errTTY && getenv("TERM") != "dumb"
	fancy := spins && getenv("NO_COLOR") == ""
	u := &ui{out: stdout, err: stderr, outTTY: isTerminal(stdout), errTTY: errTTY, fancy: fancy, spins: spins, getenv: getenv}
	if u.outTTY && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb" {
		width := 80
		if f, ok := stdout.(*os.File); ok {
			if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
				width = w
			}
		}
		u.md = newMarkdown(width)
	}
	return u
}

// The colours of activity lines.
const (
	dim    = "2"
	red    = "31"
	green  = "32"
	yellow = "33"
	cyan   = "36"
	bold   = "1"
)

// paint wraps s in an ANSI colour when colour is on.
func (u *ui) paint(color, s string) string {
	if !u.fancy || s == "" {
		return s
	}
	return "\x1b[" + color + "m" + s + "\x1b[0m"
}

// line writes one activity line to stderr, first ending a line the answer
// left open when both go to the same terminal.
func (u *ui) line(format string, args ...any) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.lineLocked(format, args...)
}

func (u *ui) lineLocked(format string, args ...any) {
	u.stopSpinLocked()
	u.breakLineLocked()
	if u.midThought {
		io.WriteString(u.err, "\n")
		u.midThought = false
	}
	fmt.Fprintf(u.err, format+"\n", args...)
}

// event shows one agent event. Text streams to stdout when stdout is a
// terminal, made inert; otherwise each step's text is held until the step
// ends, and goes to stdout, byte for byte, only if the step called no
// tool, so that a redirected stdout holds the answer and not the model's
// remarks on the way. Everything shown on stderr is made inert.
func (u *ui) event(ev agent.Event) {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch ev.Type {
	case agent.EventText:
		if u.quietOut {
			u.pending.WriteString(ev.Text)
		} else if u.outTTY && u.md != nil {
			if out := u.md.next(ev.Text); out != "" {
				u.stopSpinLocked()
				io.WriteString(u.out, out)
				u.startSpinLocked()
			}
		} else if u.outTTY {
			u.stopSpinLocked()
			io.WriteString(u.out, u.answer.Next(ev.Text))
			u.midLine = !strings.HasSuffix(ev.Text, "\n")
		} else {
			u.pending.WriteString(ev.Text)
		}
	case agent.EventThinking:
		if u.thinking && ev.Text != "" {
			u.stopSpinLocked()
			u.breakLineLocked()
			io.WriteString(u.err, u.paint(dim, inert.String(ev.Text)))
			u.midThought = !strings.HasSuffix(ev.Text, "\n")
		}
	case agent.EventCalling:
		u.flushMarkdownLocked()
		u.narrateLocked()
		u.lineLocked("%s %s%s", u.paint(cyan, "[tool]"), inert.Line(ev.Call.Name), u.paint(dim, summary(ev.Call)))
		u.startSpinLocked()
	case agent.EventReturned:
		if ev.Failed || reportsFailure(ev.Call.Name, ev.Output) {
			u.lineLocked("%s %s %s", u.paint(cyan, "[tool]"), inert.Line(ev.Call.Name), u.paint(red, "failed: "+firstLine(ev.Output, 120)))
			u.previewLocked(red, ev.Output, 1)
		} else {
			u.previewLocked(dim, ev.Output, 0)
		}
		u.startSpinLocked()
	case agent.EventDeclined:
		u.narrateLocked()
		msg := "was not run"
		if why := u.whyNot(ev); why != "" {
			msg += " (" + why + ")"
		}
		u.lineLocked("%s %s %s", u.paint(cyan, "[tool]"), inert.Line(ev.Call.Name), u.paint(yellow, msg))
	case agent.EventRetrying:
		u.lineLocked("%s", u.paint(yellow, fmt.Sprintf("retrying in %s (%s)", roundWait(ev.Retry.Wait), inert.Line(ev.Retry.Reason))))
		u.startSpinLocked()
	case agent.EventCompacted:
		// Both /compact and a run that would not fit otherwise come here.
		c := ev.Compaction
		u.flushMarkdownLocked()
		u.lineLocked("%s", u.paint(dim, fmt.Sprintf("compacted: %s replaced by a summary, freeing about %s tokens; the next request is about %s tokens instead of %s",
			plural(c.Messages, "message"), count(c.Freed()), count(c.After), count(c.Before))))
	case agent.EventStep:
		u.flushMarkdownLocked()
		u.endStepLocked()
		u.startSpinLocked()
	}
}

// previewLines is how many lines of a tool's result are shown under it.
const previewLines = 3

// previewLocked shows a few lines of a tool's result under its [tool]
// line, from line skip on, and how many more there are.
func (u *ui) previewLocked(color, out string, skip int) {
	lines := splitLines(strings.TrimRight(out, "\n"))
	if skip >= len(lines) {
		return
	}
	lines = lines[skip:]
	for i, l := range lines {
		if i == previewLines {
			u.lineLocked("  %s", u.paint(dim, fmt.Sprintf("│ … %s", plural(len(lines)-previewLines, "more line"))))
			break
		}
		u.lineLocked("  %s", u.paint(color, "│ "+inert.Line(clip.String(l, 160))))
	}
}

// reportsFailure reports whether a tool's output says that what it ran
// failed, though the call itself succeeded: a build error from go_check,
// FAIL from go_test, a non-zero exit from go_run or bash.
func reportsFailure(name, out string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	switch {
	case strings.HasPrefix(first, "FAIL"), strings.HasPrefix(first, "go build found problems"), strings.Contains(first, "go vet found problems"):
		return true
	case strings.HasSuffix(name, "go_run"):
		for _, l := range strings.Split(out, "\n") {
			if code, ok := strings.CutPrefix(l, "exit code: "); ok {
				return strings.TrimSpace(code) != "0"
			}
		}
	}
	return false
}

// flushMarkdownLocked shows what the Markdown renderer still holds.
func (u *ui) flushMarkdownLocked() {
	if u.md == nil {
		return
	}
	if out := u.md.flush(); out != "" {
		u.stopSpinLocked()
		io.WriteString(u.out, out)
	}
}

// narrateLocked sends the text held for a step that turned out to call
// tools to stderr: it was a remark on the way, not the answer.
func (u *ui) narrateLocked() {
	u.called = true
	text := strings.TrimRight(u.pending.String(), "\n")
	u.pending.Reset()
	if strings.TrimSpace(text) != "" {
		u.lineLocked("%s", u.paint(dim, inert.String(text)))
	}
}

// endStepLocked settles the text held for a step that has ended: the
// answer, when the step called no tool.
func (u *ui) endStepLocked() {
	if u.called {
		u.narrateLocked()
		u.called = false
		return
	}
	text := u.pending.String()
	u.pending.Reset()
	if text == "" || u.quietOut {
		return
	}
	io.WriteString(u.out, text)
	u.midLine = false
	if !strings.HasSuffix(text, "\n") {
		io.WriteString(u.out, "\n")
	}
}

// whyNot says in a few words why a call was not run, when the autonomy
// explains it; a person's own "no" needs no explanation.
func (u *ui) whyNot(ev agent.Event) string {
	risk := ev.Call.Risk
	switch {
	case u.maxSteps > 0 && ev.Step >= u.maxSteps:
		return "the step limit was reached; --max-steps raises it"
	case u.autonomy == agent.ReadOnly && risk != tool.Read:
		return "autonomy read-only"
	case needsApproval(u.autonomy, risk) && !u.interactive:
		return "it needs approval, and there is no terminal to ask; --autonomy " + nextAutonomy(risk) + " lets it run"
	case needsApproval(u.autonomy, risk):
		return ""
	}
	return firstLine(ev.Why, 120)
}

// needsApproval reports whether autonomy a asks before a call of risk r.
func needsApproval(a agent.Autonomy, r tool.Risk) bool {
	switch a {
	case agent.Ask:
		return r != tool.Read
	case agent.Edits:
		return r == tool.Exec
	}
	return false
}

func nextAutonomy(r tool.Risk) string {
	if r == tool.Write {
		return "edits"
	}
	return "auto"
}

// breakLineLocked ends the answer's open line on the terminal before
// stderr writes, when both show on it.
func (u *ui) breakLineLocked() {
	if u.midLine && u.errTTY {
		io.WriteString(u.err, "\n")
		u.midLine = false
	}
}

// begin shows that a run started: the spinner, on a terminal.
func (u *ui) begin() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.began = time.Now()
	u.startSpinLocked()
}

// end finishes the display of a run: the answer's last line is ended, and a
// run that did not finish says why.
func (u *ui) end(out agent.Outcome) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stopSpinLocked()
	u.flushMarkdownLocked()
	u.stopSpinLocked()
	u.endStepLocked()
	if rest := u.answer.Flush(); rest != "" {
		io.WriteString(u.out, rest)
	}
	if u.midLine {
		io.WriteString(u.out, "\n")
		u.midLine = false
	}
	if out.Stop != "" && out.Stop != agent.StopDone {
		steps := "steps"
		if out.Steps == 1 {
			steps = "step"
		}
		if out.Stop == agent.StopCancelled && u.errTTY {
			io.WriteString(u.err, "\n") // after the ^C the terminal echoed
		}
		msg := fmt.Sprintf("stopped: %s after %d %s", strings.ReplaceAll(string(out.Stop), "_", " "), out.Steps, steps)
		if out.Stop == agent.StopRefused && out.Reason != "" {
			msg += " (" + inert.Line(out.Reason) + ")"
		}
		u.lineLocked("%s", u.paint(yellow, msg))
	}
}

// notice writes a line of information to stderr, made inert: its
// arguments may come from a server or a project file.
func (u *ui) notice(format string, args ...any) {
	u.line("%s", u.paint(dim, inert.String(fmt.Sprintf(format, args...))))
}

// warn writes a warning to stderr, made inert.
func (u *ui) warn(format string, args ...any) {
	u.line("%s %s", u.paint(yellow, "warning:"), inert.String(fmt.Sprintf(format, args...)))
}

// failure writes an error that ended a turn to stderr, made inert.
func (u *ui) failure(err error) {
	u.line("%s %s", u.paint(red, "error:"), inert.String(err.Error()))
}

// firstLine is the first line of s, at most max bytes, made inert.
func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return inert.Line(clip.String(s, max))
}

func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// spinner draws a turning mark at the start of the line on stderr until
// stopped.
type spinner struct {
	stop chan struct{}
	done chan struct{}
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (u *ui) startSpinLocked() {
	if !u.spins || u.spin != nil || u.midLine || u.midThought {
		return
	}
	s := &spinner{stop: make(chan struct{}), done: make(chan struct{})}
	u.spin = s
	go func() {
		defer close(s.done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			u.mu.Lock()
			select {
			case <-s.stop:
				u.mu.Unlock()
				return
			default:
			}
			fmt.Fprintf(u.err, "\r%s %s", u.paint(cyan, spinFrames[i%len(spinFrames)]), u.paint(dim, "working… "+elapsed(time.Since(u.began))))
			u.mu.Unlock()
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
}

// stopSpinLocked removes the spinner; u.mu is held, so the spinner's
// goroutine is not drawing.
func (u *ui) stopSpinLocked() {
	if u.spin == nil {
		return
	}
	close(u.spin.stop)
	u.spin = nil
	if u.fancy {
		io.WriteString(u.err, "\r\x1b[K")
	} else {
		// Without colour, no escape sequence at all: spaces over the
		// spinner's line.
		io.WriteString(u.err, "\r"+strings.Repeat(" ", 24)+"\r")
	}
}

// elapsed is the spinner's clock: "7s", "1m05s".
func elapsed(d time.Duration) string {
	s := int(d.Seconds())
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}
