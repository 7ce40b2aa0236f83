// Command client is the MCP client that the conformance suite drives in
// client mode. It is built on package mcp's client only: the suite starts
// it with a scenario server's URL as its argument and the scenario's name in
// MCP_CONFORMANCE_SCENARIO, and checks what it sends.
//
//	node conformance.js client --command ./client --scenario tools_call
//
// Scenarios: initialize (connect, list tools), tools_call (call
// add_numbers with a=5, b=3) and sse-retry (call test_reconnection while
// the server drops the stream). It exits 1 on any failure, with the error
// on stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "conformance client:", err)
		os.Exit(1)
	}
}

// scenario is what the client does once connected and the tools are
// listed.
type scenario func(ctx context.Context, tools []tool.Tool, log io.Writer) error

// scenarios maps each supported scenario to its steps.
var scenarios = map[string]scenario{
	"initialize": func(context.Context, []tool.Tool, io.Writer) error { return nil },
	"tools_call": call("add_numbers", `{"a":5,"b":3}`),
	"sse-retry":  call("test_reconnection", `{}`),
}

// call returns a scenario that calls one tool and expects it to succeed.
func call(name, args string) scenario {
	return func(ctx context.Context, tools []tool.Tool, log io.Writer) error {
		i := slices.IndexFunc(tools, func(t tool.Tool) bool { return t.Name == name })
		if i < 0 {
			return fmt.Errorf("the server has no tool %q", name)
		}
		out, err := tools[i].Call(ctx, json.RawMessage(args))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(log, "%s: %s\n", name, out)
		return nil
	}
}

func run(ctx context.Context, args []string, name string, stderr io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: client <server-url> (with MCP_CONFORMANCE_SCENARIO set)")
	}
	steps, ok := scenarios[name]
	if !ok {
		known := make([]string, 0, len(scenarios))
		for k := range scenarios {
			known = append(known, k)
		}
		sort.Strings(known)
		return fmt.Errorf("scenario %q is not supported; MCP_CONFORMANCE_SCENARIO must be one of %s", name, strings.Join(known, ", "))
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := mcp.ConnectHTTP(ctx, "conformance", mcp.HTTP{URL: args[0]}, &mcp.ClientOptions{Logger: logger})
	if err != nil {
		return err
	}
	tools, err := s.Tools(ctx)
	if err == nil {
		err = steps(ctx, tools, stderr)
	}
	return errors.Join(err, s.Close())
}
