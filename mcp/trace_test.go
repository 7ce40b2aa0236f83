package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	tt "github.com/bridle-dev/bridle/internal/telemetry/telemetrytest"
	"github.com/bridle-dev/bridle/tool"
)

func TestToolCallsAreOneTraceAcrossClientAndServer(t *testing.T) {
	var seen trace.SpanContext
	srv := NewServer("traced", "1", nil)
	srv.AddTools(
		tool.Tool{Name: "echo", Description: "echoes", Risk: tool.Read, Func: func(ctx context.Context, args json.RawMessage) (string, error) {
			seen = trace.SpanContextFromContext(ctx)
			return string(args), nil
		}},
		tool.Tool{Name: "fail", Description: "fails", Risk: tool.Read, Func: func(ctx context.Context, args json.RawMessage) (string, error) {
			return "", errors.New("no luck")
		}},
	)
	ctx, tr := tt.Start(t.Context(), t)
	s, err := ConnectInProcess(ctx, "traced", srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.Tools(ctx)
	if err != nil || len(tools) != 2 {
		t.Fatalf("tools %v, %v", tools, err)
	}
	if _, err := tools[0].Call(ctx, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := tools[1].Call(ctx, json.RawMessage(`{}`)); err == nil {
		t.Fatal("fail did not fail")
	}
	spans := tr.Spans()
	var client, server, failedClient, failedServer = findSpan(spans, "tools/call echo", trace.SpanKindClient), findSpan(spans, "tools/call echo", trace.SpanKindServer),
		findSpan(spans, "tools/call fail", trace.SpanKindClient), findSpan(spans, "tools/call fail", trace.SpanKindServer)
	if client == nil || server == nil || failedClient == nil || failedServer == nil {
		t.Fatalf("spans are missing among %d", len(spans))
	}
	if client.Parent().SpanID() != tr.Root().SpanID() {
		t.Error("the client span is not under the caller's")
	}
	if server.Parent().SpanID() != client.SpanContext().SpanID() || !server.Parent().IsRemote() {
		t.Error("the server span does not continue the client's trace context")
	}
	if seen.SpanID() != server.SpanContext().SpanID() {
		t.Error("the tool does not run under the server span")
	}
	for _, sp := range []tt.Span{client, server} {
		for key, want := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool"} {
			if got, _ := tt.Attr(sp, key); got != want {
				t.Errorf("%v span: %s = %q; want %q", sp.SpanKind(), key, got, want)
			}
		}
	}
	for _, sp := range []tt.Span{failedClient, failedServer} {
		if got, _ := tt.Attr(sp, "error.type"); got != "tool_error" {
			t.Errorf("failed %v span: error.type = %q", sp.SpanKind(), got)
		}
	}
}

func TestTheTraceContextGoesInMeta(t *testing.T) {
	var meta map[string]any
	srv := sdk.NewServer(&sdk.Implementation{Name: "raw", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "peek", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *sdk.CallToolRequest, _ map[string]any) (*sdk.CallToolResult, any, error) {
		meta = req.Params.GetMeta()
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, nil
	})
	s := connectSDK(t, srv, nil)
	tools, err := s.Tools(t.Context())
	if err != nil || len(tools) != 1 {
		t.Fatal(tools, err)
	}
	ctx, tr := tt.Start(t.Context(), t)
	if _, err := tools[0].Call(ctx, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	client := findSpan(tr.Spans(), "tools/call peek", trace.SpanKindClient)
	if client == nil {
		t.Fatal("no client span")
	}
	want := "00-" + client.SpanContext().TraceID().String() + "-" + client.SpanContext().SpanID().String() + "-01"
	if tp, _ := meta["traceparent"].(string); tp != want {
		t.Errorf("traceparent %q; want %q", tp, want)
	}
	if _, ok := meta["io.modelcontextprotocol/protocolVersion"]; !ok {
		t.Errorf("the SDK's own _meta is lost: %v", meta)
	}
}

func findSpan(spans []tt.Span, name string, kind trace.SpanKind) tt.Span {
	for _, s := range spans {
		if s.Name() == name && s.SpanKind() == kind {
			return s
		}
	}
	return nil
}
