package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes is the longest message, in bytes, that [Server.Run] accepts
// on one line; a longer line is answered with an error and skipped.
const MaxLineBytes = sdk.DefaultMaxLineLength

// ServeStdio serves s over its standard input and output, the way MCP
// clients such as Claude Code start a local server: it is [Server.Run] over
// os.Stdin and os.Stdout. Nothing else may write to stdout while it runs;
// log to stderr.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.Run(ctx, os.Stdin, os.Stdout)
}

// Run serves one MCP session over newline-delimited JSON-RPC: requests come
// from r, one per line, and responses and notifications go to w, one per
// line. Only protocol messages are written to w.
//
// A line that is not JSON is answered with a JSON-RPC parse error (code
// -32700, id null), and a line that is JSON but not a JSON-RPC message with
// an invalid-request error (code -32600); serving continues either way.
//
// Run returns nil when r ends (the client closed its side) or ctx is done,
// and otherwise the error that ended the session, such as a failed write
// to w. When r ends, calls still running are given up to [StdioDrain] to
// finish and answer, so `printf '…' | server` gets every answer; then they
// are cancelled. A read from r that is blocked when Run returns is left to
// finish on its own; its line is then dropped.
//
// Run answers calls of the tools added with [Server.AddTools] itself, byte
// for byte as the SDK would answer them but for about a quarter of the
// server's CPU time, once the SDK has answered a call of the same form in
// the session (see bench/README.md in the repository). Such calls do not pass through
// middleware of the SDK server; calling [Server.SDK] turns this off, so
// that everything goes through the SDK.
func (s *Server) Run(ctx context.Context, r io.Reader, w io.Writer) error {
	out := &lineWriter{w: w, answered: make(chan struct{})}
	in := &lineReader{ctx: ctx, br: bufio.NewReaderSize(r, 64<<10), out: out}
	callCtx, cancelCalls := context.WithCancel(ctx)
	defer cancelCalls()
	in.fast = newFastCalls(callCtx, s, out)
	err := s.sdk.Run(ctx, &sdk.IOTransport{Reader: in, Writer: out})
	out.close()
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// StdioDrain is how long [Server.Run] waits, once its input ends, for the
// calls still running to answer before it cancels them.
const StdioDrain = 10 * time.Second

// lineWriter serialises whole-line writes from the SDK (one Write per
// message) and from lineReader, refuses writes once Run returned, and
// counts the responses written so Run can wait for the last ones.
type lineWriter struct {
	mu        sync.Mutex
	w         io.Writer
	closed    bool
	responses int
	answered  chan struct{} // closed and replaced at each response

	// onResponse is told of each response the SDK writes, before it is
	// written: the call's id, and what follows it (`,"result":…}` or
	// `,"error":…}`).
	onResponse func(id, rest []byte)
}

// Who wrote a line, for lineWriter.write.
const (
	bySDK   = iota // a message of the SDK's
	byFast         // the answer to a call Run answered itself
	byReply        // the answer to a line no one received
)

// Write writes a message of the SDK's.
func (lw *lineWriter) Write(p []byte) (int, error) { return lw.write(p, bySDK) }

// fast writes the answer to a call Run answered itself. A failed write
// shows at the SDK's next write, which ends the session.
func (lw *lineWriter) fast(p []byte) { lw.write(p, byFast) }

// reply writes lineReader's answer to a line the SDK never saw; it is not
// counted, as no one received the call.
func (lw *lineWriter) reply(p []byte) error {
	_, err := lw.write(p, byReply)
	return err
}

func (lw *lineWriter) write(p []byte, by int) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.closed {
		return 0, io.ErrClosedPipe
	}
	id, rest, isResponse := responseTo(p)
	if isResponse && by == bySDK && lw.onResponse != nil {
		// Before the client can read it and send the next line.
		lw.onResponse(id, rest)
	}
	n, err := lw.w.Write(p)
	if err == nil && isResponse && by != byReply {
		lw.responses++
		close(lw.answered)
		lw.answered = make(chan struct{})
	}
	return n, err
}

// waitFor waits until n responses were written, ctx is done, or
// StdioDrain passed.
func (lw *lineWriter) waitFor(ctx context.Context, n int) {
	timer := time.NewTimer(StdioDrain)
	defer timer.Stop()
	for {
		lw.mu.Lock()
		done, ch := lw.responses >= n || lw.closed, lw.answered
		lw.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

// responseTo reports whether p, a message as the SDK writes it
// ({"jsonrpc":"2.0","id":…,"result"|"error":…}), answers a call, and
// returns the call's id and what follows it.
func responseTo(p []byte) (id, rest []byte, ok bool) {
	const prefix = `{"jsonrpc":"2.0","id":`
	if !bytes.HasPrefix(p, []byte(prefix)) {
		return nil, nil, false
	}
	end := endOfValue(p, len(prefix))
	id, rest = p[len(prefix):end], p[end:]
	return id, rest, bytes.HasPrefix(rest, []byte(`,"result"`)) || bytes.HasPrefix(rest, []byte(`,"error"`))
}

// Close is called by the SDK when the session ends; the caller's writer
// is not ours to close.
func (lw *lineWriter) Close() error { return nil }

func (lw *lineWriter) close() {
	lw.mu.Lock()
	lw.closed = true
	lw.mu.Unlock()
}

// lineReader hands the SDK the lines it can read and answers every other
// line on out itself: the SDK's stdio transport ends the session at the
// first line that is not a JSON-RPC message. It runs in the SDK's reading
// goroutine, so a line costs no extra copy or goroutine switch.
type lineReader struct {
	ctx     context.Context
	br      *bufio.Reader
	out     *lineWriter
	filter  lineFilter
	fast    *fastCalls
	pending []byte // what is left of the line being handed over
	err     error  // once set, every Read returns it
}

func (lr *lineReader) Read(p []byte) (int, error) {
	for len(lr.pending) == 0 {
		if lr.err != nil {
			return 0, lr.err
		}
		line, err := readLine(lr.br, MaxLineBytes)
		var reply []byte
		switch {
		case errors.Is(err, errLineTooLong):
			reply = errorLine(nil, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("invalid request: the message is longer than %d bytes", MaxLineBytes))
		case err != nil:
			lr.err = err
		}
		if errors.Is(err, io.EOF) && len(line) == 0 {
			lr.out.waitFor(lr.ctx, lr.filter.calls)
		}
		if len(line) > 0 {
			if reply = lr.filter.check(line); reply == nil && !lr.answer() {
				lr.pending = line
			}
			if errors.Is(err, io.EOF) {
				// The last line has no newline: hand it over, and wait
				// for its answer at the next Read.
				lr.err = nil
			}
		}
		if reply != nil {
			if werr := lr.out.reply(reply); werr != nil {
				lr.err = werr
			}
		}
	}
	n := copy(p, lr.pending)
	lr.pending = lr.pending[n:]
	return n, nil
}

// answer answers the line the filter just let through, if it is a call
// Run answers itself (see fastCalls).
func (lr *lineReader) answer() bool {
	return lr.fast != nil && lr.filter.plain && lr.fast.serve(lr.filter.last)
}

// Close is called by the SDK when the session ends; the caller's reader
// is not ours to close.
func (lr *lineReader) Close() error { return nil }

var errLineTooLong = errors.New("line too long")

// readLine returns the next line of br with its newline (one is added to a
// last line that lacks it), or nil and errLineTooLong after skipping a line
// longer than max. Blank lines come back as nil. The line is valid until the
// next call.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var long []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if !tooLong {
				if len(long)+len(chunk) > max {
					tooLong, long = true, nil
				} else {
					long = append(long, chunk...)
				}
			}
			continue
		}
		if tooLong {
			return nil, errLineTooLong // an error of the reader shows on the next call
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return nil, err
		}
		if len(line) > max {
			return nil, errLineTooLong
		}
		if line[len(line)-1] != '\n' {
			line = append(line[:len(line):len(line)], '\n')
		}
		return line, err
	}
}

// lineFilter decides which lines reach the SDK.
type lineFilter struct {
	// calls counts the calls (requests with an id) handed to the SDK.
	calls int
	// noBatches is set once the session negotiated a protocol revision
	// without JSON-RPC batches; the SDK ends the session on a batch then.
	noBatches bool
	// last holds the members of the line check let through last, when
	// plain is set: a single request scanned without decoding.
	last  requestSpans
	plain bool
}

// check returns nil for a line the SDK accepts, or the error line to send
// back instead.
func (f *lineFilter) check(line []byte) []byte {
	trimmed := bytes.TrimSpace(line)
	f.plain = false
	if trimmed[0] != '[' {
		if sp, ok := scanRequest(trimmed); ok { // the common case, with no allocation
			f.last, f.plain = sp, true
			if sp.id != nil {
				f.calls++
			}
			if string(sp.method) == `"initialize"` {
				f.noBatches = !batchesAllowed(sp.params)
			}
			return nil
		}
		msg, reply := decodeLine(trimmed)
		if reply != nil {
			return reply
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			if req.IsCall() {
				f.calls++
			}
			if req.Method == "initialize" {
				f.noBatches = !batchesAllowed(req.Params)
			}
		}
		return nil
	}
	if !json.Valid(trimmed) {
		return parseError()
	}
	if tooDeep(trimmed) {
		return errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the message nests deeper than %d levels", maxDepth))
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(trimmed, &batch); err != nil {
		return invalidRequest(trimmed, err)
	}
	if f.noBatches {
		return errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not part of the negotiated protocol revision; send one message per line")
	}
	if len(batch) == 0 {
		return errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: the batch is empty")
	}
	ids := make(map[jsonrpc.ID]bool, len(batch))
	for _, raw := range batch {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message in the batch is not a JSON-RPC message: "+err.Error())
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if ids[req.ID] {
				return errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the batch repeats the id %v", req.ID.Raw()))
			}
			ids[req.ID] = true
			f.calls++
		}
	}
	return nil
}

// batchesAllowed reports whether the revision an initialize request leads
// to still has JSON-RPC batches (they went away in 2025-06-18). The SDK
// answers a revision it does not know with its newest handshake revision.
func batchesAllowed(params json.RawMessage) bool {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	switch p.ProtocolVersion {
	case "2024-11-05", "2025-03-26":
		return true
	}
	return false
}
