// Package telemetry is what llm, agent and mcp share for OpenTelemetry: the
// names of the GenAI and MCP semantic conventions, spans started from the
// global tracer provider, whether message contents may be recorded, and the
// W3C trace context carried in an MCP message's _meta.
//
// Only the OpenTelemetry API is used: with no tracer provider set, every
// span is a no-op. Built with the tag bridle_notrace, [Start] does not even
// reach the API, which is how the benchmarks measure what the no-op costs.
package telemetry

import (
	"context"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Scope is the instrumentation scope of Bridle's tracers; each package adds
// its own name ("github.com/bridle-dev/bridle/agent").
const Scope = "github.com/bridle-dev/bridle"

// Tracer returns the tracer of package pkg from the global provider. It
// follows the provider a program sets later.
func Tracer(pkg string) trace.Tracer { return otel.Tracer(Scope + "/" + pkg) }

// The operation names of the GenAI conventions.
const (
	OpChat        = "chat"
	OpInvokeAgent = "invoke_agent"
	OpExecuteTool = "execute_tool"
)

// Attribute keys of the GenAI and MCP conventions, and Bridle's own.
const (
	OperationName   = attribute.Key("gen_ai.operation.name")
	ProviderName    = attribute.Key("gen_ai.provider.name")
	RequestModel    = attribute.Key("gen_ai.request.model")
	RequestMaxTok   = attribute.Key("gen_ai.request.max_tokens")
	RequestTemp     = attribute.Key("gen_ai.request.temperature")
	RequestStream   = attribute.Key("gen_ai.request.stream")
	ResponseModel   = attribute.Key("gen_ai.response.model")
	ResponseID      = attribute.Key("gen_ai.response.id")
	FinishReasons   = attribute.Key("gen_ai.response.finish_reasons")
	InputTokens     = attribute.Key("gen_ai.usage.input_tokens")
	OutputTokens    = attribute.Key("gen_ai.usage.output_tokens")
	CacheReadTok    = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	CacheWriteTok   = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	ReasoningTok    = attribute.Key("gen_ai.usage.reasoning.output_tokens")
	InputMessages   = attribute.Key("gen_ai.input.messages")
	OutputMessages  = attribute.Key("gen_ai.output.messages")
	SystemInstr     = attribute.Key("gen_ai.system_instructions")
	AgentName       = attribute.Key("gen_ai.agent.name")
	ToolName        = attribute.Key("gen_ai.tool.name")
	ToolCallID      = attribute.Key("gen_ai.tool.call.id")
	ToolType        = attribute.Key("gen_ai.tool.type")
	ToolArgs        = attribute.Key("gen_ai.tool.call.arguments")
	ToolResult      = attribute.Key("gen_ai.tool.call.result")
	ErrorType       = attribute.Key("error.type")
	ServerAddress   = attribute.Key("server.address")
	ServerPort      = attribute.Key("server.port")
	MCPMethod       = attribute.Key("mcp.method.name")
	MCPSession      = attribute.Key("mcp.session.id")
	MCPProtocol     = attribute.Key("mcp.protocol.version")
	ToolRisk        = attribute.Key("bridle.tool.risk")
	ToolDecision    = attribute.Key("bridle.tool.decision")
	ToolBatch       = attribute.Key("bridle.tool.batch")
	AgentDepth      = attribute.Key("bridle.agent.depth")
	AgentStop       = attribute.Key("bridle.agent.stop")
	AgentSteps      = attribute.Key("bridle.agent.steps")
	AgentAutonomy   = attribute.Key("bridle.agent.autonomy")
	AgentStopReason = attribute.Key("bridle.agent.stop_reason")
)

// ContentVariable is the standard variable that opts in to recording
// message contents: prompts, replies, tool arguments and results.
const ContentVariable = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

// CaptureContent reports whether [ContentVariable] is "true" (or "1"): only
// then do spans hold what was said.
func CaptureContent() bool {
	v := strings.TrimSpace(os.Getenv(ContentVariable))
	return strings.EqualFold(v, "true") || v == "1"
}

// Fail marks span as failed with err, its type in error.type.
func Fail(span trace.Span, errType string, err error) {
	span.SetAttributes(ErrorType.String(errType))
	span.SetStatus(codes.Error, err.Error())
}

// traceContext is the W3C propagator: traceparent and tracestate. It is used
// whatever global propagator the program set, so that a Bridle client and a
// Bridle server always join their spans.
var traceContext propagation.TraceContext

// Inject writes the trace context of ctx into meta (an MCP _meta object) as
// traceparent and tracestate. It does nothing when ctx holds no span.
func Inject(ctx context.Context, meta map[string]any) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	traceContext.Inject(ctx, metaCarrier(meta))
}

// Extract returns ctx with the remote span context found in meta, if any.
func Extract(ctx context.Context, meta map[string]any) context.Context {
	if _, ok := meta["traceparent"]; !ok {
		return ctx
	}
	return traceContext.Extract(ctx, metaCarrier(meta))
}

// metaCarrier reads and writes string members of an MCP _meta object.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
