package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/internal/peers"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBothErasOnOneRunningServer has a client of the stateless revision
// (the go-sdk at 2026-07-28) and a client that speaks only initialize (the
// TypeScript SDK) call tools on the same running notes-mcp, at the same
// URL.
func TestBothErasOnOneRunningServer(t *testing.T) {
	node := peers.Node(t)
	sdkDir := peers.Path(t, "@modelcontextprotocol/sdk/dist/esm")
	url := startHTTP(t, t.TempDir(), "")

	c := sdk.NewClient(&sdk.Implementation{Name: "go-client", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url}, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("the go-sdk client at 2026-07-28: %v", err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Errorf("the go-sdk client negotiated %q, want 2026-07-28", got)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "add_note", Arguments: map[string]any{"title": "Eras", "body": "written statelessly"}})
	if err != nil || res.IsError {
		t.Fatalf("add_note at 2026-07-28: %v %+v", err, res)
	}

	script := filepath.Join(t.TempDir(), "client.mjs")
	code := fmt.Sprintf(`
import { Client } from %q;
import { StreamableHTTPClientTransport } from %q;
const transport = new StreamableHTTPClientTransport(new URL(%q));
const client = new Client({ name: "ts-client", version: "1.0.0" });
await client.connect(transport);
const res = await client.callTool({ name: "read_note", arguments: { title: "Eras" } });
console.log(JSON.stringify({ session: transport.sessionId ?? "", version: transport.protocolVersion ?? "", res }));
await transport.terminateSession();
await client.close();
`, filepath.Join(sdkDir, "client/index.js"), filepath.Join(sdkDir, "client/streamableHttp.js"), url)
	if err := os.WriteFile(script, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client failed: %v\n%s", err, stderr.String())
	}
	got := string(out)
	for _, want := range []string{`"version":"2025-11-25"`, `"text":"written statelessly"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the TypeScript client printed %s, want %s", got, want)
		}
	}
	if strings.Contains(got, `"session":""`) {
		t.Errorf("the TypeScript client got no session: %s", got)
	}
}
