package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/tool"
)

// rpcResponse is a JSON-RPC response as a client reads it.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// escapingFixture is fixtureServer with a tool whose answers need
// escaping.
func escapingFixture() *Server {
	s := fixtureServer()
	s.AddTools(tool.New("html", "Writes markup.", tool.Read, func(_ context.Context, in struct {
		Tag string `json:"tag"`
	}) (string, error) {
		return "<" + in.Tag + "> & \"quotes\" \u2028 é \x01", nil
	}))
	return s
}

// stdioPeer drives Server.Run through pipes, as a client process would.
type stdioPeer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func runStdio(t *testing.T, ctx context.Context, s *Server) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := s.Run(ctx, inR, outW)
		outW.Close()
		p.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		inR.Close()
		outR.Close()
	})
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("writing %s: %v", line, err)
	}
}

func (p *stdioPeer) recv() rpcResponse {
	p.t.Helper()
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		p.t.Fatalf("reading a response: %v (got %q)", err, line)
	}
	var r rpcResponse
	if err := json.Unmarshal(line, &r); err != nil {
		p.t.Fatalf("response %q: %v", line, err)
	}
	return r
}

func (p *stdioPeer) initialize(version string) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`, version))
	if r := p.recv(); r.Error != nil {
		p.t.Fatalf("initialize: %+v", r.Error)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func TestRunAnswersMalformedLinesAndKeepsServing(t *testing.T) {
	p := runStdio(t, t.Context(), fixtureServer())
	p.initialize("2025-11-25")
	tests := []struct {
		name, line string
		id         string
		code       int
		message    string
	}{
		{"a line that is not JSON is a parse error", `Server ready!`, `null`, -32700, "not valid JSON"},
		{"a cut line is a parse error", `{"jsonrpc":"2.0","id":5,"method":"tools/call"`, `null`, -32700, ""},
		{"trailing text after a message is a parse error", `{"jsonrpc":"2.0","id":5,"method":"ping"} and more`, `null`, -32700, ""},
		{"a wrong version is an invalid request with the id", `{"jsonrpc":"1.0","id":6,"method":"ping"}`, `6`, -32600, `"1.0"`},
		{"a string id is kept", `{"jsonrpc":"1.0","id":"x7","method":"ping"}`, `"x7"`, -32600, ""},
		{"a bare number is an invalid request", `42`, `null`, -32600, ""},
		{"a boolean id is an invalid request", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, `null`, -32600, "ID"},
		{"a response without an id is an invalid request", `{"jsonrpc":"2.0","result":{}}`, `null`, -32600, ""},
		{"a message nested too deep is an invalid request", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`, `9`, -32600, "depth"},
		{"a batch after 2025-06-18 is an invalid request", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, `null`, -32600, "batches"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.t = t
			p.send(tt.line)
			r := p.recv()
			if r.Error == nil || r.Error.Code != tt.code || string(r.ID) != tt.id || !strings.Contains(r.Error.Message, tt.message) {
				t.Errorf("got id %s error %+v, want id %s code %d containing %q", r.ID, r.Error, tt.id, tt.code, tt.message)
			}
			// Serving goes on.
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}`, 100+i))
			if r := p.recv(); r.Error != nil || string(r.ID) != fmt.Sprint(100+i) || !strings.Contains(string(r.Result), "still here") {
				t.Errorf("the next call gave id %s result %s error %+v", r.ID, r.Result, r.Error)
			}
		})
	}
}

func TestRunSkipsBlankLines(t *testing.T) {
	p := runStdio(t, t.Context(), fixtureServer())
	p.initialize("2025-11-25")
	p.send("")
	p.send("   \r")
	p.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if r := p.recv(); string(r.ID) != "9" || r.Error != nil {
		t.Errorf("after blank lines, ping gave id %s error %+v", r.ID, r.Error)
	}
}

func TestRunServesBatchesToOlderRevisions(t *testing.T) {
	p := runStdio(t, t.Context(), fixtureServer())
	p.initialize("2025-03-26")

	p.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}]`)
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var batch []rpcResponse
	if err := json.Unmarshal(line, &batch); err != nil || len(batch) != 2 {
		t.Fatalf("batch response %s: %v", line, err)
	}

	tests := []struct{ name, line, message string }{
		{"an empty batch is an invalid request", `[]`, "empty"},
		{"a batch repeating an id is an invalid request", `[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`, "repeats the id 3"},
		{"a batch holding a bad message is an invalid request", `[{"jsonrpc":"2.0","id":4,"method":"ping"},{"id":5}]`, "not a JSON-RPC message"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.t = t
			p.send(tt.line)
			if r := p.recv(); r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, tt.message) {
				t.Errorf("got %+v, want -32600 containing %q", r.Error, tt.message)
			}
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 50+i))
			if r := p.recv(); string(r.ID) != fmt.Sprint(50+i) || r.Error != nil {
				t.Errorf("the next ping gave id %s error %+v", r.ID, r.Error)
			}
		})
	}
}

func TestRunEnds(t *testing.T) {
	t.Run("Run returns nil when the input ends", func(t *testing.T) {
		p := runStdio(t, t.Context(), fixtureServer())
		p.initialize("2025-11-25")
		p.in.Close()
		if err := <-p.done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	t.Run("Run returns nil when the context ends", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		p := runStdio(t, ctx, fixtureServer())
		p.initialize("2025-11-25")
		cancel()
		if err := <-p.done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	t.Run("Run returns the error of a failed write", func(t *testing.T) {
		in := strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
		r, w := io.Pipe()
		defer w.Close()
		err := fixtureServer().Run(t.Context(), io.MultiReader(in, r), failingWriter{})
		if err == nil {
			t.Error("Run = nil, want the write error")
		}
	})
	t.Run("Run writes nothing but protocol messages", func(t *testing.T) {
		var out bytes.Buffer
		in := strings.NewReader("not json\n")
		if err := fixtureServer().Run(t.Context(), in, &out); err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(out.String()) {
			if !json.Valid([]byte(line)) {
				t.Errorf("Run wrote %q", line)
			}
		}
	})
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout is closed") }

func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 40)
	tests := []struct {
		name  string
		input string
		lines []string // "!" stands for errLineTooLong
	}{
		{"lines come without their newline", "a\nb\n", []string{"a", "b"}},
		{"a last line without newline is whole", "a\nb", []string{"a", "b"}},
		{"CRLF lines lose their CR", "a\r\nb\r\n", []string{"a", "b"}},
		{"spaces and tabs around a line are cut", " a \t\n", []string{"a"}},
		{"NBSP and vertical tab are not JSON's spaces", "a\u00a0\nb\v\n", []string{"a\u00a0", "b\v"}},
		{"blank lines are skipped", "\n  \n\t\na\n", []string{"a"}},
		{"a line longer than the limit is skipped", "a\n" + long + "\nb\n", []string{"a", "!", "b"}},
		{"a long last line is skipped", "a\n" + long, []string{"a", "!"}},
		{"a line filling the buffer several times is whole", strings.Repeat("y", 30) + "\n", []string{strings.Repeat("y", 30)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tt.input), 16)
			var got []string
			for {
				line, err := readLine(br, 32)
				if errors.Is(err, errLineTooLong) {
					got = append(got, "!")
				} else if line != nil {
					got = append(got, string(line))
				}
				if err != nil && !errors.Is(err, errLineTooLong) {
					break
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.lines, "|") {
				t.Errorf("lines = %q, want %q", got, tt.lines)
			}
		})
	}
}

func TestRunAnswersAnOverlongLine(t *testing.T) {
	p := runStdio(t, t.Context(), fixtureServer())
	p.initialize("2025-11-25")
	go func() {
		// Written in pieces, as a big message arrives.
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for range maxLineBytes/len(chunk) + 1 {
			if _, err := p.in.Write(chunk); err != nil {
				return
			}
		}
		p.send("")
		p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	}()
	if r := p.recv(); r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "longer than") {
		t.Errorf("got %+v, want -32600 about the length", r.Error)
	}
	if r := p.recv(); string(r.ID) != "3" || r.Error != nil {
		t.Errorf("the next ping gave id %s error %+v", r.ID, r.Error)
	}
}

func TestRunAnswersCallsStillRunningWhenTheInputEnds(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	s := NewServer("drain", "v1", nil)
	s.AddTools(tool.Tool{Risk: tool.Read, Name: "slow", Func: func(context.Context, json.RawMessage) (string, error) {
		close(started)
		<-release // the input has ended by now; the answer must still go out
		return "finished", nil
	}})
	in := strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`not json`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`,
	}, "\n")) // the last line has no newline, as printf leaves it
	var out lockedBuffer
	done := make(chan error, 1)
	go func() { done <- s.Run(t.Context(), in, &out) }()
	var err error
	select {
	case <-started:
		close(release)
		err = <-done
	case err = <-done: // Run gave up before the call even started
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, `"id":2,"result"`) || !strings.Contains(got, "finished") {
		t.Fatalf("the call running when the input ended was not answered:\n%s", got)
	}
}

// lockedBuffer is a bytes.Buffer safe for the writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// FuzzRunKeepsServing sends Run one arbitrary line and then a ping: the
// line may be answered or not, but the session must go on.
func FuzzRunKeepsServing(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`,
		`{"jsonrpc":"2.0","id":"\u2028","method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","method":"notifications\/cancelled","params":{"requestId":5e0}}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\u00a0",
		`not json`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") {
			return // one line only
		}
		in := strings.NewReader(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
			line + "\n" + `{"jsonrpc":"2.0","id":"last","method":"ping"}` + "\n")
		var out lockedBuffer
		if err := fixtureServer().Run(t.Context(), in, &out); err != nil {
			t.Fatalf("Run: %v", err)
		}
		if !strings.Contains(out.String(), `"id":"last","result":{}`) {
			t.Errorf("after %q the ping was not answered:\n%s", line, out.String())
		}
	})
}
