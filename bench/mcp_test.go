package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/bench/internal/addtool"
	"github.com/bridle-dev/bridle/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP benchmarks: one trivial tool, add {a, b}, on each server
// implementation, all driven by the same client, the official Go SDK's.
//
//	raw     a hand-written server (encoding/json, one goroutine): the floor
//	bridle  Bridle's mcp package (tool.New, mcp.NewServer, ServeStdio/HTTPHandler)
//	sdk     the official Go SDK's server, tool added with sdk.AddTool
//	mcpgo   github.com/mark3labs/mcp-go's server
//	ts      the official TypeScript SDK's server on Node (ts/server.mjs)
//
// The server runs in a child process over stdio and HTTP, so B/op and
// allocs/op count the client only; srv-µs/call is the CPU time the server
// process spent per call, which waiting for a core does not inflate.
//
// BENCH_MCP_PROTOCOL pins the protocol revision the client asks for
// (default: the SDK's newest, 2026-07-28, which servers that do not know it
// answer with an older one).

// serverBin is the mcpserver program, built once by TestMain.
var serverBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bench")
	if err != nil {
		panic(err)
	}
	serverBin = filepath.Join(dir, "mcpserver")
	if out, err := exec.Command("go", "build", "-o", serverBin, "./cmd/mcpserver").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building mcpserver: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// peersDir is where ../test.sh installs the npm peers; the TypeScript rows
// skip without it.
func peersDir(b *testing.B) string {
	dir := os.Getenv("BRIDLE_PEERS_DIR")
	if dir == "" {
		b.Skip("BRIDLE_PEERS_DIR is not set: run ../test.sh once to install the npm peers, then export BRIDLE_PEERS_DIR=$PWD/../.cache/peers")
	}
	return dir
}

// serverCommand returns the command that serves the add tool for impl:
// a Go implementation of mcpserver, or "ts" for the TypeScript SDK on Node.
func serverCommand(b *testing.B, impl string, httpPort int) *exec.Cmd {
	if impl == "ts" {
		dir := peersDir(b)
		args := []string{"ts/server.mjs"}
		if httpPort != 0 {
			args = append(args, fmt.Sprint(httpPort))
		}
		cmd := exec.Command("node", args...)
		cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
		return cmd
	}
	args := []string{"-impl", impl}
	if httpPort != 0 {
		args = append(args, "-http", fmt.Sprintf("127.0.0.1:%d", httpPort))
	}
	return exec.Command(serverBin, args...)
}

var addArgs = map[string]any{"a": 2, "b": 3}

func callAdd(ctx context.Context, b *testing.B, cs *sdk.ClientSession) {
	callAddMeta(ctx, b, cs, nil)
}

// callAddMeta calls add with meta as the call's _meta.
func callAddMeta(ctx context.Context, b *testing.B, cs *sdk.ClientSession, meta sdk.Meta) {
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Meta: meta, Name: "add", Arguments: addArgs})
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError || res.Content[0].(*sdk.TextContent).Text != "5" {
		b.Fatalf("add(2, 3) gave %+v", res.Content[0])
	}
}

func newClient() *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "bench-client", Version: "1"}, nil)
}

func sessionOptions() *sdk.ClientSessionOptions {
	if v := os.Getenv("BENCH_MCP_PROTOCOL"); v != "" {
		return &sdk.ClientSessionOptions{ProtocolVersion: v}
	}
	return nil
}

// sequentialCalls times calls of add, one after the other, reporting
// calls/s and, when pid is a server process, its CPU time per call.
func sequentialCalls(b *testing.B, cs *sdk.ClientSession, pid int) {
	ctx := context.Background()
	sequential(b, pid, func() { callAdd(ctx, b, cs) })
}

// sequential times call, one after the other, as sequentialCalls does.
func sequential(b *testing.B, pid int, call func()) {
	call() // the first call pays for caches and connections
	b.ReportAllocs()
	var cpu *serverCPU
	if pid != 0 {
		cpu = startServerCPU(pid)
	}
	b.ResetTimer()
	for b.Loop() {
		call()
	}
	b.StopTimer()
	if cpu != nil {
		cpu.stop(b, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkToolCallInMemory: sequential calls with no process boundary,
// over the SDK's in-memory transports. "bridle" is Bridle's server (its SDK
// server, as every Bridle transport serves it); "sdk" the SDK's typed
// AddTool; "sdk-raw" the SDK's low-level AddTool with no validation.
// "bridle-mcptest" is Bridle's mcptest.Conn.Handle, one JSON-RPC line in
// and out with no client at all.
func BenchmarkToolCallInMemory(b *testing.B) {
	for _, s := range []struct {
		name string
		srv  func() *sdk.Server
	}{
		{"bridle", func() *sdk.Server { return addtool.Bridle().SDK() }},
		{"sdk", addtool.SDK},
		{"sdk-raw", addtool.SDKRaw},
	} {
		b.Run(s.name, func(b *testing.B) {
			st, ct := sdk.NewInMemoryTransports()
			ss, err := s.srv().Connect(context.Background(), st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			cs, err := newClient().Connect(context.Background(), ct, sessionOptions())
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			sequentialCalls(b, cs, 0)
		})
	}
	b.Run("bridle-mcptest", func(b *testing.B) {
		line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}`)
		ctx := context.Background()
		c, err := mcptest.Connect(ctx, addtool.Bridle())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Handle(ctx, line); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Handle(ctx, line); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	})
}

// BenchmarkToolCallStdio: sequential tool calls over stdio, one server
// process per implementation, the same go-sdk client driving each.
func BenchmarkToolCallStdio(b *testing.B) {
	for _, impl := range stdioImpls() {
		b.Run(impl, func(b *testing.B) {
			cs, pid := connectStdio(b, impl)
			sequentialCalls(b, cs, pid)
		})
	}
}

// connectStdio starts impl's server and connects the go-sdk client to it
// over stdio; it returns the session, closed when b ends, and the server's
// pid.
func connectStdio(b *testing.B, impl string) (*sdk.ClientSession, int) {
	cmd := serverCommand(b, impl, 0)
	cs, err := newClient().Connect(context.Background(), &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, sessionOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs, cmd.Process.Pid
}

// BenchmarkToolCallStdioMeta: as BenchmarkToolCallStdio, with a _meta that
// changes on every call (a W3C trace context, as traced clients send).
func BenchmarkToolCallStdioMeta(b *testing.B) {
	for _, impl := range stdioImpls() {
		b.Run(impl, func(b *testing.B) {
			cs, pid := connectStdio(b, impl)
			ctx := context.Background()
			n := 0
			call := func() {
				n++
				callAddMeta(ctx, b, cs, sdk.Meta{"traceparent": fmt.Sprintf("00-%032x-%016x-01", n, n)})
			}
			sequential(b, pid, call)
		})
	}
}

// stdioImpls are the servers BenchmarkToolCallStdio compares;
// BENCH_MCP_EXTRA adds more mcpserver implementations (experiments).
func stdioImpls() []string {
	impls := []string{"raw", "bridle", "sdk", "mcpgo", "ts"}
	if extra := os.Getenv("BENCH_MCP_EXTRA"); extra != "" {
		for _, e := range filepath.SplitList(extra) {
			impls = append(impls, e)
		}
	}
	return impls
}

// BenchmarkFloorEcho is the floor under any MCP client and server over
// stdio: JSON-RPC lines written and read with encoding/json on both sides,
// against the raw server.
func BenchmarkFloorEcho(b *testing.B) {
	cmd := serverCommand(b, "raw", 0)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	in := bufio.NewReader(stdout)
	type request struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      int            `json:"id"`
		Method  string         `json:"method"`
		Params  map[string]any `json:"params"`
	}
	var reply struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	enc := json.NewEncoder(stdin)
	id := 0
	call := func() {
		id++
		if err := enc.Encode(request{"2.0", id, "tools/call", map[string]any{"name": "add", "arguments": addArgs}}); err != nil {
			b.Fatal(err)
		}
		line, err := in.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		reply.Result.Content = nil
		if err := json.Unmarshal(line, &reply); err != nil || reply.ID != id || len(reply.Result.Content) != 1 || reply.Result.Content[0].Text != "5" {
			b.Fatalf("reply %s: %v", line, err)
		}
	}
	sequential(b, cmd.Process.Pid, call)
}

func freePort(b *testing.B) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startHTTP starts impl on a free loopback port and waits until it
// answers; it returns the endpoint and the server's process id.
func startHTTP(b *testing.B, impl string) (string, int) {
	port := freePort(b)
	cmd := serverCommand(b, impl, port)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	for i := 0; ; i++ {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			conn.Close()
			return url, cmd.Process.Pid
		}
		if i == 200 {
			b.Fatalf("%s did not start listening on %d", impl, port)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func connectHTTP(b *testing.B, url string) *sdk.ClientSession {
	t := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}, DisableStandaloneSSE: true}
	cs, err := newClient().Connect(context.Background(), t, sessionOptions())
	if err != nil {
		b.Fatal(err)
	}
	return cs
}

var httpImpls = []string{"bridle", "sdk", "mcpgo", "ts"}

// BenchmarkToolCallHTTP: sequential tool calls over Streamable HTTP.
func BenchmarkToolCallHTTP(b *testing.B) {
	for _, impl := range httpImpls {
		b.Run(impl, func(b *testing.B) {
			url, pid := startHTTP(b, impl)
			cs := connectHTTP(b, url)
			defer cs.Close()
			sequentialCalls(b, cs, pid)
		})
	}
}

// BenchmarkToolCallHTTP64: 64 concurrent clients over Streamable HTTP;
// reports throughput and the 99th percentile latency of one call.
func BenchmarkToolCallHTTP64(b *testing.B) {
	const clients = 64
	for _, impl := range httpImpls {
		b.Run(impl, func(b *testing.B) {
			url, pid := startHTTP(b, impl)
			sessions := make([]*sdk.ClientSession, clients)
			for i := range sessions {
				sessions[i] = connectHTTP(b, url)
				defer sessions[i].Close()
			}
			ctx := context.Background()
			for _, cs := range sessions {
				callAdd(ctx, b, cs)
			}
			var mu sync.Mutex
			var lat []time.Duration
			work := make(chan struct{})
			cpu := startServerCPU(pid)
			b.ResetTimer()
			var wg sync.WaitGroup
			for _, cs := range sessions {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var mine []time.Duration
					for range work {
						start := time.Now()
						callAdd(ctx, b, cs)
						mine = append(mine, time.Since(start))
					}
					mu.Lock()
					lat = append(lat, mine...)
					mu.Unlock()
				}()
			}
			for i := 0; i < b.N; i++ {
				work <- struct{}{}
			}
			close(work)
			wg.Wait()
			b.StopTimer()
			cpu.stop(b, b.N)
			slices.Sort(lat)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
