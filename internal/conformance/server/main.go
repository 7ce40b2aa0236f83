// Command server is the MCP server the official conformance suite tests in
// server mode. It is built on package mcp: the fixtures that are plain tools
// and text resources go through its API, and what it does not model
// (prompts, completion, subscriptions, sampling, elicitation, logging,
// progress, non-text content) goes through the Server.SDK escape hatch. It
// serves Streamable HTTP on 127.0.0.1 and prints its URL on stdout:
//
//	server -port 3001
//	listening on http://127.0.0.1:3001/mcp
//
// The fixture names and their behaviour follow the SDK's own conformance
// server (conformance/everything-server in github.com/modelcontextprotocol/go-sdk).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/bridle-dev/bridle/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 0, "TCP port to listen on, on 127.0.0.1 (0 picks a free one)")
	stateless := fs.Bool("stateless", false, "serve stateless Streamable HTTP (no sessions)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}

	s := newServer()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		return err
	}
	go updateWatched(ctx, s.SDK())
	fmt.Fprintf(stdout, "listening on http://%s/mcp\n", ln.Addr())
	return s.Serve(ctx, ln, &mcp.HTTPOptions{Stateless: *stateless, ShutdownTimeout: time.Second})
}

// newServer registers every fixture the conformance scenarios call.
func newServer() *mcp.Server {
	s := mcp.NewServer("mcp-conformance-test-server", "1.0.0", &mcp.ServerOptions{
		SDKOptions: &sdk.ServerOptions{
			CompletionHandler: complete,
			SubscribeHandler: func(context.Context, *sdk.SubscribeRequest) error {
				return nil // the SDK keeps track of subscriptions
			},
			UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error {
				return nil
			},
		},
	})
	addTools(s)
	addResources(s)
	addPrompts(s.SDK())
	return s
}

// complete acknowledges completion requests with no suggestions.
func complete(context.Context, *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
	return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: []string{}}}, nil
}
