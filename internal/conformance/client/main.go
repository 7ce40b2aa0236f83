// Command client is the MCP client that the conformance suite drives in
// client mode. It is built on package mcp's client only: the suite starts
// it with a scenario server's URL as its argument, the scenario's name in
// MCP_CONFORMANCE_SCENARIO and, for some, a JSON object of settings in
// MCP_CONFORMANCE_CONTEXT, and checks what it sends.
//
//	node conformance.js client --command ./client --scenario tools_call
//
// Scenarios: initialize (connect, list tools), tools_call (call
// add_numbers with a=5, b=3), sse-retry (call test_reconnection while the
// server drops the stream), elicitation-sep1034-client-defaults (accept the
// server's form with nothing filled in, so the schema's defaults are sent)
// and every auth/ scenario of the authorization code flow (log in through
// the OAuth flow, list the tools, call test-tool). The scenario's
// authorization server answers the login at once, so "opening the browser"
// here is a GET that follows its redirect to the client's loopback
// listener. It exits 1 on any failure, with the error on stderr.
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

	"github.com/bridle-dev/bridle/internal/oauthtest"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Getenv("MCP_CONFORMANCE_CONTEXT"), os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "conformance client:", err)
		os.Exit(1)
	}
}

// scenario says how to connect and what to do once the tools are listed.
type scenario struct {
	// oauth logs in when the server asks.
	oauth bool
	// elicit answers the server's questions.
	elicit mcp.Elicitor
	steps  func(ctx context.Context, tools []tool.Tool, log io.Writer) error
}

// authScenarios are the suite's scenarios of the authorization code flow.
var authScenarios = []string{
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
	"auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch",
	"auth/offline-access-scope", "auth/offline-access-not-supported",
}

// scenarios maps each supported scenario to what the client does.
func scenarios() map[string]scenario {
	m := map[string]scenario{
		"initialize": {steps: func(context.Context, []tool.Tool, io.Writer) error { return nil }},
		"tools_call": {steps: call("add_numbers", `{"a":5,"b":3}`)},
		"sse-retry":  {steps: call("test_reconnection", `{}`)},
		"elicitation-sep1034-client-defaults": {
			elicit: func(context.Context, *mcp.ElicitRequest) (mcp.ElicitResult, error) {
				return mcp.ElicitResult{Action: mcp.ElicitAccept}, nil
			},
			steps: call("test_client_elicitation_defaults", `{}`),
		},
	}
	for _, name := range authScenarios {
		m[name] = scenario{oauth: true, steps: call("test-tool", `{}`)}
	}
	return m
}

// call returns steps that call one tool and expect it to succeed.
func call(name, args string) func(context.Context, []tool.Tool, io.Writer) error {
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

// settings are the scenario's MCP_CONFORMANCE_CONTEXT.
type settings struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

func run(ctx context.Context, args []string, name, config string, stderr io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: client <server-url> (with MCP_CONFORMANCE_SCENARIO set)")
	}
	all := scenarios()
	sc, ok := all[name]
	if !ok {
		known := make([]string, 0, len(all))
		for k := range all {
			known = append(known, k)
		}
		sort.Strings(known)
		return fmt.Errorf("scenario %q is not supported; MCP_CONFORMANCE_SCENARIO must be one of %s", name, strings.Join(known, ", "))
	}
	var set settings
	if config != "" {
		if err := json.Unmarshal([]byte(config), &set); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT is not a JSON object: %v", err)
		}
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h := mcp.HTTP{URL: args[0]}
	if sc.oauth {
		h.OAuth = &mcp.OAuth{
			Open:              oauthtest.Browse,
			ClientName:        "bridle conformance client",
			ClientID:          set.ClientID,
			ClientSecret:      set.ClientSecret,
			ClientMetadataURL: "https://conformance-test.local/client-metadata.json",
		}
	}
	s, err := mcp.ConnectHTTP(ctx, "conformance", h, &mcp.ClientOptions{Logger: logger, Elicit: sc.elicit})
	if err != nil {
		return err
	}
	tools, err := s.Tools(ctx)
	if err == nil {
		err = sc.steps(ctx, tools, stderr)
	}
	return errors.Join(err, s.Close())
}
