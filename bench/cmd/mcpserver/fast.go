package main

import (
	"context"
	"errors"
	"os"

	"github.com/bridle-dev/bridle/bench/internal/addtool"
	"github.com/bridle-dev/bridle/bench/internal/fastpath"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
)

// serveFast is an experiment: Bridle's server behind fastpath.Serve, which
// answers tools/call without the SDK as mcp.Server.Run could do itself.
// Stdio only.
func serveFast(opts fastpath.Options) func(ctx context.Context, addr string) error {
	return func(ctx context.Context, addr string) error {
		if addr != "" {
			return errors.New("the fast-path experiments serve stdio only")
		}
		add := tool.New("add", "adds two numbers", tool.Read,
			func(ctx context.Context, in addtool.Args) (string, error) { return addtool.Sum(in.A, in.B), nil })
		s := mcp.NewServer("bench-bridle", "1", nil)
		s.AddTools(add)
		return fastpath.Serve(ctx, s, "bench-bridle", "1", []tool.Tool{add}, os.Stdin, os.Stdout, opts)
	}
}

// serveConn is an experiment: Bridle's server's SDK server over
// fastpath.LineTransport instead of mcp.Server.Run's pipe and IOTransport.
func serveConn(ctx context.Context, addr string) error {
	if addr != "" {
		return errors.New("the bridle-conn experiment serves stdio only")
	}
	return addtool.Bridle().SDK().Run(ctx, &fastpath.LineTransport{R: os.Stdin, W: os.Stdout})
}
