// Package mcptest answers JSON-RPC messages to an [mcp.Server] one at a
// time, in the same process, for tests that check a server message by
// message, as net/http/httptest does for HTTP handlers.
//
//	c, err := mcptest.Connect(ctx, server)
//	if err != nil { ... }
//	defer c.Close()
//	reply, err := c.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
//
// The server is reached through the SDK's in-memory transports: what a
// test sees is what a client of the server's session sees.
package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrClosed is returned by [Conn.Handle] once the connection is closed.
var ErrClosed = errors.New("mcptest: the connection is closed")

// Conn is an initialized session with a server, driven one JSON-RPC
// message at a time. It is safe for concurrent use; concurrent calls may
// reuse each other's ids.
type Conn struct {
	conn       sdk.Connection // the client's side of the in-memory pair
	session    *sdk.ServerSession
	initResult json.RawMessage
	done       chan struct{}
	closeOnce  sync.Once

	mu      sync.Mutex
	next    int64
	pending map[int64]chan *jsonrpc.Response
}

// statelessRevision is the first protocol revision without an initialize
// handshake; Connect initializes at the newest revision before it.
const statelessRevision = "2026-07-28"

// Connect connects to s over the SDK's in-memory transports and runs the
// handshake a client would, at the newest revision that has one.
func Connect(ctx context.Context, s *mcp.Server) (*Conn, error) {
	serverT, clientT := sdk.NewInMemoryTransports()
	session, err := s.SDK().Connect(ctx, serverT, nil)
	if err != nil {
		return nil, fmt.Errorf("mcptest: connecting to the server: %w", err)
	}
	conn, err := clientT.Connect(ctx)
	if err != nil {
		session.Close()
		return nil, fmt.Errorf("mcptest: connecting to the server: %w", err)
	}
	c := &Conn{
		conn:    conn,
		session: session,
		done:    make(chan struct{}),
		pending: make(map[int64]chan *jsonrpc.Response),
	}
	go c.read()
	if err := c.initialize(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Handle sends line, one JSON-RPC request or notification, and returns the
// response without a trailing newline; a notification gives nil. A line
// that is not a JSON-RPC message is answered as a stdio server answers it:
// a parse error (-32700, id null) or an invalid request (-32600, with the
// message's id when it is a number or a string).
//
// An "initialize" request is answered with the session's initialize
// result, and "notifications/initialized" is ignored: Connect has done the
// handshake. Messages the server sends on its own are dropped, and its
// requests to the client are answered (ping) or refused. Handle returns an
// error only when ctx ends first (the call is then cancelled, as a client
// cancels it) or the connection is closed.
func (c *Conn) Handle(ctx context.Context, line []byte) ([]byte, error) {
	if !json.Valid(line) { // the SDK's decoder would ignore text after a message
		return errorReply(nil, jsonrpc.CodeParseError, "parse error: the message is not valid JSON"), nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return errorReply(line, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error()), nil
	}
	req, ok := msg.(*jsonrpc.Request)
	switch {
	case !ok:
		return nil, nil // a response: no request of the server is waiting for one
	case !req.IsCall():
		if req.Method == "notifications/initialized" {
			return nil, nil
		}
		return nil, c.send(ctx, req)
	case req.Method == "initialize":
		return jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: c.initResult})
	}
	callerID := req.ID
	resp, err := c.call(ctx, req)
	if err != nil {
		return nil, err
	}
	resp.ID = callerID
	return jsonrpc.EncodeMessage(resp)
}

// Close ends the session. It is safe to call more than once.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		c.conn.Close()
		c.session.Close()
	})
	return nil
}

// initialize runs the handshake.
func (c *Conn) initialize(ctx context.Context) error {
	version := ""
	for _, v := range sdk.SupportedProtocolVersions() {
		if v < statelessRevision && v > version {
			version = v
		}
	}
	params, err := json.Marshal(&sdk.InitializeParams{
		ProtocolVersion: version,
		ClientInfo:      &sdk.Implementation{Name: "mcptest"},
		Capabilities:    &sdk.ClientCapabilities{},
	})
	if err != nil {
		return err
	}
	resp, err := c.call(ctx, &jsonrpc.Request{Method: "initialize", Params: params})
	if err != nil {
		return fmt.Errorf("mcptest: initializing: %w", err)
	}
	if resp.Error != nil {
		return fmt.Errorf("mcptest: initializing: %w", resp.Error)
	}
	c.initResult = resp.Result
	return c.send(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage("{}")})
}

// call sends req under an id of ours, so that callers never collide, and
// waits for the response.
func (c *Conn) call(ctx context.Context, req *jsonrpc.Request) (*jsonrpc.Response, error) {
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	c.next++
	n := c.next
	c.pending[n] = ch
	c.mu.Unlock()
	id, err := jsonrpc.MakeID(float64(n))
	if err != nil {
		return nil, err
	}
	req.ID = id
	if err := c.send(ctx, req); err != nil {
		c.forget(n)
		return nil, err
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-c.done:
		c.forget(n)
		return nil, ErrClosed
	case <-ctx.Done():
		c.forget(n)
		c.cancel(n, ctx.Err())
		return nil, ctx.Err()
	}
}

func (c *Conn) forget(n int64) {
	c.mu.Lock()
	delete(c.pending, n)
	c.mu.Unlock()
}

// cancel tells the server to stop working on request n.
func (c *Conn) cancel(n int64, why error) {
	params, err := json.Marshal(&sdk.CancelledParams{RequestID: n, Reason: why.Error()})
	if err != nil {
		return
	}
	c.send(context.Background(), &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
}

// send writes msg to the server.
func (c *Conn) send(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	if err := c.conn.Write(ctx, msg); err != nil {
		select {
		case <-c.done:
			return ErrClosed
		default:
		}
		return fmt.Errorf("mcptest: sending to the server: %w", err)
	}
	return nil
}

// read delivers responses to their callers and answers the server's
// requests, until the connection closes.
func (c *Conn) read() {
	for {
		msg, err := c.conn.Read(context.Background())
		if err != nil {
			c.Close()
			return
		}
		switch msg := msg.(type) {
		case *jsonrpc.Response:
			n, ok := msg.ID.Raw().(int64)
			if !ok {
				continue
			}
			c.mu.Lock()
			ch := c.pending[n]
			delete(c.pending, n)
			c.mu.Unlock()
			if ch != nil {
				ch <- msg
			}
		case *jsonrpc.Request:
			if !msg.IsCall() {
				continue // a notification: dropped
			}
			reply := &jsonrpc.Response{ID: msg.ID}
			if msg.Method == "ping" {
				reply.Result = json.RawMessage("{}")
			} else {
				reply.Error = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("%s is not supported by an mcptest connection", msg.Method)}
			}
			go c.send(context.Background(), reply)
		}
	}
}

// errorReply is a JSON-RPC error response to line, with line's id when it
// has a usable one and null otherwise (the SDK's encoder would leave a
// null id out).
func errorReply(line []byte, code int64, message string) []byte {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	id := json.RawMessage("null")
	if json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 && (probe.ID[0] == '"' || probe.ID[0] == '-' || probe.ID[0] >= '0' && probe.ID[0] <= '9') {
		id = probe.ID
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: code, Message: message}})
	return b
}
