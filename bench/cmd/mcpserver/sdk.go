package main

import (
	"context"
	"net/http"

	"github.com/bridle-dev/bridle/bench/internal/addtool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func serveSDK(ctx context.Context, addr string) error {
	s := addtool.SDK()
	if addr == "" {
		return s.Run(ctx, &sdk.StdioTransport{})
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	return serveHTTP(ctx, addr, h)
}
