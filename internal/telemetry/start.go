//go:build !bridle_notrace

package telemetry

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// unset is the global tracer provider before a program sets one: the API's
// own, whose spans are no-ops.
var unset = otel.GetTracerProvider()

// Start starts a span of the given kind named name as a child of the span in
// ctx. Until the program sets a tracer provider it returns ctx as it is and
// a span that records nothing, at the cost of one comparison. Callers set
// attributes only when the span is recording.
func Start(ctx context.Context, t trace.Tracer, name string, kind trace.SpanKind) (context.Context, trace.Span) {
	if otel.GetTracerProvider() == unset {
		return ctx, noop.Span{}
	}
	return t.Start(ctx, name, trace.WithSpanKind(kind))
}
