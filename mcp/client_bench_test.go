package mcp

import (
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkClientCall measures a call of a trivial tool through our client
// (schema check, call, result to text) against the bare SDK client calling
// the same server the same way. The figure to read is the ratio.
func BenchmarkClientCall(b *testing.B) {
	args := json.RawMessage(`{"a":2,"b":40}`)
	b.Run("in-memory/bridle", func(b *testing.B) {
		s, err := ConnectInProcess(b.Context(), "bench", roundTripServer(), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchClientTool(b, s, args)
	})
	b.Run("in-memory/sdk", func(b *testing.B) {
		ct, st := sdk.NewInMemoryTransports()
		ss, err := roundTripServer().SDK().Connect(b.Context(), st, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		benchClientSDK(b, ct, args)
	})
	if runtime.GOOS == "windows" {
		return
	}
	b.Run("stdio/bridle", func(b *testing.B) {
		s, err := ConnectCommand(b.Context(), "bench", helperCommand(b, "bridle"), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchClientTool(b, s, args)
	})
	b.Run("stdio/sdk", func(b *testing.B) {
		c := helperCommand(b, "bridle")
		cmd := exec.Command(c.Path)
		cmd.Env = append(os.Environ(), c.Env...)
		benchClientSDK(b, &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, args)
	})
}

func benchClientTool(b *testing.B, s *Session, args json.RawMessage) {
	add := toolMap(b, s)["add"]
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		out, err := add.Call(ctx, args)
		if err != nil || out != "42" {
			b.Fatalf("add = %q, %v", out, err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

func benchClientSDK(b *testing.B, t sdk.Transport, args json.RawMessage) {
	ctx := b.Context()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, t, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "add", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("add = %v, %v", res, err)
		}
		if text := res.Content[0].(*sdk.TextContent).Text; text != "42" {
			b.Fatalf("add = %q", text)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
