package mcp

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/bridle-dev/bridle/internal/telemetry"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// tracer makes the spans of tools/call on both sides, following the MCP
// semantic conventions: a client span around each call a [Session] makes,
// a server span around each call a [Server] runs. The client carries the
// W3C trace context in the request's _meta (traceparent, tracestate), and
// the server continues it, so a call from a Bridle agent to a Bridle server
// is one trace. Both are no-ops unless the program set a tracer provider.
var tracer = telemetry.Tracer("mcp")

const methodCallTool = "tools/call"

// startCallSpan starts the client span of a tools/call and writes its trace
// context into params' _meta.
func (s *Session) startCallSpan(ctx context.Context, params *sdk.CallToolParams) (context.Context, trace.Span) {
	ctx, span := telemetry.Start(ctx, tracer, methodCallTool, trace.SpanKindClient)
	if !span.IsRecording() {
		return ctx, span
	}
	span.SetName(methodCallTool + " " + params.Name)
	span.SetAttributes(
		telemetry.MCPMethod.String(methodCallTool),
		telemetry.OperationName.String(telemetry.OpExecuteTool),
		telemetry.ToolName.String(params.Name),
		attributeServer.String(s.name),
	)
	if id := s.cs.ID(); id != "" {
		span.SetAttributes(telemetry.MCPSession.String(id))
	}
	if res := s.cs.InitializeResult(); res != nil && res.ProtocolVersion != "" {
		span.SetAttributes(telemetry.MCPProtocol.String(res.ProtocolVersion))
	}
	meta := params.GetMeta()
	if meta == nil {
		meta = map[string]any{}
	}
	telemetry.Inject(ctx, meta)
	params.SetMeta(meta)
	return ctx, span
}

// attributeServer names the server a session was connected under.
const attributeServer = attribute.Key("bridle.mcp.server")

// endCallSpan ends the client span of a tools/call: err is a failure to
// call, failed a result the server marked as an error.
func endCallSpan(span trace.Span, err error, failed bool) {
	if span.IsRecording() {
		switch {
		case err != nil:
			telemetry.Fail(span, "call_failed", err)
		case failed:
			span.SetAttributes(telemetry.ErrorType.String("tool_error"))
			span.SetStatus(codes.Error, "the tool failed")
		}
	}
	span.End()
}

// startServerSpan starts the server span of a tools/call, continuing the
// trace context the client sent in _meta.
func startServerSpan(ctx context.Context, req *sdk.CallToolRequest) (context.Context, trace.Span) {
	if req.Params != nil {
		ctx = telemetry.Extract(ctx, req.Params.GetMeta())
	}
	ctx, span := telemetry.Start(ctx, tracer, methodCallTool, trace.SpanKindServer)
	if !span.IsRecording() {
		return ctx, span
	}
	name := ""
	if req.Params != nil {
		name = req.Params.Name
	}
	span.SetName(methodCallTool + " " + name)
	span.SetAttributes(
		telemetry.MCPMethod.String(methodCallTool),
		telemetry.OperationName.String(telemetry.OpExecuteTool),
		telemetry.ToolName.String(name),
	)
	if req.Session != nil {
		if id := req.Session.ID(); id != "" {
			span.SetAttributes(telemetry.MCPSession.String(id))
		}
	}
	return ctx, span
}

// endServerSpan ends the server span of a call whose tool returned err.
func endServerSpan(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		span.SetAttributes(telemetry.ErrorType.String("tool_error"))
		desc := "the tool failed"
		if telemetry.CaptureContent() {
			desc = err.Error()
		}
		span.SetStatus(codes.Error, desc)
	}
	span.End()
}
