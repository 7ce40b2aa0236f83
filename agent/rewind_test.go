package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

type writeArgs struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// writer is a Write tool that writes files under dir, and the Files
// checkpointer that knows which file a call names.
func writer(dir string) (tool.Tool, *agent.Files) {
	t := tool.New("write", "writes a file", tool.Write, func(ctx context.Context, in writeArgs) (string, error) {
		p := filepath.Join(dir, in.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		return "written", os.WriteFile(p, []byte(in.Text), 0o644)
	})
	files := &agent.Files{Root: dir, Paths: func(c agent.Call) ([]string, error) {
		var in writeArgs
		if err := json.Unmarshal(c.Args, &in); err != nil {
			return nil, err
		}
		return []string{in.Path}, nil
	}}
	return t, files
}

// writes answers each question "write P T" with a call writing T to P,
// then "ok".
func writes(r *llmtest.Request) llmtest.Reply {
	if len(r.LastToolResults()) > 0 {
		return llmtest.Reply{Text: "ok"}
	}
	parts := r.LastMessage().Parts
	f := strings.Fields(parts[len(parts)-1].Text)
	return llmtest.Reply{Calls: []llmtest.Call{{Name: "write", Args: `{"path":"` + f[1] + `","text":"` + f[2] + `"}`}}}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return "(none)"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRewindTakesBackTurnsAndTheirFiles(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.NewServer(writes)
	defer srv.Close()
	w, files := writer(dir)
	a := agent.New(newClient(t, srv, llm.OpenAI), &agent.Options{Autonomy: agent.Edits, Checkpoints: files})
	a.Add(w)
	ctx := context.Background()
	for _, q := range []string{"write a.txt one", "write a.txt two", "write sub/b.txt three"} {
		if out, err := a.Run(ctx, q); err != nil || out.Text != "ok" {
			t.Fatalf("Run(%q) = %+v, %v", q, out, err)
		}
	}
	if a.Turns() != 3 {
		t.Fatalf("Turns = %d, want 3", a.Turns())
	}

	q, err := a.Rewind(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if q != "write a.txt two" {
		t.Errorf("Rewind returned %q, want the earliest question taken back", q)
	}
	if got := read(t, filepath.Join(dir, "a.txt")); got != "one" {
		t.Errorf("a.txt = %q, want it as the first turn left it", got)
	}
	if got := read(t, filepath.Join(dir, "sub", "b.txt")); got != "(none)" {
		t.Errorf("sub/b.txt = %q, want it gone: the rewound turn created it", got)
	}
	h := a.History()
	if len(h) != 4 || h[3].Text() != "ok" {
		t.Fatalf("history after rewind: %d messages, want the first turn's 4", len(h))
	}

	// The conversation goes on from there, and can be rewound to nothing.
	if _, err := a.Run(ctx, "write c.txt four"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Rewind(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if len(a.History()) != 0 || read(t, filepath.Join(dir, "a.txt")) != "(none)" || read(t, filepath.Join(dir, "c.txt")) != "(none)" {
		t.Errorf("after rewinding everything: %d messages, a.txt %q, c.txt %q", len(a.History()),
			read(t, filepath.Join(dir, "a.txt")), read(t, filepath.Join(dir, "c.txt")))
	}
	if _, err := a.Rewind(ctx, 1); err == nil {
		t.Error("Rewind of an empty conversation did not fail")
	}
}

func TestRewindRestoresNothingWhenAFileChangedSince(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.NewServer(writes)
	defer srv.Close()
	w, files := writer(dir)
	a := agent.New(newClient(t, srv, llm.Anthropic), &agent.Options{Autonomy: agent.Edits, Checkpoints: files})
	a.Add(w)
	ctx := context.Background()
	for _, q := range []string{"write a.txt one", "write b.txt two"} {
		if _, err := a.Run(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("edited by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := a.History()
	_, err := a.Rewind(ctx, 2)
	var conflict *agent.ConflictError
	if !errors.As(err, &conflict) || len(conflict.Paths) != 1 || conflict.Paths[0] != "a.txt" {
		t.Fatalf("Rewind = %v, want a ConflictError naming a.txt", err)
	}
	if !strings.Contains(err.Error(), "a.txt") || !strings.Contains(err.Error(), "nothing was restored") {
		t.Errorf("message %q does not say which file and that nothing was restored", err)
	}
	if read(t, filepath.Join(dir, "b.txt")) != "two" || read(t, filepath.Join(dir, "a.txt")) != "edited by hand" {
		t.Error("a failed rewind changed files")
	}
	if len(a.History()) != len(before) || a.Turns() != 2 {
		t.Error("a failed rewind changed the history")
	}
	// The turn that does not touch a.txt still rewinds.
	if _, err := a.Rewind(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(dir, "b.txt")) != "(none)" {
		t.Error("b.txt was not removed")
	}
}

func TestCheckpointsTravelWithTheSession(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.NewServer(writes)
	defer srv.Close()
	w, files := writer(dir)
	client := newClient(t, srv, llm.Anthropic)
	ctx := context.Background()
	a := agent.New(client, &agent.Options{Autonomy: agent.Edits, Checkpoints: files})
	a.Add(w)
	if _, err := a.Run(ctx, "write a.txt one"); err != nil {
		t.Fatal(err)
	}
	store := &agent.Store{Dir: t.TempDir()}
	var s agent.Session
	a.Save(&s)
	if err := store.Save(&s); err != nil {
		t.Fatal(err)
	}
	loaded, err := store.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Checkpoints) != 1 {
		t.Fatalf("the session kept %d checkpoints, want 1", len(loaded.Checkpoints))
	}

	b := agent.New(client, &agent.Options{Checkpoints: files})
	if err := b.Load(loaded); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Rewind(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(dir, "a.txt")) != "(none)" {
		t.Error("a rewind after loading the session did not remove a.txt")
	}

	// Without a checkpointer, the rewind refuses rather than leave the file.
	c := agent.New(client, nil)
	if err := c.Load(loaded); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rewind(ctx, 1); err == nil || !strings.Contains(err.Error(), "Options.Checkpoints") {
		t.Errorf("Rewind with no checkpointer = %v, want an error naming Options.Checkpoints", err)
	}
}

func TestACallWhosePathLeadsOutDoesNotRun(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.NewServer(writes)
	defer srv.Close()
	w, files := writer(dir)
	var declined string
	a2 := agent.New(newClient(t, srv, llm.Anthropic), &agent.Options{Autonomy: agent.Edits, Checkpoints: files,
		OnEvent: func(e agent.Event) {
			if e.Type == agent.EventDeclined {
				declined = e.Why
			}
		}})
	a2.Add(w)
	if _, err := a2.Run(context.Background(), "write ../out.txt x"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(declined, "checkpoint") || !strings.Contains(declined, "../out.txt") {
		t.Errorf("the call was declined with %q, want the checkpoint's reason naming the path", declined)
	}
	if read(t, filepath.Join(filepath.Dir(dir), "out.txt")) != "(none)" {
		t.Error("the call ran")
	}
}
