package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

// isSummaryRequest reports whether r asks for a compaction's summary.
func isSummaryRequest(r *llmtest.Request) bool {
	return strings.Contains(r.LastMessage().Text(), "write a summary of the conversation so far")
}

// memClient is a client of srv through its in-memory transport.
func memClient(t testing.TB, srv *llmtest.Server, d llm.Dialect) llm.Client {
	t.Helper()
	cfg := srv.Config(d)
	cfg.HTTPClient = &http.Client{Transport: srv.Transport()}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tokens is how this test's provider counts: a token per 4 bytes of body.
func tokens(r *llmtest.Request) int { return len(r.Body) / 4 }

// bulky is a Read tool whose output is 600 bytes.
var bulky = tool.Tool{Name: "read", Description: "reads a page", Risk: tool.Read,
	Func: func(ctx context.Context, args json.RawMessage) (string, error) {
		return strings.Repeat("page text ", 60), nil
	}}

// longTask calls read steps times, with thinking, then answers. A summary
// request is answered by summarise.
func longTask(steps int, summarise func(r *llmtest.Request) string) llmtest.Script {
	return func(r *llmtest.Request) llmtest.Reply {
		u := llm.Usage{Input: tokens(r), Output: 40}
		if isSummaryRequest(r) {
			return llmtest.Reply{Text: summarise(r), Usage: u}
		}
		done := 0 // the page of the last call: older calls may be summarised
		for _, m := range r.Messages {
			for _, c := range m.ToolCalls() {
				var in struct{ Page int }
				_ = json.Unmarshal(c.Args, &in)
				done = in.Page
			}
		}
		if done >= steps {
			return llmtest.Reply{Text: "finished", Usage: u}
		}
		return llmtest.Reply{Thinking: "next page", Signature: "sig", Text: fmt.Sprintf("reading page %d", done+1),
			Calls: []llmtest.Call{{Name: "read", Args: fmt.Sprintf(`{"page":%d}`, done+1)}}, Usage: u}
	}
}

func TestALongSessionCompactsAndKeepsGoing(t *testing.T) {
	for _, d := range []llm.Dialect{llm.Anthropic, llm.OpenAI} {
		t.Run(string(d), func(t *testing.T) {
			n := 0
			srv := llmtest.NewServer(longTask(120, func(r *llmtest.Request) string {
				n++
				return fmt.Sprintf("Summary %d: the user wants every page read; pages so far were read.", n)
			}))
			defer srv.Close()
			var compactions []agent.Compaction
			a := agent.New(memClient(t, srv, d), &agent.Options{
				ContextWindow: 8000, MaxTokens: 1000, MaxSteps: 200,
				OnEvent: func(e agent.Event) {
					if e.Type == agent.EventCompacted {
						compactions = append(compactions, e.Compaction)
					}
				},
			})
			a.Add(bulky)
			out, err := a.Run(t.Context(), "Read every page, then say finished.")
			if err != nil || out.Stop != agent.StopDone || out.Text != "finished" {
				t.Fatalf("Run = %+v, %v", out, err)
			}
			if len(compactions) < 3 {
				t.Fatalf("%d compactions in 120 steps of 600-byte results against a window of 8000 tokens", len(compactions))
			}
			for i, c := range compactions {
				if c.Freed() <= 0 || c.Messages < 2 || c.Usage.Input == 0 {
					t.Errorf("compaction %d: %+v", i, c)
				}
			}

			var previous string
			reqs := srv.Requests()
			for i, r := range reqs {
				// A summary request reuses the cached prefix of the step
				// before: same system prompt and tools, the same messages
				// up to the one the instruction joins.
				if isSummaryRequest(r) && i > 0 {
					prev := reqs[i-1]
					if r.System != prev.System || strings.Join(r.Tools, ",") != strings.Join(prev.Tools, ",") {
						t.Errorf("request %d: the summary request changes the system prompt or the tools", i)
					}
					for j := range len(r.Messages) - 1 {
						if !samePrefix(r.Messages[j], prev.Messages[j]) {
							t.Errorf("request %d: message %d differs from the step before's", i, j)
							break
						}
					}
				}
				if got := tokens(r); got > 8000-1000 {
					t.Errorf("request %d carried %d tokens, more than the window leaves", i, got)
				}
				// Every request is a conversation that could be sent (the
				// server refuses malformed ones; a summary request's last
				// turn, results then the instruction, is two messages in
				// OpenAI's wire form).
				if isSummaryRequest(r) && d == llm.OpenAI {
					continue
				}
				if err := agent.New(newClient(t, srv, d), nil).SetHistory(r.Messages); err != nil {
					t.Errorf("request %d: %v", i, err)
				}
				for _, m := range r.Messages {
					for _, p := range m.Parts {
						if p.Type == llm.PartThinking && d == llm.Anthropic && p.Signature != "sig" {
							t.Errorf("request %d: thinking without its signature", i)
						}
					}
				}
				first := r.Messages[0].Text()
				if strings.Count(first, "[Summary of the earlier conversation]") > 1 {
					t.Errorf("request %d: the first message holds more than one summary", i)
				}
				// A summary request sends the summary before it to fold in.
				if isSummaryRequest(r) && previous != "" && !strings.Contains(first, previous) {
					t.Errorf("request %d asks for a summary without the previous one", i)
				}
				if strings.HasPrefix(first, "[Summary") {
					previous = strings.TrimSpace(strings.TrimPrefix(first, "[Summary of the earlier conversation]"))
				}
			}
			h := a.History()
			if !strings.HasPrefix(h[0].Text(), "[Summary of the earlier conversation]") {
				t.Errorf("the history does not start with the summary: %q", h[0].Text())
			}
			if u := out.Costs.Models["test-model"]; u.Input != out.Usage.Input {
				t.Errorf("the summaries' usage is not counted: %+v vs %+v", u, out.Usage)
			}
		})
	}
}

func samePrefix(x, y llm.Message) bool {
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

func TestRepeatedCompactionsDoNotGrowTheSummary(t *testing.T) {
	// A model that never lets go: each summary repeats the one before and
	// adds to it.
	srv := llmtest.NewServer(longTask(120, func(r *llmtest.Request) string {
		prev := strings.TrimPrefix(r.Messages[0].Text(), "[Summary of the earlier conversation]")
		return strings.TrimSpace(prev) + " " + strings.Repeat("more detail ", 150)
	}))
	defer srv.Close()
	compactions := 0
	a := agent.New(memClient(t, srv, llm.Anthropic), &agent.Options{
		ContextWindow: 8000, MaxTokens: 1000, MaxSteps: 200,
		OnEvent: func(e agent.Event) {
			if e.Type == agent.EventCompacted {
				compactions++
			}
		},
	})
	a.Add(bulky)
	out, err := a.Run(t.Context(), "Read every page.")
	if err != nil || out.Stop != agent.StopDone {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if compactions < 5 {
		t.Fatalf("%d compactions", compactions)
	}
	longest := 0
	for _, r := range srv.Requests() {
		longest = max(longest, len(r.Messages[0].Text()))
	}
	// The summary is held to a size the window sets (7000 usable tokens:
	// 437 words, 8 bytes a word), however much the model writes.
	if longest > 437*8+64 {
		t.Errorf("the first message grew to %d bytes", longest)
	}
}

func TestAFailedCompactionLeavesTheHistoryAndTheRunGoesOnIfItFits(t *testing.T) {
	refuse := llmtest.Reply{Fault: &llmtest.Fault{Status: http.StatusBadRequest, Message: "no summaries today"}}
	tests := []struct {
		name     string
		reported int // input tokens reported for the first step
		want     agent.Stop
	}{
		// Window 10000, 1000 for the reply: compaction starts above 8100
		// and the request no longer fits above 9000.
		{"still fits", 8000, agent.StopDone},
		{"no longer fits", 9000, agent.StopContextFull},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
				switch {
				case isSummaryRequest(r):
					return refuse
				}
				calls := 0
				for _, m := range r.Messages {
					calls += len(m.ToolCalls())
				}
				switch {
				case calls == 4:
					return llmtest.Reply{Text: "done"}
				case calls == 3: // the last call reports a large count
					return llmtest.Reply{Calls: []llmtest.Call{{Name: "read"}}, Usage: llm.Usage{Input: tt.reported, Output: 10}}
				}
				return llmtest.Reply{Calls: []llmtest.Call{{Name: "read"}}, Usage: llm.Usage{Input: 500, Output: 10}}
			})
			defer srv.Close()
			// A long system prompt: the steps add little to the count.
			a := agent.New(newClient(t, srv, llm.Anthropic), &agent.Options{ContextWindow: 10000, MaxTokens: 1000,
				System: strings.Repeat("Be brief. ", 2000)})
			a.Add(bulky)
			out, err := a.Run(t.Context(), "read")
			if err != nil || out.Stop != tt.want {
				t.Fatalf("Run = %+v, %v; want %s", out, err, tt.want)
			}
			h := a.History()
			if len(h) < 9 || h[0].Text() != "read" {
				t.Errorf("the history changed: %+v", h)
			}
			if tt.want == agent.StopContextFull && (!strings.Contains(out.Reason, "no summaries today") || !strings.Contains(out.Reason, "context window")) {
				t.Errorf("reason %q does not say what failed", out.Reason)
			}
		})
	}
}

func TestCompactOnRequestKeepsRewindWorkingForTheLatestTurns(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		u := llm.Usage{Input: tokens(r), Output: 10}
		if isSummaryRequest(r) {
			return llmtest.Reply{Text: "Files a.txt to d.txt were written.", Usage: u}
		}
		rep := writes(r)
		rep.Usage = u
		return rep
	})
	defer srv.Close()
	w, files := writer(dir)
	var events []agent.Compaction
	a := agent.New(newClient(t, srv, llm.Anthropic), &agent.Options{Autonomy: agent.Edits, Checkpoints: files,
		ContextWindow: 1200, MaxTokens: 200, NoCompact: true,
		OnEvent: func(e agent.Event) {
			if e.Type == agent.EventCompacted {
				events = append(events, e.Compaction)
			}
		}})
	a.Add(w)
	ctx := context.Background()
	for _, q := range []string{"write a.txt one", "write b.txt two", "write c.txt three", "write d.txt four"} {
		if _, err := a.Run(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	c, err := a.Compact(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Messages != c.Messages || c.Freed() <= 0 {
		t.Fatalf("Compact = %+v, events %+v", c, events)
	}
	turns := a.Turns()
	if turns < 1 || turns >= 4 {
		t.Fatalf("after compaction %d turns can be taken back, want the latest ones only", turns)
	}
	if err := agent.New(newClient(t, srv, llm.Anthropic), nil).SetHistory(a.History()); err != nil {
		t.Fatalf("compacted history: %v", err)
	}
	// The latest turn's checkpoint still restores its file.
	if _, err := a.Rewind(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(dir, "d.txt")) != "(none)" || read(t, filepath.Join(dir, "a.txt")) != "one" {
		t.Error("rewind after compaction restored the wrong files")
	}
	if _, err := a.Rewind(ctx, turns); err == nil {
		t.Error("Rewind reached into the summarised turns")
	}

	// The conversation goes on from the summary.
	if out, err := a.Run(ctx, "write e.txt five"); err != nil || out.Text != "ok" {
		t.Fatalf("Run after compaction = %+v, %v", out, err)
	}
	reqs := srv.Requests()
	if first := reqs[len(reqs)-1].Messages[0].Text(); !strings.Contains(first, "Files a.txt to d.txt were written.") {
		t.Errorf("the next request starts with %q, not the summary", first)
	}
}

func TestCompactWithNothingOldEnoughSaysSo(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "hi"}))
	defer srv.Close()
	a := agent.New(newClient(t, srv, llm.Anthropic), nil)
	if _, err := a.Compact(t.Context()); !errors.Is(err, agent.ErrNothingToCompact) {
		t.Errorf("Compact of an empty agent = %v", err)
	}
	if _, err := a.Run(t.Context(), "hello"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Compact(t.Context()); !errors.Is(err, agent.ErrNothingToCompact) {
		t.Errorf("Compact of one exchange = %v, want ErrNothingToCompact", err)
	}
	if len(srv.Requests()) != 1 {
		t.Error("Compact asked the model with nothing to summarise")
	}
}

func TestAnUnknownModelGetsTheDefaultWindowAndSaysSo(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "hi"}))
	defer srv.Close()
	var log strings.Builder
	a := agent.New(newClient(t, srv, llm.Anthropic), &agent.Options{
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if _, err := a.Run(t.Context(), "hello"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "context window is not known") || !strings.Contains(log.String(), "window=32000") {
		t.Errorf("the log does not say the window was assumed:\n%s", log.String())
	}
}

func TestCancellingDuringACompactionStopsTheRunAndKeepsTheHistory(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stalled := func(r *llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			cancel()
			return llmtest.Reply{Fault: &llmtest.Fault{Stall: true}}
		}
		return longTask(100, nil)(r)
	}
	srv2 := llmtest.NewServer(stalled)
	defer srv2.Close()
	a := agent.New(memClient(t, srv2, llm.Anthropic), &agent.Options{ContextWindow: 8000, MaxTokens: 1000, MaxSteps: 200})
	a.Add(bulky)
	out, err := a.Run(ctx, "Read every page.")
	if err != nil || out.Stop != agent.StopCancelled {
		t.Fatalf("Run = %+v, %v; want cancelled", out, err)
	}
	before := a.History()
	if strings.HasPrefix(before[0].Text(), "[Summary") || before[0].Text() != "Read every page." {
		t.Errorf("the history was compacted by a cancelled compaction")
	}
	if err := agent.New(memClient(t, srv2, llm.Anthropic), nil).SetHistory(before); err != nil {
		t.Errorf("the history after a cancelled compaction: %v", err)
	}
}

func TestAProvidersCompactionIsKeptAndNotSummarisedOnTop(t *testing.T) {
	block := json.RawMessage(`{"type":"compaction","content":"The user asked for two pages; the first was read."}`)
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		u := llm.Usage{Input: tokens(r), Output: 20}
		calls := 0
		for _, m := range r.Messages {
			calls += len(m.ToolCalls())
		}
		switch calls {
		case 0:
			return llmtest.Reply{Calls: []llmtest.Call{{Name: "page", Args: `{"kb":50}`}}, Usage: u}
		case 1:
			// The provider compacted the request of about 14,000 tokens:
			// its reply starts with the compaction block. The next
			// request would pass the agent's threshold, were the part
			// before the block still read.
			return llmtest.Reply{Parts: []llm.Part{llm.Provider("", block), llm.Text("Reading on."), llm.ToolCall("c2", "page", json.RawMessage(`{"kb":20}`))}, Usage: u}
		}
		return llmtest.Reply{Text: "finished", Usage: u}
	})
	defer srv.Close()
	a := agent.New(newClient(t, srv, llm.Anthropic), &agent.Options{ContextWindow: 20000, MaxTokens: 1000,
		System: strings.Repeat("Read carefully. ", 256)})
	a.Add(tool.New("page", "reads kb kilobytes", tool.Read, func(ctx context.Context, in struct {
		KB int `json:"kb"`
	}) (string, error) {
		return strings.Repeat("x", in.KB<<10), nil
	}))
	out, err := a.Run(t.Context(), "read the pages")
	if err != nil || out.Stop != agent.StopDone {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	reqs := srv.Requests()
	for i, r := range reqs {
		if isSummaryRequest(r) {
			t.Fatalf("request %d summarises on top of the provider's compaction", i)
		}
	}
	if len(reqs) != 3 || !strings.Contains(string(reqs[2].Body), `"type":"compaction"`) {
		t.Errorf("the compaction block did not go back: %d requests", len(reqs))
	}
	h := a.History()
	if len(h) < 4 || h[3].Parts[0].Type != llm.PartProvider {
		t.Errorf("the history does not keep the compaction block")
	}
}
