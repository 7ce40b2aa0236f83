package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/internal/inert"
	"github.com/bridle-dev/bridle/llm"
)

// Every conversation is saved, after each turn, in the user's state
// folder, in a store of its working folder: --continue takes the last one
// up again, --resume ID a given one, and agent-cli sessions lists them.

// storeFor returns the session store of the working folder abs.
func storeFor(abs string) (*agent.Store, error) {
	dir, err := stateDir()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(abs))
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, filepath.Base(abs))
	return &agent.Store{Dir: filepath.Join(dir, "sessions", name+"-"+hex.EncodeToString(sum[:6]))}, nil
}

// writePaths are the files a Write call of agent-cli's tools changes, for
// the checkpoints that /rewind restores.
func writePaths(c agent.Call) ([]string, error) {
	if !isFileTool(c.Name) {
		return nil, nil
	}
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(c.Args, &a) != nil || a.Path == "" {
		return nil, nil
	}
	return []string{a.Path}, nil
}

// openSession starts the session of this run: a new one, the last of the
// working folder (--continue), or a given one (--resume ID).
func (s *session) openSession(o *options) error {
	st, err := storeFor(s.work.abs)
	if err != nil {
		s.ui.warn("the conversation will not be saved: %v", err)
		return nil
	}
	s.store = st
	s.saved = &agent.Session{ID: agent.NewSessionID()}
	id := o.resume
	if o.cont {
		list, err := st.List()
		if err != nil || len(list) == 0 {
			return fmt.Errorf("no conversation to continue in %s: start one without --continue", s.work.abs)
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Updated.After(list[j].Updated) })
		id = list[0].ID
	}
	if id == "" {
		return nil
	}
	saved, err := st.Load(id)
	if err != nil {
		if errors.Is(err, agent.ErrNoSession) {
			return fmt.Errorf("no conversation %s in %s: agent-cli sessions lists them", id, s.work.abs)
		}
		return err
	}
	if err := s.agent.Load(saved); err != nil {
		return err
	}
	s.saved = saved
	s.ui.notice("continuing %s (%s): %s", saved.ID, plural(s.agent.Turns(), "turn"), saved.Title)
	return nil
}

// save writes the conversation to the store; a failure is a warning.
func (s *session) save() {
	if s.store == nil || s.saved == nil || len(s.agent.History()) == 0 {
		return
	}
	s.agent.Save(s.saved)
	if err := s.store.Save(s.saved); err != nil {
		s.ui.warn("the conversation could not be saved: %v", err)
	}
}

// sessionID is the id of the saved conversation, or "".
func (s *session) sessionID() string {
	if s.saved == nil {
		return ""
	}
	return s.saved.ID
}

// usageLine sums up tokens and cost: "tokens 1,234 in (1,000 cached) ·
// 56 out · $0.0123".
func usageLine(u llm.Usage) string {
	line := "tokens " + count(u.Input) + " in"
	if u.CacheRead > 0 || u.CacheWrite > 0 {
		line += fmt.Sprintf(" (%s read from cache, %s written)", count(u.CacheRead), count(u.CacheWrite))
	}
	line += " · " + count(u.Output) + " out"
	switch {
	case u.Cost.USD > 0 && u.Cost.Unpriced > 0:
		line += fmt.Sprintf(" · $%.4f (and %s tokens of no known price)", u.Cost.USD, count(u.Cost.Unpriced))
	case u.Cost.USD > 0:
		line += fmt.Sprintf(" · $%.4f", u.Cost.USD)
	case u.Cost.Unpriced > 0:
		line += " · cost unknown (no price for the model)"
	}
	return line
}

func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// sessionID matches the ids agent.NewSessionID makes, for --resume's
// optional argument.
var sessionIDPattern = regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{8}$`)

// sessionsCommand lists the saved conversations of the working folder,
// newest first: id, age, model, cost, title.
func sessionsCommand(args []string, stdout io.Writer) error {
	o, err := parseArgs("agent-cli sessions", args, stdout, false)
	if err != nil {
		return err
	}
	work, err := openWorkdir(o.dir)
	if err != nil {
		return err
	}
	defer work.Close()
	st, err := storeFor(work.abs)
	if err != nil {
		return err
	}
	list, err := st.List()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(stdout, "no saved conversations in %s\n", inert.Line(work.abs))
		return nil
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Updated.After(list[j].Updated) })
	for _, info := range list {
		cost := ""
		if full, err := st.Load(info.ID); err == nil && full.Usage.Cost.USD > 0 {
			cost = fmt.Sprintf("$%.4f", full.Usage.Cost.USD)
		}
		fmt.Fprintf(stdout, "%s  %-8s  %-20s  %-9s  %s\n", info.ID, age(time.Since(info.Updated)), inert.Line(info.Model), cost, inert.Line(info.Title))
	}
	fmt.Fprintln(stdout, "\ncontinue one with agent-cli --resume ID, the last with agent-cli --continue")
	return nil
}

func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// jsonResult is what --json prints on stdout.
type jsonResult struct {
	Answer  string    `json:"answer"`
	Stop    string    `json:"stop"`
	Steps   int       `json:"steps"`
	Usage   llm.Usage `json:"usage"`
	CostUSD float64   `json:"cost_usd"`
	Session string    `json:"session,omitempty"`
	Error   string    `json:"error,omitempty"`
}

// printJSON writes the outcome of a run as one JSON object.
func printJSON(w io.Writer, out agent.Outcome, session string, err error) {
	r := jsonResult{Answer: out.Text, Stop: string(out.Stop), Steps: out.Steps, Usage: out.Usage, CostUSD: out.Usage.Cost.USD, Session: session}
	if err != nil {
		r.Error = err.Error()
	}
	data, _ := json.Marshal(r)
	fmt.Fprintf(w, "%s\n", data)
}

// rewind takes back n turns: the history, and the files written in them.
func (s *session) rewind(ctx context.Context, n int) {
	question, err := s.agent.Rewind(ctx, n)
	var conflict *agent.ConflictError
	switch {
	case errors.As(err, &conflict):
		s.ui.failure(fmt.Errorf("nothing was rewound: these files changed since agent-cli wrote them: %s", strings.Join(conflict.Paths, ", ")))
		return
	case err != nil:
		s.ui.failure(err)
		return
	}
	s.save()
	s.ui.notice("took back %s; the earliest question was: %s", plural(n, "turn"), question)
}

// pickSession lists the folder's saved conversations on the terminal and
// asks which to continue; Enter starts a new one.
func (s *session) pickSession(ctx context.Context, o *options) error {
	st, err := storeFor(s.work.abs)
	if err != nil {
		return err
	}
	list, err := st.List()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		s.ui.notice("no saved conversations in %s: starting a new one", s.work.abs)
		return nil
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Updated.After(list[j].Updated) })
	list = list[:min(len(list), 10)]
	for i, info := range list {
		s.ui.line("  %2d  %-8s  %s", i+1, age(time.Since(info.Updated)), inert.Line(info.Title))
	}
	s.ui.mu.Lock()
	fmt.Fprintf(s.ui.err, "%s continue which? [1-%d, Enter for a new one] ", s.ui.paint(bold+";"+yellow, "?"), len(list))
	s.ui.mu.Unlock()
	answer, err := s.lines.next(ctx)
	if err != nil {
		return errInterrupted
	}
	var n int
	if _, err := fmt.Sscan(strings.TrimSpace(answer), &n); err == nil && n >= 1 && n <= len(list) {
		o.resume = list[n-1].ID
	}
	return nil
}
