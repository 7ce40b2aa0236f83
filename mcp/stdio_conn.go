package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioDrain is how long Run waits, once its input ends, for the calls
// still running to answer before the session cancels them.
const stdioDrain = 10 * time.Second

// stdioConn is the connection [Server.Run] gives the SDK server, through
// the SDK's Transport and Connection seams: the session, its middleware,
// cancellation and request ids stay in the SDK's hands. It reads one line
// at a time, decodes it once with the SDK's decoder and hands the message
// over, and writes what the SDK sends with the SDK's encoder.
//
// It differs from the SDK's own IOTransport in what a client can make
// happen: a line that is not a message, or a batch the session cannot
// take, is answered with a JSON-RPC error and serving goes on (the
// IOTransport ends the session), and when the input ends the calls
// running are answered before the session ends (the IOTransport cancels
// them).
type stdioConn struct {
	ctx      context.Context // Run's
	drainFor time.Duration   // stdioDrain but in tests
	in       chan jsonrpc.Message
	err      error // why reading ended; set before in is closed
	done     chan struct{}
	once     sync.Once
	out      *lineWriter

	mu      sync.Mutex
	running map[jsonrpc.ID]bool   // calls handed to the SDK, not yet answered
	idle    chan struct{}         // closed when running empties
	batches map[jsonrpc.ID]*batch // the batch each batched call belongs to
}

// batch collects the answers to the calls of one batch line, to be
// written as one line when the last arrives.
type batch struct {
	open      int
	responses []json.RawMessage
	index     map[jsonrpc.ID]int
}

func newStdioConn(ctx context.Context, r io.Reader, w io.Writer, drain time.Duration) *stdioConn {
	c := &stdioConn{
		ctx:      ctx,
		drainFor: drain,
		in:       make(chan jsonrpc.Message),
		done:     make(chan struct{}),
		out:      &lineWriter{w: w},
		running:  make(map[jsonrpc.ID]bool),
		batches:  make(map[jsonrpc.ID]*batch),
	}
	go c.read(bufio.NewReaderSize(r, 64<<10))
	return c
}

// Connect implements [sdk.Transport].
func (c *stdioConn) Connect(context.Context) (sdk.Connection, error) { return c, nil }

// read hands the SDK each message of r, answering the lines that are not
// messages itself, until r ends or the session closes.
func (c *stdioConn) read(br *bufio.Reader) {
	var f lineFilter
	for {
		line, err := readLine(br, maxLineBytes)
		var reply []byte
		if errors.Is(err, errLineTooLong) {
			reply = errorLine(nil, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("invalid request: the message is longer than %d bytes; send it in smaller parts", maxLineBytes))
			err = nil
		}
		if line != nil {
			var msgs []jsonrpc.Message
			var batched bool
			msgs, batched, reply = f.decode(line, c.isRunning)
			if reply == nil && !c.handOver(msgs, batched) {
				return
			}
		}
		if reply != nil {
			if werr := c.out.write(reply); werr != nil {
				c.stop(werr)
				return
			}
		}
		if err != nil {
			c.drain()
			c.stop(err)
			return
		}
	}
}

// handOver gives msgs, one line's messages, to the SDK. It reports false
// when the session closed first.
func (c *stdioConn) handOver(msgs []jsonrpc.Message, batched bool) bool {
	var b *batch
	if batched {
		b = &batch{index: make(map[jsonrpc.ID]int)}
	}
	c.mu.Lock()
	for _, msg := range msgs {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if c.running[req.ID] {
				// The SDK drops a call whose id is in use: it gets no answer.
				continue
			}
			c.running[req.ID] = true
			if b != nil {
				b.index[req.ID] = len(b.responses)
				b.responses = append(b.responses, nil)
				b.open++
				c.batches[req.ID] = b
			}
		}
	}
	c.mu.Unlock()
	for _, msg := range msgs {
		select {
		case c.in <- msg:
		case <-c.done:
			return false
		}
	}
	return true
}

func (c *stdioConn) isRunning(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.running[id]
}

// drain waits, once the input ended, until the calls running are
// answered, the session closes, Run's context ends or drainFor passes.
func (c *stdioConn) drain() {
	c.mu.Lock()
	if len(c.running) == 0 {
		c.mu.Unlock()
		return
	}
	c.idle = make(chan struct{})
	idle := c.idle
	c.mu.Unlock()
	timer := time.NewTimer(c.drainFor)
	defer timer.Stop()
	select {
	case <-idle:
	case <-c.done:
	case <-c.ctx.Done():
	case <-timer.C:
	}
}

// stop ends reading with err, which Read then returns.
func (c *stdioConn) stop(err error) {
	c.err = err
	close(c.in)
}

// answered records that the call id was answered.
func (c *stdioConn) answered(id jsonrpc.ID) {
	delete(c.running, id)
	if len(c.running) == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// Read implements [sdk.Connection].
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg, ok := <-c.in:
		if !ok {
			return nil, c.err
		}
		return msg, nil
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements [sdk.Connection]. The answers to the calls of a batch
// are written together, as one line, once the last is known.
func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcp: encoding a message for the client: %w", err)
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		// Recorded before the write, as the SDK frees the id: a client may
		// send its next call with the same id as soon as it reads this.
		c.mu.Lock()
		c.answered(resp.ID)
		b := c.batches[resp.ID]
		rest := 0
		if b != nil {
			delete(c.batches, resp.ID)
			b.responses[b.index[resp.ID]] = data
			b.open--
			rest = b.open
		}
		c.mu.Unlock()
		if b != nil {
			if rest > 0 {
				return nil
			}
			if data, err = json.Marshal(b.responses); err != nil {
				return fmt.Errorf("mcp: encoding a batch for the client: %w", err)
			}
		}
	}
	return c.out.write(append(data, '\n'))
}

// Close implements [sdk.Connection]. The caller's reader and writer are
// not ours to close.
func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// SessionID implements [sdk.Connection]: stdio has no session id.
func (c *stdioConn) SessionID() string { return "" }

// lineWriter serialises whole-line writes and refuses them once Run
// returned or a write failed.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

var errRunEnded = errors.New("mcp: Run has returned")

func (lw *lineWriter) write(p []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(p); err != nil {
		lw.err = fmt.Errorf("mcp: writing to the client: %w", err)
	}
	return lw.err
}

func (lw *lineWriter) close() {
	lw.mu.Lock()
	if lw.err == nil {
		lw.err = errRunEnded
	}
	lw.mu.Unlock()
}
