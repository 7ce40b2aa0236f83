package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// counter is a tool that counts its runs.
func counter(name string, risk tool.Risk, runs *int) tool.Tool {
	return tool.Tool{Name: name, Description: "counts its runs", Risk: risk, Func: func(ctx context.Context, _ json.RawMessage) (string, error) {
		*runs++
		return fmt.Sprintf("%s ran", name), nil
	}}
}

func TestAutonomyDecidesWhoRunsAndWhoAsks(t *testing.T) {
	type want struct{ ran, asked bool }
	tests := []struct {
		autonomy Autonomy
		risk     tool.Risk
		answer   Decision
		want     want
	}{
		{ReadOnly, tool.Read, Yes, want{ran: true}},
		{ReadOnly, tool.Write, Yes, want{}},
		{ReadOnly, tool.Exec, Yes, want{}},
		{Ask, tool.Read, No, want{ran: true}},
		{Ask, tool.Write, Yes, want{ran: true, asked: true}},
		{Ask, tool.Write, No, want{asked: true}},
		{Ask, tool.Exec, Always, want{ran: true, asked: true}},
		{Edits, tool.Write, No, want{ran: true}},
		{Edits, tool.Exec, No, want{asked: true}},
		{Edits, tool.Exec, Yes, want{ran: true, asked: true}},
		{Auto, tool.Exec, No, want{ran: true}},
		{Auto, tool.Write, No, want{ran: true}},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("at %s a %s tool %s when the person says %s", tt.autonomy, tt.risk, map[bool]string{true: "runs", false: "does not run"}[tt.want.ran], tt.answer)
		t.Run(name, func(t *testing.T) {
			runs, asked := 0, 0
			f := script(reply(call("c1", "t", `{}`)), reply(llm.Text("ok")))
			a := New(f, &Options{Autonomy: tt.autonomy, Approver: func(ctx context.Context, c Call) Decision {
				asked++
				if c.Risk != tt.risk || c.Name != "t" {
					t.Errorf("approver got %+v", c)
				}
				return tt.answer
			}})
			a.Add(counter("t", tt.risk, &runs))
			out, err := a.Run(t.Context(), "go")
			if err != nil || out.Stop != StopDone || out.Text != "ok" {
				t.Fatalf("Run = %+v, %v", out, err)
			}
			if got := (want{ran: runs == 1, asked: asked == 1}); got != tt.want {
				t.Errorf("ran, asked = %+v, want %+v", got, tt.want)
			}
			res := results(f.requests()[1])
			if len(res) != 1 || res[0].IsError == tt.want.ran {
				t.Fatalf("result = %+v", res)
			}
			if !tt.want.ran && !strings.Contains(res[0].Text, "did not allow") {
				t.Errorf("the model is not told the user did not allow it: %q", res[0].Text)
			}
			mustValid(t, a)
		})
	}
}

func TestAddPanicsNamingTheTool(t *testing.T) {
	ok := tool.Tool{Risk: tool.Read, Name: "fine", Func: func(context.Context, json.RawMessage) (string, error) { return "", nil }}
	tests := []struct {
		name string
		add  func(a *Agent)
		want string
	}{
		{"a tool added twice", func(a *Agent) { a.Add(ok); a.Add(ok) }, `"fine" is already registered`},
		{"a tool given twice in one call", func(a *Agent) { a.Add(ok, ok) }, `"fine" is given twice`},
		{"an empty name", func(a *Agent) { t := ok; t.Name = ""; t.Description = "lists files"; a.Add(t) }, `"lists files"`},
		{"an invalid name", func(a *Agent) { t := ok; t.Name = "list files"; a.Add(t) }, `"list files"`},
		{"a schema that is not JSON", func(a *Agent) { t := ok; t.Name = "broken"; t.Schema = json.RawMessage(`{type:`); a.Add(t) }, `"broken"`},
		{"no function", func(a *Agent) { t := ok; t.Name = "idle"; t.Func = nil; a.Add(t) }, `"idle" has no Func`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" panics", func(t *testing.T) {
			a := New(&fake{}, &Options{})
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), tt.want) {
					t.Fatalf("panic %v, want one containing %s", r, tt.want)
				}
			}()
			tt.add(a)
		})
	}
}

func TestMCPNamesAreMadeFitDeterministically(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct {
		server, tool string
		want         string // "" means: shortened and checked below
	}{
		{"notes", "search", "mcp__notes__search"},
		{"my.server", "get data", ""},
		{"notes", long, ""},
	}
	for _, tt := range tests {
		t.Run(tt.server+" "+clip.String(tt.tool, 10), func(t *testing.T) {
			got := mcpName(tt.server, tt.tool)
			if tt.want != "" && got != tt.want {
				t.Fatalf("mcpName = %q, want %q", got, tt.want)
			}
			if err := tool.CheckName(got); err != nil {
				t.Fatal(err)
			}
			if again := mcpName(tt.server, tt.tool); again != got {
				t.Fatalf("not deterministic: %q then %q", got, again)
			}
			if !strings.HasPrefix(got, "mcp__") {
				t.Fatalf("%q lost its prefix", got)
			}
		})
	}
	if mcpName("a", "b.c") == mcpName("a", "b_c") {
		t.Error("two names that sanitise alike collide")
	}
}

func TestConnectRenamesKeepsTheRealNameAndAppendsInstructions(t *testing.T) {
	runs := 0
	f := script(reply(call("c1", mcpName("notes", "find.note"), `{}`)), reply(llm.Text("done")))
	a := New(f, &Options{System: "Be brief.", Autonomy: Auto})
	if err := a.connect("notes", "Notes are markdown.", []tool.Tool{counter("find.note", tool.Read, &runs)}); err != nil {
		t.Fatal(err)
	}
	if err := a.connect("notes", "", nil); err == nil || !strings.Contains(err.Error(), `"notes" is already connected`) {
		t.Fatalf("second connect under one name: %v", err)
	}
	if _, err := a.Run(t.Context(), "find"); err != nil {
		t.Fatal(err)
	}
	if runs != 1 {
		t.Fatalf("the renamed tool ran %d times", runs)
	}
	req := f.requests()[0]
	if want := "Be brief.\n\n# Instructions from the MCP server \"notes\"\n\nNotes are markdown."; req.System != want {
		t.Errorf("system = %q, want %q", req.System, want)
	}
	if e := a.lookup(req.Tools[0].Name); e == nil || e.real != "find.note" || e.server != "notes" {
		t.Errorf("no way back to the real name: %+v", e)
	}
}

func TestSetHistoryRefusesWhatCannotBeSent(t *testing.T) {
	u, as := llm.UserText("hi"), llm.Message{Role: llm.Assistant, Parts: []llm.Part{llm.Text("hello")}}
	callMsg := llm.Message{Role: llm.Assistant, Parts: []llm.Part{call("c1", "t", `{}`)}}
	answer := llm.Message{Role: llm.User, Parts: []llm.Part{llm.ToolResult("c1", "ok", false)}}
	tests := []struct {
		name string
		h    []llm.Message
		want string // "" means valid
	}{
		{"an empty history is valid", nil, ""},
		{"a question and an answer are valid", []llm.Message{u, as}, ""},
		{"a call answered in the next message is valid", []llm.Message{u, callMsg, answer, as}, ""},
		{"a history ending with the person's turn is valid", []llm.Message{u, callMsg, answer}, ""},
		{"an unknown role is refused", []llm.Message{{Role: "system", Parts: []llm.Part{llm.Text("x")}}}, `role "system"`},
		{"starting with the assistant is refused", []llm.Message{as}, "starts with the user"},
		{"two user turns in a row are refused", []llm.Message{u, u}, "must alternate"},
		{"an empty message is refused", []llm.Message{u, {Role: llm.Assistant}}, "no parts"},
		{"an unanswered call is refused", []llm.Message{u, callMsg}, `"c1" and nothing answers it`},
		{"a call answered late is refused", []llm.Message{u, callMsg, u}, `does not answer tool call "c1"`},
		{"a result for no call is refused", []llm.Message{u, as, answer}, `answers tool call "c1"`},
		{"a call in a user turn is refused", []llm.Message{{Role: llm.User, Parts: []llm.Part{call("c1", "t", `{}`)}}}, "cannot hold"},
		{"arguments that are not an object are refused", []llm.Message{u, {Role: llm.Assistant, Parts: []llm.Part{call("c1", "t", `[1]`)}}, answer}, "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(&fake{}, &Options{})
			err := a.SetHistory(tt.h)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(a.History()) != len(tt.h) {
					t.Fatal("history not set")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("SetHistory = %v, want an error containing %q", err, tt.want)
			}
			if len(a.History()) != 0 {
				t.Fatal("a refused history was set")
			}
		})
	}
}

func TestAwkwardRepliesEndClearly(t *testing.T) {
	cut := reply(llm.Text("I will write"), call("c1", "t", `{"path": "a`))
	cut.Stop = llm.StopMaxTokens
	long := reply(llm.Text("and so on and"))
	long.Stop = llm.StopMaxTokens
	refusal := reply()
	refusal.Stop = llm.StopRefusal
	thinkingOnly := reply(llm.Thinking("hmm", "sig"))
	tests := []struct {
		name     string
		resp     *llm.Response
		stop     Stop
		text     string
		kept     bool // the reply stays in the history
		ranTools bool
	}{
		{"an empty reply is done with no text", reply(), StopDone, "", false, false},
		{"a reply of thinking alone is done with no text", thinkingOnly, StopDone, "", false, false},
		{"a call cut off at max tokens is not run", cut, StopMaxTokens, "I will write", true, false},
		{"text cut off at max tokens is kept", long, StopMaxTokens, "and so on and", true, false},
		{"a refusal is refused", refusal, StopRefused, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := 0
			a := New(script(tt.resp), &Options{Autonomy: Auto})
			a.Add(counter("t", tool.Read, &runs))
			out, err := a.Run(t.Context(), "go")
			if err != nil {
				t.Fatal(err)
			}
			if out.Stop != tt.stop || out.Text != tt.text || out.Steps != 1 {
				t.Fatalf("outcome = %+v", out)
			}
			if tt.stop != StopDone && out.Reason == "" {
				t.Error("no reason given")
			}
			if runs != 0 {
				t.Error("a tool ran")
			}
			h := a.History()
			if kept := len(h) == 2; kept != tt.kept {
				t.Fatalf("history:\n%s", dump(h))
			}
			if !tt.kept && len(h) != 0 {
				t.Fatalf("a run with nothing to keep left the question behind:\n%s", dump(h))
			}
			mustValid(t, a)
		})
	}
}

func TestBadArgumentsAreSentBackAsAnObject(t *testing.T) {
	f := script(reply(call("c1", "t", `{"path": `), call("c2", "t", `[1]`)), reply(llm.Text("sorry")))
	runs := 0
	a := New(f, &Options{Autonomy: Auto})
	a.Add(counter("t", tool.Read, &runs))
	if _, err := a.Run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if runs != 0 {
		t.Fatal("the tool ran with bad arguments")
	}
	res := results(f.requests()[1])
	if len(res) != 2 || !res[0].IsError || !strings.Contains(res[0].Text, "not valid JSON") || !strings.Contains(res[1].Text, "must be a JSON object") {
		t.Fatalf("results = %+v", res)
	}
	mustValid(t, a)
}

func TestRunIsOneAtATime(t *testing.T) {
	started := make(chan struct{})
	f := &fake{replies: []fakeReply{{block: true, started: started}}}
	a := New(f, &Options{NoStream: true})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan Outcome)
	go func() {
		out, _ := a.Run(ctx, "first")
		done <- out
	}()
	<-started
	if _, err := a.Run(t.Context(), "second"); !errors.Is(err, ErrBusy) {
		t.Errorf("a second Run = %v, want ErrBusy", err)
	}
	if err := a.SetHistory(nil); !errors.Is(err, ErrBusy) {
		t.Errorf("SetHistory during Run = %v, want ErrBusy", err)
	}
	cancel()
	if out := <-done; out.Stop != StopCancelled {
		t.Errorf("outcome = %+v", out)
	}
	if h := a.History(); len(h) != 0 {
		t.Errorf("a run cancelled before any reply left history:\n%s", dump(h))
	}
}

func TestCancelledMidStreamKeepsTheTextThatArrived(t *testing.T) {
	started := make(chan struct{})
	f := &fake{replies: []fakeReply{
		{text: []string{"Half an ", "answer"}, block: true, started: started},
		{resp: reply(llm.Text("whole"))},
	}}
	var ev events
	a := New(f, &Options{OnEvent: ev.add})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	out, err := a.Run(ctx, "first")
	if err != nil || out.Stop != StopCancelled || out.Text != "Half an answer" || out.Steps != 0 {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if ev.text() != "Half an answer" {
		t.Errorf("text events %q", ev.text())
	}
	mustValid(t, a)
	if _, err := a.Run(t.Context(), "again"); err != nil {
		t.Fatal(err)
	}
	sent := f.requests()[1].Messages
	if len(sent) != 3 || sent[1].Text() != "Half an answer" || sent[2].Text() != "again" {
		t.Fatalf("second request:\n%s", dump(sent))
	}
}

func TestModelFailureKeepsTheHistoryValid(t *testing.T) {
	boom := errors.New("boom")
	runs := 0
	f := &fake{replies: []fakeReply{
		{err: boom},
		{resp: reply(call("c1", "t", `{}`))},
		{err: boom},
	}}
	a := New(f, &Options{Autonomy: Auto})
	a.Add(counter("t", tool.Read, &runs))
	if _, err := a.Run(t.Context(), "first"); !errors.Is(err, boom) {
		t.Fatalf("Run = %v", err)
	}
	if h := a.History(); len(h) != 0 {
		t.Fatalf("a failed first request left:\n%s", dump(h))
	}
	out, err := a.Run(t.Context(), "second")
	if !errors.Is(err, boom) || out.Steps != 1 || out.Usage.Input != 10 {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	mustValid(t, a)
	if h := a.History(); len(h) != 3 || h[0].Text() != "second" {
		t.Fatalf("history:\n%s", dump(h))
	}
}

func TestOutputCheckReplacesOrBlocksAndHistoryFollows(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("streaming %v", stream), func(t *testing.T) {
			var ev events
			a := New(script(reply(llm.Text("secret 42")), reply(llm.Text("fine"))), &Options{
				NoStream: !stream,
				OnEvent:  ev.add,
				CheckOutput: func(ctx context.Context, s string) (string, error) {
					if strings.Contains(s, "secret") {
						return strings.ReplaceAll(s, "42", "**"), nil
					}
					return s, nil
				},
			})
			out, _ := a.Run(t.Context(), "tell")
			if out.Text != "secret **" {
				t.Fatalf("text %q", out.Text)
			}
			if h := a.History(); h[1].Text() != "secret **" {
				t.Fatalf("history keeps %q", h[1].Text())
			}
			if !stream && ev.text() != "secret **" {
				t.Errorf("without streaming the text event should carry the checked text, got %q", ev.text())
			}
		})
	}
}
