package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// errLocalClosed is returned by [Server.Handle] when its session ended,
// which happens only if the SDK closed it.
var errLocalClosed = errors.New("mcp: the in-process session of Handle is closed")

// Handle answers one JSON-RPC message in the same process, with no
// transport: line is a request (or a notification) and the result is the
// response, without a trailing newline. A notification gives nil. It is
// meant for tests that check a server message by message.
//
// The session is initialized for the caller on first use; an "initialize"
// request is answered with that session's initialize result, and
// "notifications/initialized" is ignored. Messages the server sends on its
// own (notifications, requests to the client) are dropped or refused. Calls
// may run concurrently and may reuse each other's ids.
//
// A line that is not a JSON-RPC message is answered as [Server.Run] answers
// it (a parse error or an invalid request). Handle returns an error only
// when ctx ends first (the request is then cancelled) or the session is
// closed.
func (s *Server) Handle(ctx context.Context, line []byte) ([]byte, error) {
	msg, reply := decodeLine(line)
	if reply != nil {
		return reply[:len(reply)-1], nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil, nil // a response: no request of the server is waiting for one
	}
	c, err := s.local.conn(ctx, s.sdk)
	if err != nil {
		return nil, err
	}
	switch {
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

// local is the session behind Handle: a connection of ours, served by the
// SDK server like any transport, and initialized once.
type local struct {
	mu    sync.Mutex
	ready atomic.Pointer[localConn]
}

// conn returns the initialized connection, starting it on first use.
func (l *local) conn(ctx context.Context, srv *sdk.Server) (*localConn, error) {
	if c := l.ready.Load(); c != nil {
		return c, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.ready.Load(); c != nil {
		return c, nil
	}
	c := &localConn{
		in:      make(chan jsonrpc.Message),
		done:    make(chan struct{}),
		pending: make(map[int64]chan *jsonrpc.Response),
	}
	if _, err := srv.Connect(context.Background(), c, nil); err != nil {
		return nil, fmt.Errorf("mcp: starting the in-process session: %w", err)
	}
	if err := c.initialize(ctx); err != nil {
		c.Close()
		return nil, err
	}
	l.ready.Store(c)
	return c, nil
}

// localConn is both the transport and the connection the SDK server reads
// requests from and writes responses to. Requests get ids of our own so
// that concurrent callers never collide.
type localConn struct {
	in   chan jsonrpc.Message // to the server
	done chan struct{}        // closed by Close
	once sync.Once

	mu      sync.Mutex
	next    int64
	pending map[int64]chan *jsonrpc.Response

	initResult json.RawMessage
}

// statelessRevision is the first protocol revision without an initialize
// handshake.
const statelessRevision = "2026-07-28"

// initialize runs the handshake a client would.
func (c *localConn) initialize(ctx context.Context) error {
	version := ""
	for _, v := range sdk.SupportedProtocolVersions() {
		if v < statelessRevision && v > version {
			version = v
		}
	}
	params, err := json.Marshal(&sdk.InitializeParams{
		ProtocolVersion: version,
		ClientInfo:      &sdk.Implementation{Name: "in-process"},
		Capabilities:    &sdk.ClientCapabilities{},
	})
	if err != nil {
		return err
	}
	resp, err := c.call(ctx, &jsonrpc.Request{Method: "initialize", Params: params})
	if err != nil {
		return fmt.Errorf("mcp: initializing the in-process session: %w", err)
	}
	if resp.Error != nil {
		return fmt.Errorf("mcp: initializing the in-process session: %w", resp.Error)
	}
	c.initResult = resp.Result
	return c.send(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage("{}")})
}

// call sends req under an id of ours and waits for the response.
func (c *localConn) call(ctx context.Context, req *jsonrpc.Request) (*jsonrpc.Response, error) {
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
		return nil, errLocalClosed
	case <-ctx.Done():
		c.forget(n)
		c.cancel(n, ctx.Err())
		return nil, ctx.Err()
	}
}

func (c *localConn) forget(n int64) {
	c.mu.Lock()
	delete(c.pending, n)
	c.mu.Unlock()
}

// cancel tells the server to stop working on request n, without waiting.
func (c *localConn) cancel(n int64, why error) {
	params, err := json.Marshal(&sdk.CancelledParams{RequestID: n, Reason: why.Error()})
	if err != nil {
		return
	}
	go c.send(context.Background(), &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
}

// send hands msg to the server.
func (c *localConn) send(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case c.in <- msg:
		return nil
	case <-c.done:
		return errLocalClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Connect implements [sdk.Transport].
func (c *localConn) Connect(context.Context) (sdk.Connection, error) { return c, nil }

// Read implements [sdk.Connection].
func (c *localConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.in:
		return msg, nil
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements [sdk.Connection]: responses go to their callers;
// notifications are dropped; requests to the client are answered here,
// since no client is there to answer them.
func (c *localConn) Write(_ context.Context, msg jsonrpc.Message) error {
	switch msg := msg.(type) {
	case *jsonrpc.Response:
		n, ok := msg.ID.Raw().(int64)
		if !ok {
			return nil
		}
		c.mu.Lock()
		ch := c.pending[n]
		delete(c.pending, n)
		c.mu.Unlock()
		if ch != nil {
			ch <- msg
		}
	case *jsonrpc.Request:
		if msg.IsCall() {
			reply := &jsonrpc.Response{ID: msg.ID}
			if msg.Method == "ping" {
				reply.Result = json.RawMessage("{}")
			} else {
				reply.Error = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("%s is not supported by an in-process session", msg.Method)}
			}
			go c.send(context.Background(), reply)
		}
	}
	return nil
}

// Close implements [sdk.Connection].
func (c *localConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// SessionID implements [sdk.Connection].
func (c *localConn) SessionID() string { return "" }
