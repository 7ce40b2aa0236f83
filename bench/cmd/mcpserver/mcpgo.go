package main

import (
	"context"

	"github.com/bridle-dev/bridle/bench/internal/addtool"
	"github.com/mark3labs/mcp-go/server"
)

func serveMCPGo(ctx context.Context, addr string) error {
	s := addtool.MCPGo()
	if addr == "" {
		return server.ServeStdio(s)
	}
	return serveHTTP(ctx, addr, server.NewStreamableHTTPServer(s))
}
