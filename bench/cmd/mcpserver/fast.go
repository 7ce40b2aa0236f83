package main

import (
	"context"
	"errors"
	"os"

	"github.com/bridle-dev/bridle/bench/internal/addtool"
	"github.com/bridle-dev/bridle/bench/internal/fastpath"
)

// serveBridleSDK is Bridle's server with every message going through the
// SDK, as calling SDK() makes it: how Bridle served stdio before Run
// answered tool calls itself.
func serveBridleSDK(ctx context.Context, addr string) error {
	s := addtool.Bridle()
	s.SDK()
	if addr != "" {
		return serveHTTP(ctx, addr, s.HTTPHandler(nil))
	}
	return s.ServeStdio(ctx)
}

// serveConn is an experiment: Bridle's server's SDK server over
// fastpath.LineTransport instead of mcp.Server.Run's pipe and IOTransport.
func serveConn(ctx context.Context, addr string) error {
	if addr != "" {
		return errors.New("the bridle-conn experiment serves stdio only")
	}
	return addtool.Bridle().SDK().Run(ctx, &fastpath.LineTransport{R: os.Stdin, W: os.Stdout})
}
