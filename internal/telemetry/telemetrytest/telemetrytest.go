// Package telemetrytest records the spans of Bridle's packages in tests.
// The packages' tracers follow the first tracer provider set in the
// process, so every test of a binary shares one recorder and picks its own
// spans by trace.
package telemetrytest

import (
	"context"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

var recorder = sync.OnceValue(func() *tracetest.SpanRecorder {
	rec := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	return rec
})

// Span is an ended span.
type Span = sdktrace.ReadOnlySpan

// Trace is one test's trace: a root span under which the test's spans go.
type Trace struct {
	rec  *tracetest.SpanRecorder
	root trace.Span
}

// Start installs the recorder (once per process) and returns ctx under a
// new root span named after the test.
func Start(ctx context.Context, t testing.TB) (context.Context, *Trace) {
	rec := recorder()
	ctx, root := otel.Tracer("telemetrytest").Start(ctx, t.Name())
	return ctx, &Trace{rec: rec, root: root}
}

// ID returns the trace's id.
func (tr *Trace) ID() trace.TraceID { return tr.root.SpanContext().TraceID() }

// Root returns the root span's context.
func (tr *Trace) Root() trace.SpanContext { return tr.root.SpanContext() }

// Spans returns the ended spans of the trace, the root aside, in the order
// they ended.
func (tr *Trace) Spans() []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range tr.rec.Ended() {
		if s.SpanContext().TraceID() == tr.ID() && s.SpanContext().SpanID() != tr.root.SpanContext().SpanID() {
			out = append(out, s)
		}
	}
	return out
}

// Attr returns the value of attribute key on s, as a string, and whether
// it is set.
func Attr(s sdktrace.ReadOnlySpan, key string) (string, bool) {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value.Emit(), true
		}
	}
	return "", false
}

// Named returns the spans of spans whose name is name.
func Named(spans []sdktrace.ReadOnlySpan, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}
