package main

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// collector is an OTLP/HTTP trace receiver on loopback: it keeps the spans
// it is sent, each with the service that sent it.
type collector struct {
	srv *httptest.Server

	mu    sync.Mutex
	spans []span
	more  chan struct{} // signalled after each export
}

type span struct {
	service string
	*tracepb.Span
}

func newCollector(t *testing.T) *collector {
	c := &collector{more: make(chan struct{}, 1)}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want protobuf on /v1/traces", http.StatusBadRequest)
			return
		}
		body, err := io.ReadAll(r.Body)
		var req collectortrace.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &req)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		for _, rs := range req.ResourceSpans {
			service := ""
			for _, kv := range rs.GetResource().GetAttributes() {
				if kv.Key == "service.name" {
					service = kv.GetValue().GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					c.spans = append(c.spans, span{service, s})
				}
			}
		}
		c.mu.Unlock()
		select {
		case c.more <- struct{}{}:
		default:
		}
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// waitFor returns the spans once ok says they are all there, or fails the
// test after a generous wait.
func (c *collector) waitFor(t *testing.T, ok func([]span) bool) []span {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		spans := append([]span(nil), c.spans...)
		c.mu.Unlock()
		if ok(spans) {
			return spans
		}
		select {
		case <-c.more:
		case <-deadline:
			for _, s := range spans {
				t.Logf("%s: %s", s.service, s.Name)
			}
			t.Fatalf("the expected spans did not all arrive (%d came)", len(spans))
		}
	}
}

func attr(s span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			v := kv.GetValue()
			if s := v.GetStringValue(); s != "" {
				return s
			}
			return v.String()
		}
	}
	return ""
}

func TestTraceOfARunThatCallsGotools(t *testing.T) {
	bin := agentBinary(t)
	withGotools(t)
	col := newCollector(t)
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Text: "Let me format it.", Calls: []llmtest.Call{{Name: "mcp__gotools__go_fmt", Args: `{"code":"package p\nvar  x = 1\n"}`}}},
		llmtest.Reply{Text: "Formatted."},
	))
	defer srv.Close()
	dir := t.TempDir()
	res := runAgent(t, bin, invocation{
		args: []string{"format this"},
		dir:  dir,
		env: append(modelEnv(srv, "anthropic", llm.Anthropic, "ANTHROPIC_API_KEY"), "GOTOOLS_BIN=",
			"OTEL_EXPORTER_OTLP_ENDPOINT="+col.srv.URL, "OTEL_BSP_SCHEDULE_DELAY=50"),
	})
	if res.code != 0 || res.stdout != "Formatted.\n" {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}

	// agent-cli: invoke_agent, two chats, execute_tool, the client's
	// tools/call; gotools-mcp: the server's tools/call.
	spans := col.waitFor(t, func(ss []span) bool {
		services := map[string]int{}
		for _, s := range ss {
			services[s.service]++
		}
		return services["agent-cli"] >= 5 && services["gotools-mcp"] >= 1
	})
	byName := map[string]span{}
	var chats []span
	for _, s := range spans {
		if s.Name == "chat "+attr(s, "gen_ai.request.model") && s.service == "agent-cli" {
			chats = append(chats, s)
			continue
		}
		byName[s.service+" "+s.Name] = s
	}
	root, ok := byName["agent-cli invoke_agent"]
	if !ok {
		root, ok = byName["agent-cli invoke_agent agent-cli"]
	}
	exec := byName["agent-cli execute_tool mcp__gotools__go_fmt"]
	client := byName["agent-cli tools/call go_fmt"]
	server := byName["gotools-mcp tools/call go_fmt"]
	if !ok || exec.Span == nil || client.Span == nil || server.Span == nil || len(chats) != 2 {
		for _, s := range spans {
			t.Logf("%s: %q", s.service, s.Name)
		}
		t.Fatalf("spans are missing: invoke_agent %v, execute_tool %v, client %v, server %v, %d chats",
			ok, exec.Span != nil, client.Span != nil, server.Span != nil, len(chats))
	}
	id := hex.EncodeToString(root.TraceId)
	for _, s := range append([]span{exec, client, server}, chats...) {
		if got := hex.EncodeToString(s.TraceId); got != id {
			t.Errorf("%s %q is in trace %s; want %s, one trace", s.service, s.Name, got, id)
		}
	}
	if len(root.ParentSpanId) != 0 {
		t.Errorf("invoke_agent has a parent")
	}
	parentOf := func(child, parent span) {
		t.Helper()
		if string(child.ParentSpanId) != string(parent.SpanId) {
			t.Errorf("the parent of %s %q is not %s %q", child.service, child.Name, parent.service, parent.Name)
		}
	}
	for _, c := range chats {
		parentOf(c, root)
		if attr(c, "gen_ai.operation.name") != "chat" || attr(c, "gen_ai.provider.name") != "anthropic" {
			t.Errorf("chat attributes: %v", c.Attributes)
		}
	}
	parentOf(exec, root)
	parentOf(client, exec)
	parentOf(server, client)
	if client.Kind != tracepb.Span_SPAN_KIND_CLIENT || server.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("kinds: client %v, server %v", client.Kind, server.Kind)
	}
	for key, want := range map[string]string{"gen_ai.tool.name": "mcp__gotools__go_fmt", "bridle.tool.risk": "read", "bridle.tool.decision": "auto"} {
		if got := attr(exec, key); got != want {
			t.Errorf("execute_tool %s = %q; want %q", key, got, want)
		}
	}
	for _, s := range []span{client, server} {
		if attr(s, "mcp.method.name") != "tools/call" || attr(s, "gen_ai.tool.name") != "go_fmt" {
			t.Errorf("%s span attributes: %v", s.service, s.Attributes)
		}
	}
	// Contents are not recorded unless asked for.
	for _, s := range spans {
		for _, kv := range s.Attributes {
			switch kv.Key {
			case "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result":
				t.Errorf("%s %q records %s without the opt-in", s.service, s.Name, kv.Key)
			}
		}
	}
}
