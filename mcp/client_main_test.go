package mcp

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// helperEnv names the server the test binary plays when it is started by a
// test as an MCP server over stdio.
const helperEnv = "BRIDLE_MCP_TEST_SERVER"

// TestMain lets the test binary re-execute itself as one of the servers in
// helperServers (well-behaved or not), so stdio tests need no other program.
func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		run, ok := helperServers[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown helper server %q\n", name)
			os.Exit(2)
		}
		if err := run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helperCommand returns the Command that starts this test binary as the
// named helper server.
func helperCommand(t testing.TB, name string, env ...string) Command {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Command{Path: exe, Env: append([]string{helperEnv + "=" + name}, env...)}
}

// helperServers are the servers the test binary can play. Each runs until
// its stdin closes (unless it misbehaves on purpose).
var helperServers = map[string]func() error{
	// fixture: escapingFixture over stdio with ServeStdio.
	"fixture": func() error { return escapingFixture().ServeStdio(context.Background()) },
	// sdk: a plain server with well-behaved tools, on the SDK alone.
	"sdk": func() error { return serveStdio(faultServer()) },
	// garbage: writes a line that is not JSON before anything else.
	"garbage": func() error {
		fmt.Fprintln(os.Stderr, "starting up")
		fmt.Fprintln(os.Stdout, "Server listening, hello!")
		return serveStdio(faultServer())
	},
	// broken: says something on stderr and exits before the handshake.
	"broken": func() error {
		fmt.Fprintln(os.Stderr, "config file /etc/example.toml not found")
		os.Exit(4)
		return nil
	},
	// stubborn: ignores stdin closing and SIGTERM; only SIGKILL ends it.
	"stubborn": func() error {
		signal.Ignore(syscall.SIGTERM)
		if err := serveStdio(faultServer()); err != nil {
			return err
		}
		sleepForever()
		return nil
	},
	// lingering: ignores stdin closing but exits on SIGTERM, like
	// server-everything.
	"lingering": func() error {
		if err := serveStdio(faultServer()); err != nil {
			return err
		}
		sleepForever()
		return nil
	},
	// chatty: writes 1 MiB on stderr before serving, more than any pipe
	// buffer holds.
	"chatty": func() error {
		line := strings.Repeat("x", 1023) + "\n"
		for range 1024 {
			os.Stderr.WriteString(line)
		}
		os.Stderr.WriteString("chatty done\n")
		return serveStdio(faultServer())
	},
}

func serveStdio(s *sdk.Server) error {
	return s.Run(context.Background(), &sdk.StdioTransport{})
}

// faultServer has tools that misbehave in each way a client must survive.
func faultServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "faults", Version: "v1"}, &sdk.ServerOptions{
		Instructions: "Tools that fail on purpose.",
	})
	empty := map[string]any{"type": "object"}
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	s.AddTool(&sdk.Tool{Name: "ok", InputSchema: empty, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("fine"), nil
		})
	s.AddTool(&sdk.Tool{Name: "env", InputSchema: empty},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			wd, _ := os.Getwd()
			return text(os.Getenv("BRIDLE_TEST_VALUE") + "\n" + wd), nil
		})
	s.AddTool(&sdk.Tool{Name: "environ", InputSchema: empty},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(strings.Join(os.Environ(), "\n")), nil
		})
	s.AddTool(&sdk.Tool{Name: "crash", InputSchema: empty},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "panic: out of cheese")
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "hang", InputSchema: empty},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			sleepForever() // ignores cancellation too, like a stuck server
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "garble", InputSchema: empty},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stdout, "debug: garbling")
			sleepForever()
			return nil, nil
		})
	return s
}

// sleepForever blocks without tripping the runtime's deadlock detector.
func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}
