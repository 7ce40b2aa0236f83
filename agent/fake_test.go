package agent

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/llm"
)

// fake is an llm.Client that answers from a list of replies and records the
// requests it got, copied as they were when sent.
type fake struct {
	mu      sync.Mutex
	replies []fakeReply
	reqs    []*llm.Request
}

// fakeReply is one scripted answer. When err is set, pieces of text are
// streamed first, then (if block) the reply waits for ctx to end, then the
// error (or ctx's) is returned.
type fakeReply struct {
	resp  *llm.Response
	text  []string // streamed before err
	block bool     // wait for ctx before failing
	err   error
	// started, if set, is closed once the text pieces were sent.
	started chan struct{}
}

func (f *fake) next(req *llm.Request) (fakeReply, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cp := *req
	cp.Messages = copyHistory(req.Messages)
	f.reqs = append(f.reqs, &cp)
	if len(f.replies) == 0 {
		return fakeReply{}, errors.New("fake: the script ran out")
	}
	r := f.replies[0]
	f.replies = f.replies[1:]
	return r, nil
}

func (f *fake) requests() []*llm.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*llm.Request(nil), f.reqs...)
}

func (f *fake) Send(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	r, err := f.next(req)
	if err != nil {
		return nil, err
	}
	if r.err != nil || r.block {
		if r.started != nil {
			close(r.started)
		}
		return nil, r.fail(ctx)
	}
	return cloneResponse(r.resp), nil
}

func (r fakeReply) fail(ctx context.Context) error {
	if r.block {
		<-ctx.Done()
		return ctx.Err()
	}
	return r.err
}

func (f *fake) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		r, err := f.next(req)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		if r.err != nil || r.block {
			for _, t := range r.text {
				if !yield(llm.Event{Type: llm.EventText, Text: t}, nil) {
					return
				}
			}
			if r.started != nil {
				close(r.started)
			}
			yield(llm.Event{}, r.fail(ctx))
			return
		}
		resp := cloneResponse(r.resp)
		for _, p := range resp.Parts {
			var ok bool
			switch p.Type {
			case llm.PartText:
				// Two pieces, to show text streams.
				h := len(p.Text) / 2
				ok = yield(llm.Event{Type: llm.EventText, Text: p.Text[:h]}, nil) &&
					yield(llm.Event{Type: llm.EventText, Text: p.Text[h:]}, nil)
			case llm.PartThinking:
				ok = yield(llm.Event{Type: llm.EventThinking, Text: p.Text}, nil)
			case llm.PartToolCall:
				ok = yield(llm.Event{Type: llm.EventToolStart, Part: llm.Part{Type: p.Type, ID: p.ID, Name: p.Name}}, nil) &&
					yield(llm.Event{Type: llm.EventToolCall, Part: p}, nil)
			default:
				ok = true
			}
			if !ok {
				return
			}
		}
		yield(llm.Event{Type: llm.EventDone, Response: resp}, nil)
	}
}

func cloneResponse(r *llm.Response) *llm.Response {
	cp := *r
	cp.Parts = copyHistory([]llm.Message{{Parts: r.Parts}})[0].Parts
	return &cp
}

// reply returns a response with the given parts; its stop reason follows
// from them unless stop is given.
func reply(parts ...llm.Part) *llm.Response {
	stop := llm.StopEnd
	for _, p := range parts {
		if p.Type == llm.PartToolCall {
			stop = llm.StopToolUse
		}
	}
	return &llm.Response{Parts: parts, Stop: stop, Usage: llm.Usage{Input: 10, Output: 5}}
}

func call(id, name, args string) llm.Part { return llm.ToolCall(id, name, json.RawMessage(args)) }

func script(rs ...*llm.Response) *fake {
	f := &fake{}
	for _, r := range rs {
		f.replies = append(f.replies, fakeReply{resp: r})
	}
	return f
}

// events records events.
type events struct {
	mu  sync.Mutex
	all []Event
}

func (e *events) add(ev Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) of(t EventType) []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Event
	for _, ev := range e.all {
		if ev.Type == t {
			out = append(out, ev)
		}
	}
	return out
}

func (e *events) text() string {
	var b strings.Builder
	for _, ev := range e.of(EventText) {
		b.WriteString(ev.Text)
	}
	return b.String()
}

// mustValid fails t when the agent's history could not be sent.
func mustValid(t *testing.T, a *Agent) {
	t.Helper()
	if err := validate(a.History()); err != nil {
		t.Fatalf("history is not valid to send: %v\n%s", err, dump(a.History()))
	}
}

func dump(h []llm.Message) string {
	b, _ := json.MarshalIndent(h, "", "  ")
	return string(b)
}

// results returns the tool results of the last message of a request.
func results(req *llm.Request) []llm.Part {
	if len(req.Messages) == 0 {
		return nil
	}
	var out []llm.Part
	for _, p := range req.Messages[len(req.Messages)-1].Parts {
		if p.Type == llm.PartToolResult {
			out = append(out, p)
		}
	}
	return out
}
