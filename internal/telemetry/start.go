//go:build !bridle_notrace

package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

// Start starts a span of the given kind named name as a child of the span in
// ctx. Callers set attributes only when the span is recording.
func Start(ctx context.Context, t trace.Tracer, name string, kind trace.SpanKind) (context.Context, trace.Span) {
	return t.Start(ctx, name, trace.WithSpanKind(kind))
}
