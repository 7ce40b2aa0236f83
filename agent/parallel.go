package agent

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// DefaultMaxParallel is the bound on Read calls running at once when
// [Options.MaxParallel] is 0.
const DefaultMaxParallel = 4

// runCalls answers the calls of one reply, in the order the model asked.
// Consecutive calls of Read tools, which run without asking at any autonomy,
// run at the same time (up to MaxParallel); every other call runs on its
// own, in order, after the calls before it and before the calls after it,
// so a Read never overtakes a Write it follows. Once ctx ends, the calls
// left are answered as cancelled without running.
func (r *run) runCalls(ctx context.Context, calls []llm.Part) []llm.Part {
	results := make([]llm.Part, len(calls))
	for i := 0; i < len(calls); {
		p := calls[i]
		if ctx.Err() != nil {
			out := "cancelled: the user stopped the run before this call ran"
			c := r.a.describe(p)
			c.Agent = r.path
			r.emit(Event{Type: EventDeclined, Call: c, Why: out})
			results[i] = llm.ToolResult(p.ID, out, true)
			i++
			continue
		}
		if n := r.readRun(calls[i:]); n > 1 {
			r.runBatch(ctx, calls[i:i+n], results[i:i+n])
			i += n
			continue
		}
		out, failed := r.call(ctx, p)
		results[i] = llm.ToolResult(p.ID, out, failed)
		i++
	}
	return results
}

// readRun counts the calls at the start of calls that may run together:
// calls of Read tools that the autonomy lets run without asking. It is 0
// when the agent runs calls one at a time.
func (r *run) readRun(calls []llm.Part) int {
	if r.a.cfg.MaxParallel == 1 {
		return 0
	}
	n := 0
	for _, p := range calls {
		e := r.a.lookup(p.Name)
		if e == nil || e.t.Risk != tool.Read {
			break
		}
		if run, _ := r.a.cfg.Autonomy.allows(e.t.Risk); !run {
			break
		}
		n++
	}
	return n
}

// pending is a call of a batch that passed admission.
type pending struct {
	i    int
	ctx  context.Context
	span trace.Span
	e    *entry
	c    Call
	p    llm.Part
}

// runBatch runs calls of Read tools at the same time, writing their results
// to results in the same order. The calls are checked (arguments,
// CheckCall) one after another, in order, and announced together with the
// same Batch; each reports its return when it finishes.
func (r *run) runBatch(ctx context.Context, calls []llm.Part, results []llm.Part) {
	var todo []pending
	for i, p := range calls {
		cctx, span := r.startTool(ctx, p)
		e, c, out, ok := r.admit(cctx, p)
		if !ok {
			span.End()
			results[i] = llm.ToolResult(p.ID, out, true)
			continue
		}
		todo = append(todo, pending{i: i, ctx: cctx, span: span, e: e, c: c, p: p})
	}
	batch := 0
	if len(todo) > 1 {
		r.batches++
		batch = r.batches
	}
	for _, t := range todo {
		toolBatch(t.ctx, batch)
		r.emit(Event{Type: EventCalling, Call: t.c, Batch: batch})
	}
	limit := r.a.cfg.MaxParallel
	if limit <= 0 {
		limit = DefaultMaxParallel
	}
	slots := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for _, t := range todo {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			defer t.span.End()
			if ctx.Err() != nil {
				out := "cancelled: the user stopped the run before this call ran"
				toolFailed(t.ctx, "cancelled", out)
				results[t.i] = llm.ToolResult(t.p.ID, out, true)
				r.emit(Event{Type: EventReturned, Call: t.c, Output: out, Failed: true, Batch: batch})
				return
			}
			out, failed := r.invoke(t.ctx, t.e, t.c, t.p)
			results[t.i] = llm.ToolResult(t.p.ID, out, failed)
			r.emit(Event{Type: EventReturned, Call: t.c, Output: out, Failed: failed, Batch: batch})
		})
	}
	wg.Wait()
}
