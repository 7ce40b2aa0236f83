package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/bridle-dev/bridle/internal/telemetry"
)

// tracer makes the "chat" spans of the GenAI conventions: one per model
// request, retries and repairs included, a no-op unless the program set a
// tracer provider.
var tracer = telemetry.Tracer("llm")

// startChat starts the span of one model request.
func (t *transport) startChat(ctx context.Context, req *Request, c *call) (context.Context, trace.Span) {
	ctx, span := telemetry.Start(ctx, tracer, telemetry.OpChat, trace.SpanKindClient)
	if !span.IsRecording() {
		return ctx, span
	}
	span.SetName(telemetry.OpChat + " " + c.model)
	span.SetAttributes(
		telemetry.OperationName.String(telemetry.OpChat),
		telemetry.ProviderName.String(providerName(t.d)),
		telemetry.RequestModel.String(c.model),
		telemetry.RequestStream.Bool(c.stream),
	)
	if u, err := url.Parse(t.url); err == nil {
		span.SetAttributes(telemetry.ServerAddress.String(u.Hostname()))
		if p, err := strconv.Atoi(u.Port()); err == nil {
			span.SetAttributes(telemetry.ServerPort.Int(p))
		}
	}
	if req.MaxTokens > 0 {
		span.SetAttributes(telemetry.RequestMaxTok.Int(req.MaxTokens))
	}
	if req.Temperature != nil {
		span.SetAttributes(telemetry.RequestTemp.Float64(*req.Temperature))
	}
	if telemetry.CaptureContent() {
		if req.System != "" {
			span.SetAttributes(telemetry.SystemInstr.String(contentJSON([]genaiPart{{Type: "text", Content: req.System}})))
		}
		span.SetAttributes(telemetry.InputMessages.String(contentJSON(genaiMessages(req.Messages))))
	}
	return ctx, span
}

// providerName names the provider as the conventions do; servers that speak
// OpenAI's dialect are told apart by server.address.
func providerName(d dialect) string {
	if _, ok := d.(anthropicWire); ok {
		return "anthropic"
	}
	return "openai"
}

// endChat ends the span of a request with its reply or its error.
func endChat(span trace.Span, resp *Response, err error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	if err != nil {
		kind := "error"
		var api *APIError
		if errors.As(err, &api) {
			kind = strconv.Itoa(api.Status)
		} else if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			kind = "cancelled"
		}
		telemetry.Fail(span, kind, err)
		return
	}
	if resp == nil {
		return
	}
	u := resp.Usage
	span.SetAttributes(
		telemetry.FinishReasons.StringSlice([]string{string(resp.Stop)}),
		telemetry.InputTokens.Int(u.Input),
		telemetry.OutputTokens.Int(u.Output),
		telemetry.CacheReadTok.Int(u.CacheRead),
		telemetry.CacheWriteTok.Int(u.CacheWrite),
	)
	if u.Reasoning > 0 {
		span.SetAttributes(telemetry.ReasoningTok.Int(u.Reasoning))
	}
	if resp.Model != "" {
		span.SetAttributes(telemetry.ResponseModel.String(resp.Model))
	}
	if resp.ID != "" {
		span.SetAttributes(telemetry.ResponseID.String(resp.ID))
	}
	if telemetry.CaptureContent() {
		out := genaiMessages([]Message{resp.Message()})
		out[0].FinishReason = string(resp.Stop)
		span.SetAttributes(telemetry.OutputMessages.String(contentJSON(out)))
	}
}

// genaiMessage is a message in the shape the GenAI conventions record.
type genaiMessage struct {
	Role         string      `json:"role"`
	Parts        []genaiPart `json:"parts"`
	FinishReason string      `json:"finish_reason,omitempty"`
}

type genaiPart struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  string          `json:"response,omitempty"`
}

func genaiMessages(msgs []Message) []genaiMessage {
	out := make([]genaiMessage, len(msgs))
	for i, m := range msgs {
		gm := genaiMessage{Role: string(m.Role), Parts: []genaiPart{}}
		for _, p := range m.Parts {
			switch p.Type {
			case PartText:
				gm.Parts = append(gm.Parts, genaiPart{Type: "text", Content: p.Text})
			case PartThinking:
				gm.Parts = append(gm.Parts, genaiPart{Type: "reasoning", Content: p.Text})
			case PartToolCall:
				args := p.Args
				if !json.Valid(args) {
					args = nil
				}
				gm.Parts = append(gm.Parts, genaiPart{Type: "tool_call", ID: p.ID, Name: p.Name, Arguments: args})
			case PartToolResult:
				if gm.Role == string(User) {
					gm.Role = "tool"
				}
				gm.Parts = append(gm.Parts, genaiPart{Type: "tool_call_response", ID: p.ID, Response: p.Text})
			}
		}
		out[i] = gm
	}
	return out
}

func contentJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// traceRetry notes a retry or repair on the request's span.
func traceRetry(ctx context.Context, r Retry) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{
		attribute.Int("bridle.retry.attempt", r.Attempt),
		attribute.String("bridle.retry.reason", r.Reason),
		attribute.Int64("bridle.retry.wait_ms", r.Wait.Milliseconds()),
	}
	if r.Err != nil {
		attrs = append(attrs, attribute.String("bridle.retry.error", r.Err.Error()))
	}
	span.AddEvent("retry", trace.WithAttributes(attrs...))
}
