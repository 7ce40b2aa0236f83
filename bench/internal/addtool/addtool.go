// Package addtool builds the servers the MCP benchmarks compare, each
// serving one trivial tool, add {a, b}, that answers the sum as text.
package addtool

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Args are the tool's arguments.
type Args struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Sum is the tool's answer: a + b as the shortest decimal text.
func Sum(a, b float64) string { return strconv.FormatFloat(a+b, 'g', -1, 64) }

// Bridle is the tool on Bridle's mcp server, built with tool.New.
func Bridle() *mcp.Server {
	s := mcp.NewServer("bench-bridle", "1", nil)
	s.AddTools(tool.New("add", "adds two numbers", tool.Read,
		func(ctx context.Context, in Args) (string, error) { return Sum(in.A, in.B), nil }))
	return s
}

// SDK is the tool on the official Go SDK's server, the idiomatic way:
// sdk.AddTool with a typed handler, which infers the schema and validates
// arguments against it.
func SDK() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "bench-sdk", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "adds two numbers"},
		func(ctx context.Context, _ *sdk.CallToolRequest, in Args) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: Sum(in.A, in.B)}}}, nil, nil
		})
	return s
}

// SDKRaw is the tool on the official Go SDK's server through the
// low-level Server.AddTool: a hand-written schema, arguments decoded by
// the handler, no validation.
func SDKRaw() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "bench-sdk-raw", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)
	s.AddTool(&sdk.Tool{Name: "add", Description: "adds two numbers", InputSchema: schema},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in Args
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: Sum(in.A, in.B)}}}, nil
		})
	return s
}

// MCPGo is the tool on github.com/mark3labs/mcp-go's server.
func MCPGo() *mcpgoserver.MCPServer {
	s := mcpgoserver.NewMCPServer("bench-mcpgo", "1")
	s.AddTool(mcpgo.NewTool("add", mcpgo.WithDescription("adds two numbers"),
		mcpgo.WithNumber("a", mcpgo.Required()), mcpgo.WithNumber("b", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			a, _ := req.RequireFloat("a")
			b, _ := req.RequireFloat("b")
			return mcpgo.NewToolResultText(Sum(a, b)), nil
		})
	return s
}
