package telemetry

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

func TestTraceContextRoundTripsThroughMeta(t *testing.T) {
	meta := map[string]any{"progressToken": 7}
	Inject(context.Background(), meta)
	if len(meta) != 1 {
		t.Fatalf("a context with no span wrote %v", meta)
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{1, 2, 3},
		SpanID:     trace.SpanID{4, 5, 6},
		TraceFlags: trace.FlagsSampled,
	})
	Inject(trace.ContextWithSpanContext(context.Background(), sc), meta)
	if meta["traceparent"] != "00-01020300000000000000000000000000-0405060000000000-01" {
		t.Fatalf("meta = %v", meta)
	}
	got := trace.SpanContextFromContext(Extract(context.Background(), meta))
	if got.TraceID() != sc.TraceID() || got.SpanID() != sc.SpanID() || !got.IsRemote() {
		t.Errorf("extracted %v; want %v, remote", got, sc)
	}
	if ctx := Extract(context.Background(), map[string]any{"traceparent": 42}); trace.SpanContextFromContext(ctx).IsValid() {
		t.Error("a traceparent that is not a string was read")
	}
}

func TestCaptureContentFollowsTheStandardVariable(t *testing.T) {
	for v, want := range map[string]bool{"": false, "false": false, "true": true, "TRUE": true, "1": true, "yes": false} {
		t.Setenv(ContentVariable, v)
		if got := CaptureContent(); got != want {
			t.Errorf("%s=%q: %v", ContentVariable, v, got)
		}
	}
}
