package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// meeting is a Read tool whose calls wait for each other: each returns only
// once n calls are running at the same time, so calls made one after
// another fail (after a generous wait) instead of meeting.
type meeting struct {
	n       int
	arrived chan struct{}
	all     chan struct{}
	once    sync.Once
	count   atomic.Int32
}

func newMeeting(n int) *meeting {
	return &meeting{n: n, arrived: make(chan struct{}, n), all: make(chan struct{})}
}

func (m *meeting) tool(name string) tool.Tool {
	return tool.Tool{Name: name, Description: "waits for the others", Risk: tool.Read,
		Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
		Func: func(ctx context.Context, args json.RawMessage) (string, error) {
			if int(m.count.Add(1)) == m.n {
				m.once.Do(func() { close(m.all) })
			}
			select {
			case <-m.all:
				return name + " " + string(args), nil
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(10 * time.Second):
				return "", errors.New("ran alone: the other calls never came")
			}
		}}
}

func TestReadCallsOfOneReplyRunTogether(t *testing.T) {
	m := newMeeting(3)
	f := script(
		reply(llm.Text("Looking."), call("c1", "look", `{"n":1}`), call("c2", "look", `{"n":2}`), call("c3", "look", `{"n":3}`)),
		reply(llm.Text("Seen.")),
	)
	var ev events
	a := New(f, &Options{OnEvent: ev.add})
	a.Add(m.tool("look"))
	out, err := a.Run(t.Context(), "look three times")
	if err != nil || out.Stop != StopDone {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	res := results(f.requests()[1])
	for i, r := range res {
		want := fmt.Sprintf(`look {"n":%d}`, i+1)
		if r.ID != fmt.Sprintf("c%d", i+1) || r.Text != want || r.IsError {
			t.Errorf("result %d = %+v; want %s for c%d, in the order asked", i, r, want, i+1)
		}
	}
	calling := ev.of(EventCalling)
	if len(calling) != 3 || calling[0].Batch == 0 || calling[1].Batch != calling[0].Batch || calling[2].Batch != calling[0].Batch {
		t.Fatalf("calling events %+v; want three with one nonzero Batch", calling)
	}
	for i, e := range calling {
		if e.Call.ID != fmt.Sprintf("c%d", i+1) {
			t.Errorf("calling event %d is for %s; want them in the order asked", i, e.Call.ID)
		}
	}
	for _, e := range ev.of(EventReturned) {
		if e.Batch != calling[0].Batch {
			t.Errorf("returned event %+v has another batch", e)
		}
	}
	mustValid(t, a)
}

func TestParallelCallsStayWithinTheBound(t *testing.T) {
	var running, most atomic.Int32
	gate := make(chan struct{})
	slow := tool.Tool{Name: "slow", Description: "takes a while", Risk: tool.Read, Func: func(ctx context.Context, _ json.RawMessage) (string, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		if n == 2 {
			close(gate) // two at once were seen: let every call finish
		}
		select {
		case <-gate:
		case <-time.After(10 * time.Second):
		}
		return "ok", nil
	}}
	var calls []llm.Part
	for i := range 6 {
		calls = append(calls, call(fmt.Sprint("c", i), "slow", `{}`))
	}
	f := script(reply(calls...), reply(llm.Text("done")))
	a := New(f, &Options{MaxParallel: 2})
	a.Add(slow)
	if out, err := a.Run(t.Context(), "go"); err != nil || out.Stop != StopDone {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if got := most.Load(); got != 2 {
		t.Errorf("at most %d calls ran at once; want 2 with MaxParallel 2", got)
	}
	if n := len(results(f.requests()[1])); n != 6 {
		t.Errorf("%d results for 6 calls", n)
	}
}

func TestWritesAndAskedCallsRunAloneAndInOrder(t *testing.T) {
	var mu sync.Mutex
	var log []string
	logged := func(name string, risk tool.Risk) tool.Tool {
		return tool.Tool{Name: name, Description: "logs", Risk: risk, Func: func(ctx context.Context, _ json.RawMessage) (string, error) {
			mu.Lock()
			log = append(log, name+" start")
			mu.Unlock()
			mu.Lock()
			log = append(log, name+" end")
			mu.Unlock()
			return "ok", nil
		}}
	}
	for _, tc := range []struct {
		autonomy Autonomy
		asked    []string
	}{
		{Auto, nil},
		{Ask, []string{"w1", "x"}},
	} {
		t.Run(tc.autonomy.String(), func(t *testing.T) {
			log = nil
			ask := &asker{answers: []Decision{Yes}}
			f := script(reply(call("1", "w1", `{}`), call("2", "r1", `{}`), call("3", "x", `{}`), call("4", "r2", `{}`)), reply(llm.Text("done")))
			var ev events
			a := New(f, &Options{Autonomy: tc.autonomy, Approver: ask.approve, OnEvent: ev.add})
			a.Add(logged("w1", tool.Write), logged("r1", tool.Read), logged("x", tool.Exec), logged("r2", tool.Read))
			if _, err := a.Run(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			want := []string{"w1 start", "w1 end", "r1 start", "r1 end", "x start", "x end", "r2 start", "r2 end"}
			if !slices.Equal(log, want) {
				t.Errorf("ran %v; want %v", log, want)
			}
			if got := ask.names(); !slices.Equal(got, tc.asked) {
				t.Errorf("asked about %v; want %v", got, tc.asked)
			}
			for _, e := range ev.of(EventCalling) {
				if e.Batch != 0 {
					t.Errorf("%s ran in batch %d; a lone call has none", e.Call.Name, e.Batch)
				}
			}
		})
	}
}

func TestCancelledDuringParallelCallsAnswersEveryCall(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var started atomic.Int32
	wait := tool.Tool{Name: "wait", Description: "waits for the end", Risk: tool.Read, Func: func(ctx context.Context, _ json.RawMessage) (string, error) {
		if started.Add(1) == 2 {
			cancel() // both run: the person presses Ctrl-C
		}
		<-ctx.Done()
		return "", ctx.Err()
	}}
	f := script(reply(call("a", "wait", `{}`), call("b", "wait", `{}`), call("c", "wait", `{}`)), reply(llm.Text("after")))
	a := New(f, &Options{MaxParallel: 2})
	a.Add(wait)
	out, err := a.Run(ctx, "go")
	if err != nil || out.Stop != StopCancelled {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	mustValid(t, a)
	h := a.History()
	last := h[len(h)-1]
	if len(last.Parts) != 3 {
		t.Fatalf("%d results for 3 calls:\n%s", len(last.Parts), dump(h))
	}
	for _, p := range last.Parts {
		if !p.IsError || !strings.Contains(p.Text, "cancelled") {
			t.Errorf("result %+v; want a cancelled call", p)
		}
	}
}

func TestMaxParallelOneRunsReadsOneAtATime(t *testing.T) {
	runs := 0
	var ev events
	f := script(reply(call("a", "t", `{}`), call("b", "t", `{}`)), reply(llm.Text("done")))
	a := New(f, &Options{MaxParallel: 1, OnEvent: ev.add})
	a.Add(counter("t", tool.Read, &runs))
	if _, err := a.Run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if runs != 2 {
		t.Fatalf("%d runs", runs)
	}
	for _, e := range ev.of(EventCalling) {
		if e.Batch != 0 {
			t.Errorf("%+v has a batch", e)
		}
	}
}
