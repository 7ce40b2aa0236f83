package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/tool"
)

// The calls Run answers itself must be answered byte for byte as the SDK
// answers them: these tests run the same session against a server that
// answers them itself and one whose SDK() was taken, which sends every
// message to the SDK.

const statelessMeta = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`

const legacyInit = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25","capabilities":{}}}
{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`

// fastFixture is fixtureServer with tools whose answers need escaping.
func fastFixture(viaSDK bool) *Server {
	s := fixtureServer()
	s.AddTools(tool.New("html", "Writes markup.", tool.Read, func(_ context.Context, in struct {
		Tag string `json:"tag"`
	}) (string, error) {
		return "<" + in.Tag + "> & \"quotes\" \u2028 é \x01", nil
	}))
	if viaSDK {
		s.SDK()
	}
	return s
}

// exchange sends lines to s.Run one at a time, waiting after each call
// with an integer or plain string id for its answer, then closes the
// input; it returns every line s wrote, by id (null ids in order).
func exchange(t testing.TB, s *Server, lines []string) map[string]string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.Run(context.Background(), inR, outW)
		outW.Close()
	}()
	got := make(chan [2]string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal(sc.Bytes(), &m)
			got <- [2]string{sameID(m.ID), sc.Text()}
		}
		close(got)
	}()
	answers := make(map[string]string)
	nulls := 0
	keep := func(a [2]string) {
		if a[0] == "" || a[0] == "null" {
			a[0] = fmt.Sprintf("null#%d", nulls)
			nulls++
		}
		answers[a[0]] = a[1]
	}
	for _, line := range lines {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || len(m.ID) == 0 || !canonicalID([]byte(sameID(m.ID))) {
			continue
		}
		timeout := time.After(10 * time.Second)
		for answers[sameID(m.ID)] == "" {
			select {
			case a := <-got:
				keep(a)
			case <-timeout:
				t.Fatalf("no answer to %s", line)
			}
		}
	}
	inW.Close()
	for a := range got {
		keep(a)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	return answers
}

// sameID is a string id as a JSON encoder writes it back (the SDK
// escapes U+2028 and U+2029, for one), so that an answer is found by the
// id of its call; other ids are returned as they are.
func sameID(id json.RawMessage) string {
	var s string
	if len(id) == 0 || id[0] != '"' || json.Unmarshal(id, &s) != nil {
		return string(id)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// sameAnswers runs lines against both servers and reports differences; it
// returns how many calls the fast server answered itself.
func sameAnswers(t testing.TB, lines []string) int64 {
	t.Helper()
	fast := fastFixture(false)
	want := exchange(t, fastFixture(true), lines)
	got := exchange(t, fast, lines)
	for id, w := range want {
		if got[id] != w {
			t.Errorf("answer to id %s:\n got %s\nwant %s", id, got[id], w)
		}
	}
	for id, g := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("an answer the SDK did not give: %s", g)
		}
	}
	return fast.fastAnswered.Load()
}

func TestFastAnswersAsTheSDK(t *testing.T) {
	calls := func(prefix, meta string) []string {
		if meta != "" {
			meta += ","
		}
		var lines []string
		for i, params := range []string{
			`"name":"echo","arguments":{"text":"hi"}`, // proves the form
			`"name":"echo","arguments":{"text":"hi","times":3}`,
			`"name":"echo","arguments":{"text":"hi","times":"3"}`,
			`"name":"echo","arguments":{}`,
			`"name":"echo"`,
			`"name":"echo","arguments":{"text":"hi","extra":true}`,
			`"name":"html","arguments":{"tag":"b"}`,
			`"name":"fail","arguments":{}`,
			`"name":"explode"`,
			`"name":"nope","arguments":{}`,
			`"name":"echo","arguments":[1]`,
			`"name":"echo","arguments":null`,
			`"name":"echo","arguments":{"text":"hi"},"requestState":"x"`,
			`"arguments":{"text":"hi"},"name":"save_note"`,
			`"name":"save_note","arguments":{"title":"t","body":"b"}`,
			`"name":"run_command","arguments":{"command":"ls"},"_meta":{"progressToken":7}`,
		} {
			if strings.Contains(params, `"_meta"`) && meta != "" {
				params = strings.Replace(params, `"_meta":{`, meta[:len(meta)-2]+",", 1)
			} else {
				params = meta + params
			}
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s-%d","method":"tools/call","params":{%s}}`, prefix, i, params))
		}
		lines = append(lines,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{%s"name":"echo","arguments":{"text":"number id"}}}`, meta),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":1.0,"method":"tools/call","params":{%s"name":"echo","arguments":{"text":"float id"}}}`, meta),
		)
		for i, id := range []string{"<a&b>", "é", "\u2028", "\u2029x", "\u007f", "/"} {
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s%s-%d","method":"tools/call","params":{%s"name":"echo","arguments":{"text":"odd id"}}}`, prefix, id, i, meta))
		}
		return lines
	}
	tests := []struct {
		name  string
		lines []string
		fast  bool // some calls must be answered without the SDK
	}{
		{"a legacy session", append(strings.Split(legacyInit, "\n"), calls("l", "")...), true},
		{"a stateless session", calls("s", statelessMeta), true},
		{"calls before initialize", calls("u", ""), false},
		{"an unsupported revision", calls("v", strings.Replace(statelessMeta, "2026-07-28", "2099-01-01", 1)), false},
		{"stateless calls without capabilities", calls("c", `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`), false},
		{"a bad client info", calls("i", strings.Replace(statelessMeta, `{"name":"c","version":"1"}`, `7`, 1)), false},
		{"a legacy session with a stateless call", append(strings.Split(legacyInit, "\n"), calls("m", statelessMeta)...), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := sameAnswers(t, tt.lines)
			if tt.fast && n == 0 {
				t.Error("no call was answered without the SDK")
			}
			if !tt.fast && n != 0 {
				t.Errorf("%d calls were answered without the SDK, which refuses them", n)
			}
		})
	}
}

func TestFastCallsCanBeCancelled(t *testing.T) {
	started := make(chan struct{}, 1)
	s := NewServer("slow", "1", nil)
	s.AddTools(tool.New("wait", "Waits until cancelled.", tool.Read, func(ctx context.Context, _ struct{}) (string, error) {
		started <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	}), tool.New("ok", "Answers.", tool.Read, func(context.Context, struct{}) (string, error) {
		return "ok", nil
	}))
	p := runStdio(t, context.Background(), s)
	p.initialize("2025-11-25")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ok"}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait"}}`)
	<-started
	if s.fastAnswered.Load() != 1 {
		t.Fatalf("the second call went to the SDK")
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	r := p.recv()
	var res struct {
		Content []struct{ Text string }
		IsError bool
	}
	if err := json.Unmarshal(r.Result, &res); err != nil || !res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, "context canceled") {
		t.Fatalf("the cancelled call answered %s (%v)", r.Result, err)
	}
}

func TestFastCallsEndWithRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	s := NewServer("slow", "1", nil)
	s.AddTools(tool.New("wait", "Waits until cancelled.", tool.Read, func(ctx context.Context, _ struct{}) (string, error) {
		started <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return "", ctx.Err()
	}), tool.New("ok", "Answers.", tool.Read, func(context.Context, struct{}) (string, error) {
		return "ok", nil
	}))
	p := runStdio(t, ctx, s)
	p.initialize("2025-11-25")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ok"}}`) // through the SDK
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait"}}`) // answered by Run
	<-started
	if s.fastAnswered.Load() != 1 {
		t.Fatalf("the second call went to the SDK")
	}
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the call ended with %v", err)
	}
}

func TestSDKTurnsTheFastPathOff(t *testing.T) {
	s := fastFixture(true)
	lines := append(strings.Split(legacyInit, "\n"),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}`)
	exchange(t, s, lines)
	if n := s.fastAnswered.Load(); n != 0 {
		t.Fatalf("%d calls did not reach the SDK", n)
	}
}

func TestFastCallsAnsweredWhenTheInputEnds(t *testing.T) {
	s := fastFixture(false)
	in := legacyInit + "\n" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}` + "\n"
	var out lockedBuffer
	// The first call proves the form only once answered, so the calls
	// after it, sent at once, may go either way; each must be answered.
	for i := 2; i < 50; i++ {
		in += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`+"\n", i)
	}
	if err := s.Run(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), `"text":"a"`); n != 49 {
		t.Fatalf("%d of 49 calls were answered:\n%s", n, out.String())
	}
}

// FuzzFastCalls sends a tools/call with fuzzed params and id three times
// (once to prove its form, then twice more) to both servers and compares
// the answers. An empty id stands for the integer ids 1, 2 and 3.
func FuzzFastCalls(f *testing.F) {
	for _, params := range []string{
		`{"name":"echo","arguments":{"text":"hi"}}`,
		`{"name":"echo","arguments":{"text":"hi"},` + statelessMeta + `}`,
		`{"name":"html","arguments":{"tag":"\u003c"}}`,
		`{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2025-06-18"}}`,
		`{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":5}}}`,
		`{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"Name":1}}}`,
		`{"name":"ec\u0068o","arguments":{"text":"hi"}}`,
		`{"Name":"echo","arguments":{"text":"hi"}}`,
		`{"name":"echo","name":"fail"}`,
		`{"name":"echo","arguments":{"text":"hi","text":5}}`,
	} {
		f.Add(params, "", true)
		f.Add(params, "", false)
	}
	f.Add(`{"name":"echo","arguments":{"text":"hi"}}`, "a<b>&\u2028 é", true)
	f.Fuzz(func(t *testing.T, params, id string, legacy bool) {
		call := func(n int) string {
			callID := fmt.Sprint(n)
			if id != "" {
				callID = fmt.Sprintf(`"%s-%d"`, id, n)
			}
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":%s}`, callID, params)
		}
		if !json.Valid([]byte(call(1))) || strings.ContainsAny(params+id, "\n") {
			t.Skip() // a newline would cut the message in two lines
		}
		lines := []string{call(1), call(2), call(3)}
		if legacy {
			lines = append(strings.Split(legacyInit, "\n"), lines...)
		}
		sameAnswers(t, lines)
	})
}
