package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/bridle-dev/bridle/internal/telemetry"
	tt "github.com/bridle-dev/bridle/internal/telemetry/telemetrytest"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

func mustAttr(t *testing.T, s sdktrace.ReadOnlySpan, key, want string) {
	t.Helper()
	if got, _ := tt.Attr(s, key); got != want {
		t.Errorf("span %q: %s = %q; want %q", s.Name(), key, got, want)
	}
}

func only(t *testing.T, spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	got := tt.Named(spans, name)
	if len(got) != 1 {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name())
		}
		t.Fatalf("%d spans named %q among %q", len(got), name, names)
	}
	return got[0]
}

func isChild(t *testing.T, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	if child.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("the parent of %q is not %q", child.Name(), parent.Name())
	}
}

func TestARunIsTracedAsInvokeAgentChatAndExecuteTool(t *testing.T) {
	ctx, tr := tt.Start(t.Context(), t)
	script := llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{{Name: "greet", Args: `{"name":"Ann"}`}, {Name: "write"}}, Usage: llm.Usage{Input: 100, Output: 10, CacheRead: 60}},
		llmtest.Reply{Text: "Hello.", Usage: llm.Usage{Input: 120, Output: 5}},
	)
	a, _ := start(t, setup{llm.Anthropic, true}, script, &Options{Name: "helper"})
	a.Add(tool.New("greet", "greets", tool.Read, func(ctx context.Context, in nameArgs) (string, error) { return "hello " + in.Name, nil }))
	runs := 0
	a.Add(counter("write", tool.Write, &runs))
	if _, err := a.Run(ctx, "greet Ann"); err != nil {
		t.Fatal(err)
	}
	spans := tr.Spans()
	root := only(t, spans, "invoke_agent helper")
	if root.Parent().SpanID() != tr.Root().SpanID() {
		t.Error("invoke_agent is not under the caller's span")
	}
	mustAttr(t, root, "gen_ai.operation.name", "invoke_agent")
	mustAttr(t, root, "gen_ai.agent.name", "helper")
	mustAttr(t, root, "gen_ai.usage.input_tokens", "220")
	mustAttr(t, root, "gen_ai.usage.output_tokens", "15")
	mustAttr(t, root, "gen_ai.usage.cache_read.input_tokens", "60")
	mustAttr(t, root, "bridle.agent.stop", "done")

	var chats []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if strings.HasPrefix(s.Name(), "chat ") {
			chats = append(chats, s)
		}
	}
	if len(chats) != 2 {
		t.Fatalf("%d chat spans; want one per model request", len(chats))
	}
	for _, c := range chats {
		isChild(t, c, root)
		mustAttr(t, c, "gen_ai.provider.name", "anthropic")
		mustAttr(t, c, "gen_ai.request.model", strings.TrimPrefix(c.Name(), "chat "))
	}
	mustAttr(t, chats[0], "gen_ai.usage.input_tokens", "100")
	mustAttr(t, chats[0], "gen_ai.usage.cache_read.input_tokens", "60")
	mustAttr(t, chats[0], "gen_ai.response.finish_reasons", `["tool_use"]`)

	greet := only(t, spans, "execute_tool greet")
	isChild(t, greet, root)
	mustAttr(t, greet, "gen_ai.tool.name", "greet")
	mustAttr(t, greet, "bridle.tool.risk", "read")
	mustAttr(t, greet, "bridle.tool.decision", "auto")
	if id, _ := tt.Attr(greet, "gen_ai.tool.call.id"); id == "" {
		t.Error("execute_tool has no call id")
	}
	write := only(t, spans, "execute_tool write")
	mustAttr(t, write, "bridle.tool.risk", "write")
	mustAttr(t, write, "bridle.tool.decision", "no_approver")
	mustAttr(t, write, "error.type", "declined")
	for _, s := range spans {
		for _, key := range []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"} {
			if _, ok := tt.Attr(s, key); ok {
				t.Errorf("%q records %s without the opt-in", s.Name(), key)
			}
		}
	}
}

func TestMessageContentsAreRecordedOnlyWhenAskedFor(t *testing.T) {
	t.Setenv(telemetry.ContentVariable, "true")
	ctx, tr := tt.Start(t.Context(), t)
	script := llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{{Name: "greet", Args: `{"name":"Ann"}`}}},
		llmtest.Reply{Text: "Hello."},
	)
	a, _ := start(t, setup{llm.OpenAI, false}, script, &Options{System: "Be brief."})
	a.Add(tool.New("greet", "greets", tool.Read, func(ctx context.Context, in nameArgs) (string, error) { return "hello " + in.Name, nil }))
	if _, err := a.Run(ctx, "greet Ann"); err != nil {
		t.Fatal(err)
	}
	spans := tr.Spans()
	greet := only(t, spans, "execute_tool greet")
	mustAttr(t, greet, "gen_ai.tool.call.arguments", `{"name":"Ann"}`)
	mustAttr(t, greet, "gen_ai.tool.call.result", "hello Ann")
	var last sdktrace.ReadOnlySpan
	for _, s := range spans {
		if strings.HasPrefix(s.Name(), "chat ") {
			last = s
		}
	}
	in, _ := tt.Attr(last, "gen_ai.input.messages")
	var msgs []map[string]any
	if err := json.Unmarshal([]byte(in), &msgs); err != nil || len(msgs) != 3 {
		t.Fatalf("input messages %s (%v)", in, err)
	}
	if msgs[0]["role"] != "user" || msgs[2]["role"] != "tool" || !strings.Contains(in, "hello Ann") {
		t.Errorf("input messages %s", in)
	}
	mustAttr(t, last, "gen_ai.system_instructions", `[{"type":"text","content":"Be brief."}]`)
	out, _ := tt.Attr(last, "gen_ai.output.messages")
	if !strings.Contains(out, `"content":"Hello."`) || !strings.Contains(out, `"finish_reason":"end"`) {
		t.Errorf("output messages %s", out)
	}
}

func TestSubAgentSpansNestUnderTheCall(t *testing.T) {
	ctx, tr := tt.Start(t.Context(), t)
	m := newMeeting(2)
	mk := func(name string) tool.Tool {
		c := script(reply(call(name+"1", "look", `{}`)), reply(llm.Text(name+" saw it")))
		return AsTool(SubAgent{Name: name, Client: c, Tools: []tool.Tool{m.tool("look")}})
	}
	parent := script(reply(call("p1", "left", `{"task":"look left"}`), call("p2", "right", `{"task":"look right"}`)), reply(llm.Text("Both.")))
	a := New(parent, nil)
	a.Add(mk("left"), mk("right"))
	if _, err := a.Run(ctx, "look"); err != nil {
		t.Fatal(err)
	}
	spans := tr.Spans()
	top := only(t, spans, "invoke_agent")
	for _, name := range []string{"left", "right"} {
		call := only(t, spans, "execute_tool "+name)
		isChild(t, call, top)
		mustAttr(t, call, "bridle.tool.batch", "1")
		sub := only(t, spans, "invoke_agent "+name)
		isChild(t, sub, call)
		mustAttr(t, sub, "bridle.agent.depth", "1")
		mustAttr(t, sub, "gen_ai.agent.name", name)
	}
	looks := tt.Named(spans, "execute_tool look")
	if len(looks) != 2 {
		t.Fatalf("%d look spans", len(looks))
	}
	for _, l := range looks {
		mustAttr(t, l, "gen_ai.agent.name", map[bool]string{true: "left", false: "right"}[l.Parent().SpanID() == only(t, spans, "invoke_agent left").SpanContext().SpanID()])
	}
}
