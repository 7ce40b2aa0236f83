package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// newClient returns a client of srv in the given dialect.
func newClient(t testing.TB, srv *llmtest.Server, d llm.Dialect) llm.Client {
	t.Helper()
	c, err := llm.New(srv.Config(d))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestASavedSessionLoadsIntoANewAgentThatGoesOn(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Text: "Paris.", Usage: llm.Usage{Input: 100, Output: 10}},
		llmtest.Reply{Text: "About two million.", Usage: llm.Usage{Input: 120, Output: 12}},
	))
	defer srv.Close()
	client := newClient(t, srv, llm.Anthropic)
	ctx := context.Background()

	a := agent.New(client, nil)
	if _, err := a.Run(ctx, "What is the capital of France?\nJust the name."); err != nil {
		t.Fatal(err)
	}
	var s agent.Session
	a.Save(&s)
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	store := &agent.Store{Dir: filepath.Join(t.TempDir(), "sessions"), Now: func() time.Time { return clock }}
	if err := store.Save(&s); err != nil {
		t.Fatal(err)
	}
	if s.ID == "" || s.Version != agent.SessionVersion || !s.Created.Equal(clock) || !s.Updated.Equal(clock) {
		t.Fatalf("Save left id %q, version %d, created %v, updated %v", s.ID, s.Version, s.Created, s.Updated)
	}

	got, err := store.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "What is the capital of France?" {
		t.Errorf("title = %q, want the first line of the first question", got.Title)
	}
	if len(got.Costs.Models) != 1 {
		t.Errorf("costs by model = %+v, want the one model", got.Costs.Models)
	}
	if got.Model == "" {
		t.Error("the session does not name the model that answered")
	}
	if got.Usage.Input != 100 || got.Usage.Output != 10 {
		t.Errorf("usage = %+v, want the first run's", got.Usage)
	}

	b := agent.New(client, nil)
	if err := b.Load(got); err != nil {
		t.Fatal(err)
	}
	out, err := b.Run(ctx, "And its population?")
	if err != nil || out.Text != "About two million." {
		t.Fatalf("Run after Load = %+v, %v", out, err)
	}
	sent := srv.Requests()[1].Messages
	if len(sent) != 3 || sent[1].Text() != "Paris." {
		t.Fatalf("the loaded agent sent %d messages, %+v; want the saved conversation and the new question", len(sent), sent)
	}
	if u := b.Usage(); u.Input != 220 {
		t.Errorf("usage after Load and Run = %+v, want the session's and the run's", u)
	}

	// Saving again keeps the id and the creation time.
	clock = clock.Add(time.Hour)
	b.Save(got)
	if err := store.Save(got); err != nil {
		t.Fatal(err)
	}
	again, err := store.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Created.Equal(s.Created) || !again.Updated.Equal(clock) || len(again.History) != 4 {
		t.Errorf("second save: created %v updated %v, %d messages", again.Created, again.Updated, len(again.History))
	}
	entries, _ := os.ReadDir(store.Dir)
	if len(entries) != 1 || entries[0].Name() != s.ID+".json" {
		t.Errorf("the folder holds %v, want only %s.json (no temporary files left)", entries, s.ID)
	}
}

func TestTheStoreListsSessionsNewestFirst(t *testing.T) {
	dir := t.TempDir()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store := &agent.Store{Dir: dir, Now: func() time.Time { return clock }}
	for _, id := range []string{"old", "newest", "middle"} {
		s := &agent.Session{ID: id, Title: id, History: []llm.Message{llm.UserText("hi " + id)}}
		if id == "newest" {
			s.Title = ""
		}
		switch id {
		case "newest":
			clock = clock.Add(2 * time.Hour)
		case "middle":
			clock = clock.Add(-time.Hour)
		}
		if err := store.Save(s); err != nil {
			t.Fatal(err)
		}
	}
	// A stray file is left out, and named.
	if err := os.WriteFile(filepath.Join(dir, "junk.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := store.List()
	if err == nil || !strings.Contains(err.Error(), "junk.json") {
		t.Errorf("List error = %v, want one naming junk.json", err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	if strings.Join(ids, ",") != "newest,middle,old" {
		t.Errorf("List = %v, want newest,middle,old", ids)
	}
	if list[0].Messages != 1 {
		t.Errorf("Messages = %d, want 1", list[0].Messages)
	}

	empty, err := (&agent.Store{Dir: filepath.Join(dir, "none")}).List()
	if err != nil || len(empty) != 0 {
		t.Errorf("List of a missing folder = %v, %v; want nothing and no error", empty, err)
	}
}

func TestTheStoreRefusesWhatItCannotRead(t *testing.T) {
	dir := t.TempDir()
	store := &agent.Store{Dir: dir}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("future", `{"version": 99, "id": "future", "history": []}`)
	write("noversion", `{"id": "noversion", "history": []}`)
	write("broken", `{"version": 1, "history": 7}`)

	tests := []struct {
		id   string
		want string
	}{
		{"future", "newer version"},
		{"noversion", "no format version"},
		{"broken", "not a valid session"},
		{"missing", "no such session"},
		{"../escape", "not valid"},
		{"", "not valid"},
	}
	for _, tt := range tests {
		_, err := store.Load(tt.id)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) = %v, want an error saying %q", tt.id, err, tt.want)
		}
	}
	if _, err := store.Load("missing"); !errors.Is(err, agent.ErrNoSession) {
		t.Errorf("Load of a missing session = %v, want ErrNoSession", err)
	}
	if err := store.Delete("future"); err != nil {
		t.Fatal(err)
	}
	if err := store.Delete("future"); !errors.Is(err, agent.ErrNoSession) {
		t.Errorf("Delete twice = %v, want ErrNoSession", err)
	}
	if err := (&agent.Store{}).Save(&agent.Session{}); err == nil {
		t.Error("a store with no folder saved")
	}
}

func TestLoadRefusesASessionThatCouldNotBeSent(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies())
	defer srv.Close()
	a := agent.New(newClient(t, srv, llm.Anthropic), nil)
	bad := &agent.Session{ID: "x", History: []llm.Message{{Role: llm.Assistant, Parts: []llm.Part{llm.Text("hi")}}}}
	if err := a.Load(bad); err == nil || !strings.Contains(err.Error(), `session "x"`) {
		t.Errorf("Load = %v, want an error naming the session", err)
	}
	cp := &agent.Session{ID: "y", History: []llm.Message{llm.UserText("hi")},
		Checkpoints: []agent.Checkpoint{{Message: 0, Call: "c1", Record: json.RawMessage(`[]`)}}}
	if err := a.Load(cp); err == nil || !strings.Contains(err.Error(), "checkpoint") {
		t.Errorf("Load = %v, want an error about the checkpoint", err)
	}
}
