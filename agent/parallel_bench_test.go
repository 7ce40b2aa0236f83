package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

// BenchmarkParallelReads runs one reply of 8 calls of a Read tool that
// takes 50 ms, then the answer: one at a time (MaxParallel 1), four at a
// time (the default) and all at once.
func BenchmarkParallelReads(b *testing.B) {
	slow := tool.Tool{Name: "slow", Description: "takes 50 ms", Risk: tool.Read, Func: func(ctx context.Context, _ json.RawMessage) (string, error) {
		time.Sleep(50 * time.Millisecond)
		return "ok", nil
	}}
	for _, n := range []int{1, 4, 8} {
		b.Run(fmt.Sprintf("max=%d", n), func(b *testing.B) {
			a := New(&fanOut{calls: 8}, &Options{MaxParallel: n})
			a.Add(slow)
			for b.Loop() {
				if err := a.SetHistory(nil); err != nil {
					b.Fatal(err)
				}
				if out, err := a.Run(context.Background(), "go"); err != nil || out.Stop != StopDone {
					b.Fatalf("Run = %+v, %v", out, err)
				}
			}
		})
	}
}

// fanOut is a client whose first reply calls "slow" n times and whose
// second answers.
type fanOut struct{ calls int }

func (f *fanOut) Send(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if len(req.Messages) > 1 {
		return &llm.Response{Parts: []llm.Part{llm.Text("done")}, Stop: llm.StopEnd}, nil
	}
	parts := make([]llm.Part, f.calls)
	for i := range parts {
		parts[i] = llm.ToolCall(fmt.Sprint("c", i), "slow", nil)
	}
	return &llm.Response{Parts: parts, Stop: llm.StopToolUse}, nil
}

func (f *fanOut) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		resp, _ := f.Send(ctx, req)
		yield(llm.Event{Type: llm.EventDone, Response: resp}, nil)
	}
}

// BenchmarkTraced is BenchmarkLoop and the Anthropic case of BenchmarkStep
// with tracing on: an SDK tracer provider that samples every span and
// drops it when it ends, so the figures hold the cost of making spans, not
// of exporting them. Run it on its own (-run '^$' -bench Traced): once set,
// the provider stays for the rest of the process. Compare with
// BenchmarkLoop and BenchmarkStep as they are (tracing off: the API's
// no-op) and built with -tags bridle_notrace (no tracing code at all).
func BenchmarkTraced(b *testing.B) {
	installTracing()
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("loop/steps=%d", n), func(b *testing.B) {
			benchSteps(b, &canned{steps: n}, n)
		})
	}
	b.Run("anthropic/steps=10", func(b *testing.B) {
		const n = 10
		srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
			if len(r.Messages) > 2*n {
				return llmtest.Reply{Text: "done"}
			}
			return llmtest.Reply{Calls: []llmtest.Call{{Name: "noop"}}}
		})
		defer srv.Close()
		cfg := srv.Config(llm.Anthropic)
		cfg.HTTPClient = &http.Client{Transport: srv.Transport()}
		client, err := llm.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		benchSteps(b, client, n)
	})
}

var installTracing = sync.OnceFunc(func() {
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(dropSpans{})))
})

// dropSpans is a span processor that keeps nothing.
type dropSpans struct{}

func (dropSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (dropSpans) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (dropSpans) Shutdown(context.Context) error                  { return nil }
func (dropSpans) ForceFlush(context.Context) error                { return nil }
