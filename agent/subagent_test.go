package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

func TestSubAgentAnswersAsAToolResult(t *testing.T) {
	runs := 0
	child := script(
		reply(llm.Text("Reading."), call("k1", "read", `{}`)),
		reply(llm.Text("The file says hi.")),
	)
	parent := script(
		reply(call("p1", "reader", `{"task":"read the file"}`)),
		reply(llm.Text("It says hi.")),
	)
	var ev events
	a := New(parent, &Options{OnEvent: ev.add})
	a.Add(AsTool(SubAgent{
		Name:    "reader",
		Client:  child,
		Options: &Options{System: "You read files.", Model: "small"},
		Tools:   []tool.Tool{counter("read", tool.Read, &runs)},
	}))
	out, err := a.Run(t.Context(), "what does the file say?")
	if err != nil || out.Stop != StopDone || out.Text != "It says hi." {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if runs != 1 {
		t.Errorf("the sub-agent's tool ran %d times", runs)
	}
	creqs := child.requests()
	if len(creqs) != 2 || creqs[0].System != "You read files." || creqs[0].Model != "small" || creqs[0].Messages[0].Text() != "read the file" {
		t.Fatalf("the sub-agent was asked %+v", creqs[0])
	}
	if len(creqs[0].Tools) != 1 || creqs[0].Tools[0].Name != "read" {
		t.Errorf("the sub-agent was offered %+v", creqs[0].Tools)
	}
	if res := results(parent.requests()[1]); len(res) != 1 || res[0].Text != "The file says hi." || res[0].IsError {
		t.Errorf("the parent's model read %+v", res)
	}
	// Usage: two replies of the parent and two of the child, 10+5 each.
	if want := (llm.Usage{Input: 40, Output: 20, Cost: llm.Cost{Unpriced: 60}}); out.Usage != want || a.Usage() != want {
		t.Errorf("usage %+v, agent %+v; want %+v with the sub-agent's", out.Usage, a.Usage(), want)
	}
	var tagged []string
	for _, e := range ev.all {
		if e.Agent != "" {
			tagged = append(tagged, fmt.Sprintf("%s@%d:%s", e.Agent, e.Depth, e.Type))
		}
	}
	for _, want := range []string{"reader@1:text", "reader@1:calling", "reader@1:returned", "reader@1:step"} {
		if !slices.Contains(tagged, want) {
			t.Errorf("no %s among the sub-agent's events %v", want, tagged)
		}
	}
	for _, e := range ev.of(EventCalling) {
		if e.Call.Name == "reader" && (e.Agent != "" || e.Depth != 0) {
			t.Errorf("the parent's own call is tagged %q@%d", e.Agent, e.Depth)
		}
	}
	mustValid(t, a)
}

func TestSubAgentRiskIsItsToolsHighest(t *testing.T) {
	nop := func(name string, r tool.Risk) tool.Tool {
		return tool.Tool{Name: name, Risk: r, Func: func(context.Context, json.RawMessage) (string, error) { return "", nil }}
	}
	for _, tc := range []struct {
		tools []tool.Tool
		want  tool.Risk
	}{
		{nil, tool.Read},
		{[]tool.Tool{nop("a", tool.Read)}, tool.Read},
		{[]tool.Tool{nop("a", tool.Read), nop("b", tool.Write)}, tool.Write},
		{[]tool.Tool{nop("a", tool.Exec), nop("b", tool.Write)}, tool.Exec},
	} {
		got := AsTool(SubAgent{Name: "s", Client: script(), Tools: tc.tools}).Risk
		if got != tc.want {
			t.Errorf("risk with %d tools = %v; want %v", len(tc.tools), got, tc.want)
		}
	}
}

func TestReadOnlyParentDoesNotStartAWritingSubAgent(t *testing.T) {
	child := script(reply(llm.Text("never")))
	parent := script(reply(call("p1", "editor", `{"task":"edit"}`)), reply(llm.Text("I could not.")))
	a := New(parent, &Options{Autonomy: ReadOnly})
	runs := 0
	a.Add(AsTool(SubAgent{Name: "editor", Client: child, Tools: []tool.Tool{counter("write", tool.Write, &runs)}}))
	if _, err := a.Run(t.Context(), "edit it"); err != nil {
		t.Fatal(err)
	}
	if len(child.requests()) != 0 {
		t.Error("the sub-agent was started")
	}
	if res := results(parent.requests()[1]); len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, "read-only") {
		t.Errorf("the parent's model read %+v", res)
	}
}

func TestSubAgentAsksTheParentsApprover(t *testing.T) {
	runs := 0
	child := script(
		reply(call("k1", "write", `{}`)),
		reply(call("k2", "write", `{}`)),
		reply(llm.Text("Written twice.")),
	)
	parent := script(
		reply(call("p1", "editor", `{"task":"write twice"}`)),
		reply(call("p2", "editor", `{"task":"write once more"}`)),
		reply(llm.Text("Done.")),
	)
	child.replies = append(child.replies, fakeReply{resp: reply(call("k3", "write", `{}`))}, fakeReply{resp: reply(llm.Text("Written."))})
	ask := &asker{answers: []Decision{Yes, Yes, Always}}
	a := New(parent, &Options{Autonomy: Edits, Approver: ask.approve})
	// The sub-agent asks for auto, but the parent runs at edits: the
	// sub-agent's Exec tool asks the parent's approver.
	a.Add(AsTool(SubAgent{Name: "editor", Client: child, Options: &Options{Autonomy: Auto},
		Tools: []tool.Tool{counter("write", tool.Exec, &runs)}}))
	out, err := a.Run(t.Context(), "write")
	if err != nil || out.Stop != StopDone {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	// The parent's call of editor (Exec) is asked first (yes), then the
	// child's first write (yes), then its second (always), then the
	// parent's second call of editor: "always" for the child's write lasts
	// into the second run of editor, whose write is not asked.
	var got []string
	for _, c := range ask.asked {
		got = append(got, c.Agent+":"+c.Name)
	}
	want := []string{":editor", "editor:write", "editor:write", ":editor"}
	if !slices.Equal(got, want) {
		t.Errorf("asked %v; want %v", got, want)
	}
	if runs != 3 {
		t.Errorf("write ran %d times; want 3", runs)
	}
}

func TestSubAgentDepthIsLimited(t *testing.T) {
	inner := script(reply(llm.Text("deep answer")))
	innerTool := AsTool(SubAgent{Name: "inner", Client: inner})
	middle := script(reply(call("m1", "inner", `{"task":"go deeper"}`)), reply(llm.Text("middle answer")))
	middleTool := AsTool(SubAgent{Name: "middle", Client: middle, Tools: []tool.Tool{innerTool}})
	parent := script(reply(call("p1", "middle", `{"task":"go"}`)), reply(llm.Text("top answer")))
	var ev events
	a := New(parent, &Options{MaxDepth: 1, OnEvent: ev.add})
	a.Add(middleTool)
	if _, err := a.Run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if len(inner.requests()) != 0 {
		t.Error("the sub-agent at depth 2 was started")
	}
	res := results(middle.requests()[1])
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, "depth 2, and the limit is 1") {
		t.Errorf("the middle agent read %+v", res)
	}
	var sawMiddle bool
	for _, e := range ev.all {
		if e.Agent == "middle" && e.Depth == 1 {
			sawMiddle = true
		}
		if e.Depth > 1 {
			t.Errorf("event %+v from below the limit", e)
		}
	}
	if !sawMiddle {
		t.Error("no event from the middle agent")
	}
}

func TestNestedSubAgentEventsNameThePath(t *testing.T) {
	inner := script(reply(llm.Text("deep")))
	middle := script(reply(call("m1", "inner", `{"task":"x"}`)), reply(llm.Text("mid")))
	parent := script(reply(call("p1", "middle", `{"task":"y"}`)), reply(llm.Text("top")))
	var ev events
	a := New(parent, &Options{OnEvent: ev.add})
	a.Add(AsTool(SubAgent{Name: "middle", Client: middle, Tools: []tool.Tool{AsTool(SubAgent{Name: "inner", Client: inner})}}))
	out, err := a.Run(t.Context(), "go")
	if err != nil || out.Text != "top" {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	found := false
	for _, e := range ev.of(EventText) {
		if e.Agent == "middle/inner" && e.Depth == 2 {
			found = true
		}
	}
	if !found {
		t.Errorf("no text event from middle/inner at depth 2")
	}
	if want := (llm.Usage{Input: 50, Output: 25, Cost: llm.Cost{Unpriced: 75}}); out.Usage != want {
		t.Errorf("usage %+v; want %+v, every level counted once", out.Usage, want)
	}
}

func TestCancellingTheParentCancelsTheSubAgent(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	child := &fake{replies: []fakeReply{{text: []string{"Thinking"}, block: true, started: started}}}
	parent := script(reply(llm.Text("Asking."), call("p1", "helper", `{"task":"think"}`)), reply(llm.Text("after")))
	a := New(parent, &Options{OnEvent: func(e Event) {
		if e.Agent == "helper" && e.Type == EventText {
			cancel()
		}
	}})
	a.Add(AsTool(SubAgent{Name: "helper", Client: child}))
	out, err := a.Run(ctx, "go")
	if err != nil || out.Stop != StopCancelled {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	mustValid(t, a)
	h := a.History()
	if p := h[len(h)-1].Parts; len(p) != 1 || !p[0].IsError || !strings.Contains(p[0].Text, "cancelled") {
		t.Fatalf("the call's result is %+v", p)
	}
}

func TestReadOnlySubAgentsFanOut(t *testing.T) {
	m := newMeeting(2)
	mk := func(name string) tool.Tool {
		c := script(reply(call(name+"1", "look", `{}`)), reply(llm.Text(name+" saw it")))
		return AsTool(SubAgent{Name: name, Client: c, Tools: []tool.Tool{m.tool("look")}})
	}
	parent := script(reply(call("p1", "left", `{"task":"look left"}`), call("p2", "right", `{"task":"look right"}`)), reply(llm.Text("Both seen.")))
	var ev events
	a := New(parent, &Options{OnEvent: ev.add})
	a.Add(mk("left"), mk("right"))
	out, err := a.Run(t.Context(), "look both ways")
	if err != nil || out.Text != "Both seen." {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	res := results(parent.requests()[1])
	if len(res) != 2 || res[0].Text != "left saw it" || res[1].Text != "right saw it" {
		t.Fatalf("the parent read %+v", res)
	}
	calling := ev.of(EventCalling)
	var batch int
	for _, e := range calling {
		if e.Agent == "" {
			if e.Batch == 0 || batch != 0 && e.Batch != batch {
				t.Errorf("%+v did not run with the other sub-agent", e)
			}
			batch = e.Batch
		}
	}
	if want := (llm.Usage{Input: 60, Output: 30, Cost: llm.Cost{Unpriced: 90}}); out.Usage != want {
		t.Errorf("usage %+v; want %+v", out.Usage, want)
	}
}

func TestAsToolPanicsOnMistakes(t *testing.T) {
	for name, s := range map[string]SubAgent{
		"no name":   {Client: script()},
		"no client": {Name: "x"},
		"bad tool":  {Name: "x", Client: script(), Tools: []tool.Tool{{Name: "t"}}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			AsTool(s)
		})
	}
}

func TestTheParentsCheckCallSeesTheSubAgentsCalls(t *testing.T) {
	runs := 0
	child := script(reply(call("k1", "rm", `{}`)), reply(llm.Text("I was stopped.")))
	parent := script(reply(call("p1", "cleaner", `{"task":"clean up"}`)), reply(llm.Text("Not cleaned.")))
	var seen []string
	a := New(parent, &Options{Autonomy: Auto, CheckCall: func(ctx context.Context, c Call) error {
		seen = append(seen, c.Agent+":"+c.Name)
		if c.Name == "rm" {
			return fmt.Errorf("%s may not remove files", c.Agent)
		}
		return nil
	}})
	a.Add(AsTool(SubAgent{Name: "cleaner", Client: child, Options: &Options{Autonomy: Auto},
		Tools: []tool.Tool{counter("rm", tool.Exec, &runs)}}))
	if _, err := a.Run(t.Context(), "clean"); err != nil {
		t.Fatal(err)
	}
	if runs != 0 {
		t.Error("the refused call ran")
	}
	if want := []string{":cleaner", "cleaner:rm"}; !slices.Equal(seen, want) {
		t.Errorf("CheckCall saw %v; want %v", seen, want)
	}
	if res := results(child.requests()[1]); len(res) != 1 || res[0].Text != "refused: cleaner may not remove files" {
		t.Errorf("the sub-agent read %+v", res)
	}
}
