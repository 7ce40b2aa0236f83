package agent

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/internal/telemetry"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// tracer makes the "invoke_agent" and "execute_tool" spans of the GenAI
// conventions; the "chat" spans between them are package llm's. All are
// no-ops unless the program set a tracer provider.
var tracer = telemetry.Tracer("agent")

// traced runs r.do inside an invoke_agent span, with r in the context for
// the sub-agents its tools start.
func (r *run) traced(ctx context.Context, text string) (Outcome, error) {
	ctx = withCaller(ctx, r)
	ctx, span := telemetry.Start(ctx, tracer, telemetry.OpInvokeAgent, trace.SpanKindInternal)
	if !span.IsRecording() {
		out, err := r.do(ctx, text)
		span.End()
		return out, err
	}
	defer span.End()
	cfg := &r.a.cfg
	span.SetAttributes(
		telemetry.OperationName.String(telemetry.OpInvokeAgent),
		telemetry.AgentDepth.Int(r.depth),
		telemetry.AgentAutonomy.String(cfg.Autonomy.String()),
	)
	if cfg.Name != "" {
		span.SetName(telemetry.OpInvokeAgent + " " + cfg.Name)
		span.SetAttributes(telemetry.AgentName.String(cfg.Name))
	}
	if cfg.Model != "" {
		span.SetAttributes(telemetry.RequestModel.String(cfg.Model))
	}
	out, err := r.do(ctx, text)
	span.SetAttributes(
		telemetry.AgentStop.String(string(out.Stop)),
		telemetry.AgentSteps.Int(out.Steps),
	)
	setUsage(span, out.Usage)
	if out.Reason != "" {
		span.SetAttributes(telemetry.AgentStopReason.String(out.Reason))
	}
	if err != nil {
		telemetry.Fail(span, "model_error", err)
	}
	return out, err
}

func setUsage(span trace.Span, u llm.Usage) {
	span.SetAttributes(
		telemetry.InputTokens.Int(u.Input),
		telemetry.OutputTokens.Int(u.Output),
		telemetry.CacheReadTok.Int(u.CacheRead),
		telemetry.CacheWriteTok.Int(u.CacheWrite),
	)
}

// startTool starts the execute_tool span of a call.
func (r *run) startTool(ctx context.Context, p llm.Part) (context.Context, trace.Span) {
	ctx, span := telemetry.Start(ctx, tracer, telemetry.OpExecuteTool, trace.SpanKindInternal)
	if !span.IsRecording() {
		return ctx, span
	}
	span.SetName(telemetry.OpExecuteTool + " " + p.Name)
	span.SetAttributes(
		telemetry.OperationName.String(telemetry.OpExecuteTool),
		telemetry.ToolName.String(p.Name),
		telemetry.ToolCallID.String(p.ID),
		telemetry.ToolType.String("function"),
	)
	if r.path != "" {
		span.SetAttributes(telemetry.AgentName.String(r.a.cfg.Name))
	}
	if telemetry.CaptureContent() {
		span.SetAttributes(telemetry.ToolArgs.String(string(p.Args)))
	}
	return ctx, span
}

// toolRisk records a call's risk on its span.
func toolRisk(ctx context.Context, risk tool.Risk) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(telemetry.ToolRisk.String(risk.String()))
	}
}

// toolDecision records how a call was let run or not: auto, yes, always,
// no, refused, no_approver.
func toolDecision(ctx context.Context, d string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(telemetry.ToolDecision.String(d))
	}
}

// toolBatch records the batch of calls a call ran with.
func toolBatch(ctx context.Context, n int) {
	if span := trace.SpanFromContext(ctx); n > 0 && span.IsRecording() {
		span.SetAttributes(telemetry.ToolBatch.Int(n))
	}
}

// toolFailed records why a call failed. A declined call is a decision, not
// an error: it gets error.type but keeps an unset status. What the model
// reads is recorded only when message contents are.
func toolFailed(ctx context.Context, kind, out string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(telemetry.ErrorType.String(kind))
	if kind == "declined" {
		return
	}
	desc := kind
	if telemetry.CaptureContent() {
		desc = clip.String(out, 1024)
	}
	span.SetStatus(codes.Error, desc)
}

// toolOutput records what the model reads from a call, when message
// contents are recorded.
func toolOutput(ctx context.Context, out string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() && telemetry.CaptureContent() {
		span.SetAttributes(telemetry.ToolResult.String(out))
	}
}
