package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"time"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
)

// A session hands back a server's tools as tool.Tool values: the same
// shape an agent runs, whatever is behind them.
func ExampleConnectInProcess() {
	type addIn struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	srv := mcp.NewServer("calc", "v1.0.0", &mcp.ServerOptions{Instructions: "Use add for sums."})
	srv.AddTools(tool.New("add", "Adds two numbers.", tool.Read, func(_ context.Context, in addIn) (string, error) {
		return fmt.Sprint(in.A + in.B), nil
	}))

	ctx := context.Background()
	s, err := mcp.ConnectInProcess(ctx, "calc", srv, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	tools, err := s.Tools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		out, err := t.Call(ctx, json.RawMessage(`{"a":2,"b":40}`))
		fmt.Println(t.Name, t.Risk, out, err)
	}
	fmt.Println(s.Instructions())
	// Output:
	// add read 42 <nil>
	// Use add for sums.
}

// A server program on this machine is started, spoken to over its stdin
// and stdout, and stopped by Close.
func ExampleConnectCommand() {
	ctx := context.Background()
	s, err := mcp.ConnectCommand(ctx, "everything", mcp.Command{
		Path: "npx",
		Args: []string{"-y", "@modelcontextprotocol/server-everything"},
	}, &mcp.ClientOptions{CloseTimeout: time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	tools, err := s.Tools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		fmt.Println(t.Name, t.Risk)
	}
}

// A remote server is reached over Streamable HTTP with a bearer token.
func ExampleConnectHTTP() {
	ctx := context.Background()
	s, err := mcp.ConnectHTTP(ctx, "notes", mcp.HTTP{
		URL:   "http://127.0.0.1:8080/mcp",
		Token: "token from the server's operator",
	}, &mcp.ClientOptions{Hints: mcp.HintsTrusted})
	if err != nil {
		log.Fatal(err) // wraps mcp.ErrUnauthorized when the token is refused
	}
	defer s.Close()
	text, err := s.ReadResource(ctx, "notes://index")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(text)
}
