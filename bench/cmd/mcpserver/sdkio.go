package main

import (
	"context"
	"errors"

	"github.com/bridle-dev/bridle/bench/internal/addtool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveSDKIO is Bridle's server's SDK server on the SDK's own stdio
// transport instead of the connection mcp.Server.Run gives it: what that
// connection changes.
func serveSDKIO(ctx context.Context, addr string) error {
	if addr != "" {
		return errors.New("the bridle-sdkio experiment serves stdio only")
	}
	return addtool.Bridle().SDK().Run(ctx, &sdk.StdioTransport{})
}
