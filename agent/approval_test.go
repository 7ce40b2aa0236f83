package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

// The tests in this file run against a scripted model server in both
// dialects: they show what the person and the model see.

type setup struct {
	dialect llm.Dialect
	stream  bool
}

func (s setup) String() string {
	if s.stream {
		return string(s.dialect) + " streamed"
	}
	return string(s.dialect) + " whole"
}

// everyWay runs f in both dialects, streamed and whole.
func everyWay(t *testing.T, f func(t *testing.T, s setup)) {
	for _, d := range []llm.Dialect{llm.Anthropic, llm.OpenAI} {
		for _, stream := range []bool{true, false} {
			s := setup{d, stream}
			t.Run("in "+s.String(), func(t *testing.T) { f(t, s) })
		}
	}
}

// bothDialects runs f in both dialects, streamed.
func bothDialects(t *testing.T, f func(t *testing.T, s setup)) {
	for _, d := range []llm.Dialect{llm.Anthropic, llm.OpenAI} {
		s := setup{d, true}
		t.Run("in "+string(d), func(t *testing.T) { f(t, s) })
	}
}

// start returns an agent talking to a scripted server in the setup's
// dialect.
func start(t testing.TB, s setup, script llmtest.Script, cfg *Options) (*Agent, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(script)
	t.Cleanup(srv.Close)
	c, err := llm.New(srv.Config(s.dialect))
	if err != nil {
		t.Fatal(err)
	}
	cfg.NoStream = !s.stream
	return New(c, cfg), srv
}

// lastRequest returns the last request the server got.
func lastRequest(t *testing.T, srv *llmtest.Server) *llmtest.Request {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the server got no request")
	}
	return reqs[len(reqs)-1]
}

// quote answers a request holding tool results by quoting them, and
// otherwise makes the calls given.
func quote(calls ...llmtest.Call) llmtest.Script {
	return func(r *llmtest.Request) llmtest.Reply {
		if res := r.LastToolResults(); len(res) > 0 {
			var texts []string
			for _, p := range res {
				texts = append(texts, p.Text)
			}
			return llmtest.Reply{Text: "The tools said: " + strings.Join(texts, " | ")}
		}
		return llmtest.Reply{Calls: calls}
	}
}

type writeArgs struct {
	Path    string `json:"path" jsonschema:"file name, relative"`
	Content string `json:"content"`
}

// writer is a Write tool that writes files under dir.
func writer(dir string) tool.Tool {
	return tool.New("write_file", "writes a file", tool.Write, func(ctx context.Context, in writeArgs) (string, error) {
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(in.Path)), []byte(in.Content), 0o600); err != nil {
			return "", err
		}
		return fmt.Sprintf("wrote %d bytes to %s", len(in.Content), in.Path), nil
	})
}

type commandArgs struct {
	Command string `json:"command"`
}

// commander is an Exec tool that only records what it was asked to run.
func commander(ran *[]string) tool.Tool {
	return tool.New("run_command", "runs a command", tool.Exec, func(ctx context.Context, in commandArgs) (string, error) {
		*ran = append(*ran, in.Command)
		return "exit status 0", nil
	})
}

type readArgs struct {
	Path string `json:"path"`
}

// reader is a Read tool.
func reader() tool.Tool {
	return tool.New("read_file", "reads a file", tool.Read, func(ctx context.Context, in readArgs) (string, error) {
		return "contents of " + in.Path, nil
	})
}

// asker is an approver that records what it was asked and answers from a
// list (the last answer repeats).
type asker struct {
	mu      sync.Mutex
	asked   []Call
	answers []Decision
	before  func(Call) // runs when asked, before answering
}

func (a *asker) approve(ctx context.Context, c Call) Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.before != nil {
		a.before(c)
	}
	a.asked = append(a.asked, c)
	i := min(len(a.asked), len(a.answers)) - 1
	if i < 0 {
		return No
	}
	return a.answers[i]
}

func (a *asker) names() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, c := range a.asked {
		out = append(out, c.Name)
	}
	return out
}

var writeNotes = llmtest.Call{Name: "write_file", Args: `{"path":"notes.txt","content":"hello"}`}

func TestWriteWaitsForApprovalAndRuns(t *testing.T) {
	everyWay(t, func(t *testing.T, s setup) {
		dir := t.TempDir()
		file := filepath.Join(dir, "notes.txt")
		ask := &asker{answers: []Decision{Yes}, before: func(c Call) {
			if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the file exists before the person said yes (%v)", err)
			}
		}}
		a, srv := start(t, s, quote(writeNotes), &Options{Approver: ask.approve})
		a.Add(writer(dir))

		out, err := a.Run(t.Context(), "save hello in notes.txt")
		if err != nil {
			t.Fatal(err)
		}
		if len(ask.asked) != 1 {
			t.Fatalf("asked %d times", len(ask.asked))
		}
		c := ask.asked[0]
		if c.Name != "write_file" || c.Risk != tool.Write || string(c.Args) != writeNotes.Args {
			t.Errorf("the person was asked about %+v", c)
		}
		got, err := os.ReadFile(file)
		if err != nil || string(got) != "hello" {
			t.Fatalf("file = %q, %v", got, err)
		}
		if out.Stop != StopDone || !strings.Contains(out.Text, "wrote 5 bytes to notes.txt") {
			t.Errorf("outcome = %+v", out)
		}
		if len(srv.Requests()) != 2 {
			t.Errorf("%d requests", len(srv.Requests()))
		}
		mustValid(t, a)
	})
}

func TestNobodyToAskMeansNothingWritten(t *testing.T) {
	everyWay(t, func(t *testing.T, s setup) {
		dir := t.TempDir()
		var ev events
		a, srv := start(t, s, quote(writeNotes), &Options{OnEvent: ev.add})
		a.Add(writer(dir))

		out, err := a.Run(t.Context(), "save hello in notes.txt")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "notes.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the file was written (%v)", err)
		}
		res := lastRequest(t, srv).LastToolResults()
		if len(res) != 1 || !strings.Contains(res[0].Text, "did not allow") || !strings.Contains(res[0].Text, "no one to ask") {
			t.Fatalf("the model was told %+v", res)
		}
		if s.dialect == llm.Anthropic && !res[0].IsError {
			t.Error("the declined call is not marked as an error")
		}
		if out.Stop != StopDone || !strings.Contains(out.Text, "did not allow") {
			t.Errorf("outcome = %+v", out)
		}
		if d := ev.of(EventDeclined); len(d) != 1 || d[0].Call.Name != "write_file" {
			t.Errorf("declined events: %+v", d)
		}
		if len(ev.of(EventCalling)) != 0 {
			t.Error("a calling event for a call that never ran")
		}
	})
}

func TestEditsRunsWritesButAsksForExec(t *testing.T) {
	everyWay(t, func(t *testing.T, s setup) {
		dir := t.TempDir()
		var ran []string
		ask := &asker{answers: []Decision{No}}
		a, srv := start(t, s, quote(writeNotes, llmtest.Call{Name: "run_command", Args: `{"command":"make"}`}),
			&Options{Autonomy: Edits, Approver: ask.approve})
		a.Add(writer(dir), commander(&ran))

		out, err := a.Run(t.Context(), "save and build")
		if err != nil {
			t.Fatal(err)
		}
		if got := ask.names(); len(got) != 1 || got[0] != "run_command" {
			t.Fatalf("asked about %v, want only run_command", got)
		}
		if ask.asked[0].Risk != tool.Exec {
			t.Errorf("risk %v", ask.asked[0].Risk)
		}
		if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
			t.Fatalf("the write did not run: %v", err)
		}
		if len(ran) != 0 {
			t.Fatalf("the command ran: %v", ran)
		}
		res := lastRequest(t, srv).LastToolResults()
		if len(res) != 2 || !strings.Contains(res[0].Text, "wrote 5 bytes") || !strings.Contains(res[1].Text, "did not allow") {
			t.Fatalf("results: %+v", res)
		}
		if out.Stop != StopDone {
			t.Errorf("outcome = %+v", out)
		}
	})
}

func TestAlwaysIsRememberedForTheTool(t *testing.T) {
	bothDialects(t, func(t *testing.T, s setup) {
		dir := t.TempDir()
		var ran []string
		ask := &asker{answers: []Decision{Always, No}}
		script := llmtest.Replies(
			llmtest.Reply{Calls: []llmtest.Call{writeNotes}},
			llmtest.Reply{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"b.txt","content":"b"}`}}},
			llmtest.Reply{Text: "both written"},
			llmtest.Reply{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"c.txt","content":"c"}`}, {Name: "run_command", Args: `{"command":"ls"}`}}},
			llmtest.Reply{Text: "c written, ls declined"},
		)
		a, _ := start(t, s, script, &Options{Approver: ask.approve})
		a.Add(writer(dir), commander(&ran))
		for _, q := range []string{"write a and b", "write c and list"} {
			if out, err := a.Run(t.Context(), q); err != nil || out.Stop != StopDone {
				t.Fatalf("Run(%q) = %+v, %v", q, out, err)
			}
		}
		if got := ask.names(); len(got) != 2 || got[0] != "write_file" || got[1] != "run_command" {
			t.Fatalf("asked about %v, want write_file once, then run_command", got)
		}
		for _, f := range []string{"notes.txt", "b.txt", "c.txt"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
		if len(ran) != 0 {
			t.Errorf("always for one tool let another run: %v", ran)
		}
	})
}

func TestReadOnlyNeverAsks(t *testing.T) {
	bothDialects(t, func(t *testing.T, s setup) {
		dir := t.TempDir()
		var ran []string
		ask := &asker{answers: []Decision{Always}}
		a, srv := start(t, s, quote(
			llmtest.Call{Name: "read_file", Args: `{"path":"a.txt"}`},
			writeNotes,
			llmtest.Call{Name: "run_command", Args: `{"command":"rm -rf /"}`},
		), &Options{Autonomy: ReadOnly, Approver: ask.approve})
		a.Add(reader(), writer(dir), commander(&ran))

		if _, err := a.Run(t.Context(), "look and change"); err != nil {
			t.Fatal(err)
		}
		if len(ask.asked) != 0 {
			t.Fatalf("read-only asked about %v", ask.names())
		}
		res := lastRequest(t, srv).LastToolResults()
		if len(res) != 3 || res[0].Text != "contents of a.txt" || !strings.Contains(res[1].Text, "read-only") || !strings.Contains(res[2].Text, "read-only") {
			t.Fatalf("results: %+v", res)
		}
		if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err == nil || len(ran) != 0 {
			t.Fatal("something ran that can change things")
		}
	})
}

func TestDeclinedCallDoesNotEndTheTurn(t *testing.T) {
	bothDialects(t, func(t *testing.T, s setup) {
		ask := &asker{answers: []Decision{No}}
		script := llmtest.Replies(
			llmtest.Reply{Text: "I will write it.", Calls: []llmtest.Call{writeNotes}},
			llmtest.Reply{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}}},
			llmtest.Reply{Text: "I read it instead."},
		)
		a, srv := start(t, s, script, &Options{Approver: ask.approve})
		a.Add(writer(t.TempDir()), reader())
		out, err := a.Run(t.Context(), "go")
		if err != nil {
			t.Fatal(err)
		}
		if out.Stop != StopDone || out.Steps != 3 || out.Text != "I read it instead." {
			t.Fatalf("outcome = %+v", out)
		}
		if res := lastRequest(t, srv).LastToolResults(); len(res) != 1 || res[0].Text != "contents of notes.txt" {
			t.Fatalf("results: %+v", res)
		}
		mustValid(t, a)
	})
}
