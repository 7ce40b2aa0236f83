package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

// trivial is a tool that does next to nothing.
var trivial = tool.Tool{Name: "noop", Description: "does nothing", Risk: tool.Read,
	Func: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}

// BenchmarkStep measures a run of n steps, on an agent made once against an in-process llmtest
// server (no network: its in-memory transport). A step is one reply calling
// the trivial tool and the tool's result; each run ends with one more reply
// that answers. The figures include the client's encoding and decoding and
// the server's, which grow with the history each request carries: ns/step
// and allocs/step divide a run by n.
func BenchmarkStep(b *testing.B) {
	for _, d := range []llm.Dialect{llm.Anthropic, llm.OpenAI} {
		for _, n := range []int{1, 10, 100} {
			b.Run(fmt.Sprintf("%s/steps=%d", d, n), func(b *testing.B) {
				script := func(r *llmtest.Request) llmtest.Reply {
					if len(r.Messages) > 2*n {
						return llmtest.Reply{Text: "done"}
					}
					return llmtest.Reply{Calls: []llmtest.Call{{Name: "noop"}}}
				}
				srv := llmtest.NewServer(script)
				defer srv.Close()
				cfg := srv.Config(d)
				cfg.HTTPClient = &http.Client{Transport: srv.Transport()}
				client, err := llm.New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				benchSteps(b, client, n)
			})
		}
	}
}

// BenchmarkLoop measures the agent's own share of a step: the same runs as
// BenchmarkStep against a client that answers from memory.
func BenchmarkLoop(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			benchSteps(b, &canned{steps: n}, n)
		})
	}
}

func benchSteps(b *testing.B, client llm.Client, n int) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	a := New(client, &Options{Autonomy: Auto, MaxSteps: n + 1})
	a.Add(trivial)
	runs := 0
	for b.Loop() {
		if err := a.SetHistory(nil); err != nil {
			b.Fatal(err)
		}
		out, err := a.Run(context.Background(), "go")
		if err != nil || out.Stop != StopDone || out.Steps != n+1 {
			b.Fatalf("Run = %+v, %v", out, err)
		}
		runs++
	}
	runtime.ReadMemStats(&after)
	steps := float64(runs * n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/steps, "ns/step")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/steps, "allocs/step")
}

// canned is a client that makes a tool call until the conversation holds n
// steps, then answers, with nothing on the wire.
type canned struct{ steps int }

func (c *canned) Send(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if len(req.Messages) > 2*c.steps {
		return &llm.Response{Parts: []llm.Part{llm.Text("done")}, Stop: llm.StopEnd}, nil
	}
	id := fmt.Sprintf("call_%d", len(req.Messages))
	return &llm.Response{Parts: []llm.Part{llm.ToolCall(id, "noop", nil)}, Stop: llm.StopToolUse}, nil
}

func (c *canned) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		resp, err := c.Send(ctx, req)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		if t := resp.Text(); t != "" && !yield(llm.Event{Type: llm.EventText, Text: t}, nil) {
			return
		}
		yield(llm.Event{Type: llm.EventDone, Response: resp}, nil)
	}
}

// BenchmarkHistoryMemory reports the heap a 1,000-step conversation keeps
// on the agent: each step a short sentence, a tool call with a path, and a
// two-line result, decoded by the real Anthropic client from canned
// replies (an llmtest server would record every request, whose histories
// add up to far more than the one being measured).
func BenchmarkHistoryMemory(b *testing.B) {
	const steps = 1000
	var n atomic.Int64
	rt := roundTripper(func(r *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
		i := n.Add(1)
		var body string
		if i%(steps+1) == 0 {
			body = `{"id":"msg","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"All files read."}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":5}}`
		} else {
			body = fmt.Sprintf(`{"id":"msg","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Let me read file %d."},{"type":"tool_use","id":"toolu_%06d","name":"read_file","input":{"path":"src/file-%d.go"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}`, i, i, i)
		}
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	client, err := llm.New(llm.Config{Dialect: llm.Anthropic, BaseURL: "http://model.invalid", Model: "m", APIKey: "k", HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		b.Fatal(err)
	}
	read := tool.New("read_file", "reads a file", tool.Read, func(ctx context.Context, in readArgs) (string, error) {
		return "package main\n// " + in.Path + "\n", nil
	})
	var retained uint64
	for b.Loop() {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		a := New(client, &Options{Autonomy: Auto, MaxSteps: steps + 1, NoStream: true, NoCompact: true})
		a.Add(read)
		out, err := a.Run(context.Background(), "read every file")
		if err != nil || out.Stop != StopDone {
			b.Fatalf("Run = %+v, %v", out, err)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		retained = m1.HeapAlloc - m0.HeapAlloc
		if h := a.History(); len(h) != 2*steps+2 {
			b.Fatalf("%d messages", len(h))
		}
		runtime.KeepAlive(a)
	}
	b.ReportMetric(float64(retained), "B/history")
	b.ReportMetric(float64(retained)/steps, "B/step")
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
