package mcp

import (
	"context"
	"errors"
	"io"
	"os"
	"time"
)

// ServeStdio serves s over its standard input and output, the way MCP
// clients such as Claude Code start a local server: it is [Server.Run] over
// os.Stdin and os.Stdout. Nothing else may write to stdout while it runs;
// log to stderr.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.Run(ctx, os.Stdin, os.Stdout)
}

// Run serves one MCP session over newline-delimited JSON-RPC: requests come
// from r, one per line, and responses and notifications go to w, one per
// line. Only protocol messages are written to w. Every message is served
// by the SDK's session, through a connection of this package's that reads
// and writes lines.
//
// A line that is not JSON is answered with a JSON-RPC parse error (code
// -32700, id null), a line that is JSON but not a JSON-RPC message with an
// invalid-request error (code -32600), and a line longer than 16 MiB with
// an invalid-request error too; serving continues in every case.
//
// Run returns nil when r ends (the client closed its side) or ctx is done,
// and otherwise the error that ended the session, such as a failed write
// to w. When r ends, the calls still running are given up to 10 seconds to
// answer, so `printf '…' | server` gets every answer, and Run returns as
// soon as they have. A read from r that is blocked when Run returns is
// left to finish on its own; its line is then dropped.
func (s *Server) Run(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.run(ctx, r, w, stdioDrain)
}

// run is Run with the drain bound given.
func (s *Server) run(ctx context.Context, r io.Reader, w io.Writer, drain time.Duration) error {
	c := newStdioConn(ctx, r, w, drain)
	err := s.sdk.Run(ctx, c)
	c.out.close()
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
