// Package fastpath holds a prototype of a change proposed for Bridle's
// mcp package, so that the benchmarks can measure it before it is made:
// a transport that hands the SDK decoded messages (LineTransport). The
// stdio front that answered tools/call without the SDK, once here, is now
// mcp.Server.Run's own.
package fastpath

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// LineTransport is an sdk.Transport over newline-delimited JSON-RPC that
// decodes each line once, with encoding/json, and hands the message to the
// SDK directly: no io.Pipe, no second decode by the SDK's IOTransport, no
// 32 KiB decoder buffer per message. It is what mcp.Server.Run could give
// the SDK instead of an IOTransport over a pipe, with its line filter
// working on the decoded message.
type LineTransport struct {
	R io.Reader
	W io.Writer
}

// Connect implements sdk.Transport.
func (t *LineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{in: make(chan jsonrpc.Message), done: make(chan struct{}), w: t.W}
	go c.read(t.R)
	return c, nil
}

type lineConn struct {
	in   chan jsonrpc.Message
	done chan struct{}
	once sync.Once
	err  error // why reading ended, set before in is closed

	mu sync.Mutex
	w  io.Writer
}

// wire is one JSON-RPC message, as encoding/json decodes it.
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

func decode(line []byte) (jsonrpc.Message, error) {
	var m wire
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, err
	}
	if m.JSONRPC != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q", m.JSONRPC)
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return nil, err
	}
	if m.Method != nil {
		return &jsonrpc.Request{ID: id, Method: *m.Method, Params: m.Params}, nil
	}
	resp := &jsonrpc.Response{ID: id, Result: m.Result}
	if m.Error != nil {
		resp.Error = m.Error
	}
	return resp, nil
}

func (c *lineConn) read(r io.Reader) {
	defer close(c.in)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 1 {
			msg, derr := decode(line)
			if derr != nil {
				c.err = derr
				return
			}
			select {
			case c.in <- msg:
			case <-c.done:
				return
			}
		}
		if err != nil {
			c.err = err
			return
		}
	}
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
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

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.w.Write(append(data, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
