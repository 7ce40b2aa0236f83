package mcp

import (
	"context"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ConnectInProcess connects to s, a server in this process, through an
// in-memory pipe: the full protocol, with no process and no port. It is how
// a program uses its own server's tools as a client would, and how tests
// check a server end to end. Closing the session ends the server's side of
// the connection, not the server.
func ConnectInProcess(ctx context.Context, name string, s *Server, opts *ClientOptions) (*Session, error) {
	o, err := settle(name, opts)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("mcp server %q: server is nil: pass one made with NewServer", name)
	}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: connecting: %w", name, err)
	}
	session, err := connect(ctx, name, ct, o)
	if err != nil {
		ss.Close()
		return nil, fmt.Errorf("mcp server %q: connecting: %w", name, err)
	}
	session.onClose = func() error {
		// The server side ends when the pipe closes. Waiting for it keeps
		// Close from returning while the server still holds the session,
		// but a tool that ignores cancellation must not hold Close too.
		done := make(chan struct{})
		go func() {
			_ = ss.Wait()
			close(done)
		}()
		t := time.NewTimer(o.CloseTimeout)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		}
		return nil
	}
	return session, nil
}
