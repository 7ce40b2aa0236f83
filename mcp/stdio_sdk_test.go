package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests run the same exchange against Run and against the SDK's own
// stdio transport (IOTransport) serving the same kind of server, and
// compare what a client reads: Run must differ from the SDK only where it
// is documented to (lines that are not messages, the end of the input).

const initLines = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25","capabilities":{}}}
{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`

// gate is a tool that blocks until its call is cancelled or the gate is
// opened, and says which.
type gate struct {
	started chan struct{} // receives once per call that started
	open    chan struct{}
}

func newGate() *gate { return &gate{started: make(chan struct{}, 16), open: make(chan struct{})} }

func (g *gate) tool() tool.Tool {
	return tool.New("block", "Blocks.", tool.Read, func(ctx context.Context, _ struct{}) (string, error) {
		g.started <- struct{}{}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("cancelled: %w", ctx.Err())
		case <-g.open:
			return "opened", nil
		}
	})
}

// peer is one side of a comparison: a server served over pipes.
type peer struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

// serveWith starts s over pipes, with Run (viaSDK false) or with the
// SDK's IOTransport.
func serveWith(t *testing.T, s *Server, viaSDK bool) *peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &peer{in: inW, lines: make(chan string, 64), done: make(chan error, 1)}
	go func() {
		var err error
		if viaSDK {
			err = s.SDK().Run(context.Background(), &sdk.IOTransport{Reader: inR, Writer: outW})
		} else {
			err = s.Run(context.Background(), inR, outW)
		}
		outW.Close()
		p.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return p
}

func (p *peer) send(t *testing.T, lines string) {
	t.Helper()
	for line := range strings.Lines(lines) {
		if _, err := io.WriteString(p.in, strings.TrimSuffix(line, "\n")+"\n"); err != nil {
			t.Fatalf("writing %s: %v", line, err)
		}
	}
}

// waitFor reads lines until one answers id, and returns it; the lines read
// on the way are kept in seen.
func (p *peer) waitFor(t *testing.T, id string, seen *[]string) string {
	t.Helper()
	for line := range p.lines {
		*seen = append(*seen, line)
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && string(m.ID) == id {
			return line
		}
	}
	t.Fatalf("the output ended before an answer to id %s; read %q", id, *seen)
	return ""
}

// finish closes the input and returns every line written, in order.
func (p *peer) finish(t *testing.T, seen []string) []string {
	t.Helper()
	p.in.Close()
	for line := range p.lines {
		seen = append(seen, line)
	}
	<-p.done
	return seen
}

// compare runs script against Run and against the SDK and fails when what
// the client reads differs.
func compare(t *testing.T, script func(t *testing.T, p *peer, g *gate) []string) {
	t.Helper()
	var outs [2][]string
	for i, viaSDK := range []bool{false, true} {
		g := newGate()
		s := fixtureServer()
		s.AddTools(g.tool())
		outs[i] = script(t, serveWith(t, s, viaSDK), g)
	}
	if !slices.Equal(outs[0], outs[1]) {
		t.Errorf("Run and the SDK differ:\nRun: %q\nSDK: %q", outs[0], outs[1])
	}
}

func TestRunAnswersAsTheSDK(t *testing.T) {
	t.Run("a call reusing the id of a call in flight gets no answer", func(t *testing.T) {
		compare(t, func(t *testing.T, p *peer, g *gate) []string {
			var seen []string
			p.send(t, initLines)
			p.waitFor(t, `"init"`, &seen)
			p.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
			<-g.started
			p.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"second"}}}`)
			p.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			p.waitFor(t, `2`, &seen)
			close(g.open)
			p.waitFor(t, `1`, &seen)
			out := p.finish(t, seen)
			if n := strings.Count(strings.Join(out, "\n"), `"id":1,`); n != 1 {
				t.Errorf("%d answers to id 1, want 1: %q", n, out)
			}
			return out
		})
	})

	for _, tt := range []struct{ name, id, cancel string }{
		{"requestId 5.0 cancels call 5", `5`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5.0}}`},
		{"requestId 5e0 cancels call 5", `5`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5e0}}`},
		{"an escaped string requestId cancels its call", `"x5"`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\u00785"}}`},
		{"an escaped method name cancels", `5`, `{"jsonrpc":"2.0","method":"notifications\/cancelled","params":{"requestId":5}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			compare(t, func(t *testing.T, p *peer, g *gate) []string {
				var seen []string
				p.send(t, initLines)
				p.waitFor(t, `"init"`, &seen)
				p.send(t, `{"jsonrpc":"2.0","id":`+tt.id+`,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
				<-g.started
				p.send(t, tt.cancel)
				answer := p.waitFor(t, tt.id, &seen)
				if strings.Contains(answer, "opened") {
					t.Errorf("the call was not cancelled: %s", answer)
				}
				return p.finish(t, seen)
			})
		})
	}

	// Each call is answered before the next is sent: concurrent calls may
	// be answered in any order.
	for _, tt := range []struct {
		name  string
		calls []string // each with its id, in "id line" form
	}{
		{"a progressToken of 1e400 is refused", []string{
			`3 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},"_meta":{"progressToken":1e400}}}`,
		}},
		{"calls whose _meta changes every time are answered alike", []string{
			`3 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}}`,
			`4 {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"},"_meta":{"traceparent":"00-1af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01"}}}`,
		}},
		{"a call whose _meta the SDK refuses is refused, whatever an earlier call with its id got", []string{
			`3 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`3 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"},"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`3 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"c"},"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`,
		}},
		{"a call of the stateless revision without a handshake is answered alike", []string{
			`3 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			compare(t, func(t *testing.T, p *peer, g *gate) []string {
				var seen []string
				if !strings.Contains(tt.calls[0], "2026-07-28") {
					p.send(t, initLines)
					p.waitFor(t, `"init"`, &seen)
				}
				for _, c := range tt.calls {
					id, line, _ := strings.Cut(c, " ")
					p.send(t, line)
					p.waitFor(t, id, &seen)
				}
				return p.finish(t, seen)
			})
		})
	}
}

func TestRunRunsNoToolAfterAFailedWrite(t *testing.T) {
	var calls [2]atomic.Int64
	var errs [2]error
	for i, viaSDK := range []bool{false, true} {
		s := NewServer("count", "1", nil)
		s.AddTools(tool.New("count", "Counts.", tool.Read, func(context.Context, struct{}) (string, error) {
			calls[i].Add(1)
			return "counted", nil
		}))
		lines := initLines + "\n" + strings.Repeat(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"count","arguments":{}}}`+"\n", 20)
		r := strings.NewReader(lines)
		if viaSDK {
			errs[i] = s.SDK().Run(context.Background(), &sdk.IOTransport{Reader: io.NopCloser(r), Writer: nopCloser{failingWriter{}}})
		} else {
			errs[i] = s.run(context.Background(), r, failingWriter{}, time.Hour)
		}
	}
	if errs[0] == nil {
		t.Error("Run = nil, want the write error")
	}
	if calls[0].Load() != calls[1].Load() || calls[0].Load() != 0 {
		t.Errorf("after the write failed, Run ran the tool %d times and the SDK %d; want none", calls[0].Load(), calls[1].Load())
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func TestRunEndsWhenTheCallsRunningAreAnswered(t *testing.T) {
	// Lines the SDK answers nothing to: a request with a null id (a
	// notification to the SDK), a batch's notification, a call reusing an
	// id in flight. Run must not wait for answers that never come: with a
	// drain bound of an hour, Run returns only because it knew.
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"echo","arguments":{"text":"null id"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"two"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"two again"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"last"}}}`,
	}, "\n")
	var out lockedBuffer
	if err := fixtureServer().run(t.Context(), strings.NewReader(input), &out, time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":3,"result"`, "last", `[{"jsonrpc":"2.0","id":1,"result":{}}]`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, out.String())
		}
	}
}

func TestRunToleratesSpaceAfterTheMessage(t *testing.T) {
	p := runStdio(t, t.Context(), fixtureServer())
	p.initialize("2025-11-25")
	for i, tail := range []string{" ", "\t", " \t ", "\r"} {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}%s`, 10+i, tail))
		if r := p.recv(); string(r.ID) != fmt.Sprint(10+i) || r.Error != nil {
			t.Errorf("ping followed by %q: id %s error %+v", tail, r.ID, r.Error)
		}
	}
	for i, tail := range []string{"\u00a0", "\v"} {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}%s`, 20+i, tail))
		if r := p.recv(); r.Error == nil || r.Error.Code != -32700 {
			t.Errorf("ping followed by %q: got id %s error %+v, want a parse error", tail, r.ID, r.Error)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":30,"method":"ping"}`)
	if r := p.recv(); string(r.ID) != "30" || r.Error != nil {
		t.Errorf("the session did not go on: id %s error %+v", r.ID, r.Error)
	}
}
