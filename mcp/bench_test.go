package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The benchmarks compare a trivial tool served by our Server with the same
// tool on a bare SDK server, driven by the same SDK client over each
// transport. "sdk" registers the tool the idiomatic way (sdk.AddTool, which
// validates arguments like our layer does); "sdk-raw" uses the low-level
// Server.AddTool, with no validation at all.
//
//	go test ./mcp -run '^$' -bench . -benchmem -count 3
//
// Over stdio the server is a child process (this test binary), so allocs/op
// counts the client only. Besides wall time, each benchmark reports the CPU
// time a call costs client and server together (cpu-ns/op, where the system
// can tell), which a busy machine disturbs less.

func serverBenchBridle() *Server {
	s := NewServer("bench", "v1", nil)
	s.AddTools(tool.Tool{Risk: tool.Read,
		Name:        "noop",
		Description: "Does nothing.",
		Func:        func(context.Context, json.RawMessage) (string, error) { return "ok", nil },
	})
	return s
}

func serverBenchSDK() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "v1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "noop", Description: "Does nothing."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, nil
		})
	return s
}

func serverBenchSDKRaw() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "v1"}, nil)
	s.AddTool(&sdk.Tool{Name: "noop", Description: "Does nothing.", InputSchema: json.RawMessage(`{"type":"object"}`)}, rawNoop)
	return s
}

// rawNoop answers noop with no checks at all. It is not inlined, so that
// BenchmarkLayer sees the allocations a handler really makes.
//
//go:noinline
func rawNoop(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
}

func init() {
	helperServers["server-bench-bridle"] = func() error { return serverBenchBridle().ServeStdio(context.Background()) }
	helperServers["server-bench-sdk"] = func() error { return serverBenchSDK().Run(context.Background(), &sdk.StdioTransport{}) }
	helperServers["server-bench-sdk-raw"] = func() error { return serverBenchSDKRaw().Run(context.Background(), &sdk.StdioTransport{}) }
}

var serverBenches = []struct {
	name string
	sdk  func() *sdk.Server
}{
	{"bridle", func() *sdk.Server { return serverBenchBridle().SDK() }},
	{"sdk", serverBenchSDK},
	{"sdk-raw", serverBenchSDKRaw},
}

func BenchmarkToolCall(b *testing.B) {
	b.Run("transport=inmemory", func(b *testing.B) {
		for _, srv := range serverBenches {
			b.Run("server="+srv.name, func(b *testing.B) {
				st, ct := sdk.NewInMemoryTransports()
				ss, err := srv.sdk().Connect(b.Context(), st, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ss.Close()
				serverBenchCalls(b, serverBenchConnect(b, ct), 0)
			})
		}
	})
	b.Run("transport=stdio", func(b *testing.B) {
		exe, err := os.Executable()
		if err != nil {
			b.Fatal(err)
		}
		for _, srv := range serverBenches {
			b.Run("server="+srv.name, func(b *testing.B) {
				cmd := exec.Command(exe)
				cmd.Env = append(os.Environ(), helperEnv+"=server-bench-"+srv.name)
				cs := serverBenchConnect(b, &sdk.CommandTransport{Command: cmd})
				serverBenchCalls(b, cs, cmd.Process.Pid)
			})
		}
	})
	b.Run("transport=http", func(b *testing.B) {
		handlers := map[string]http.Handler{
			"bridle": serverBenchBridle().HTTPHandler(nil),
		}
		for _, srv := range serverBenches[1:] {
			s := srv.sdk()
			handlers[srv.name] = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
		}
		for _, srv := range serverBenches {
			b.Run("server="+srv.name, func(b *testing.B) {
				hs := httptest.NewServer(handlers[srv.name])
				b.Cleanup(hs.Close) // after the client's Close, registered later
				serverBenchCalls(b, serverBenchConnect(b, &sdk.StreamableClientTransport{Endpoint: hs.URL}), 0)
			})
		}
	})
}

func serverBenchConnect(b *testing.B, t sdk.Transport) *sdk.ClientSession {
	b.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "v1"}, nil)
	cs, err := c.Connect(b.Context(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// serverBenchCalls calls noop in a loop; pid is the server's process when
// it is a child, else 0.
func serverBenchCalls(b *testing.B, cs *sdk.ClientSession, pid int) {
	b.Helper()
	ctx := b.Context()
	params := &sdk.CallToolParams{Name: "noop", Arguments: map[string]any{}}
	call := func() {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != "ok" {
			b.Fatalf("noop gave %+v", res)
		}
	}
	call() // the first call pays for schema caches and connections
	b.ReportAllocs()
	cpu := startCPU(pid)
	for b.Loop() {
		call()
	}
	cpu.report(b)
}

// cpuMeter measures the CPU time of a benchmark loop.
type cpuMeter struct {
	pid   int
	start time.Duration
	ok    bool
}

func startCPU(pid int) cpuMeter {
	start, ok := cpuTime(pid)
	return cpuMeter{pid, start, ok}
}

// report adds calls/s and, when it could be measured, cpu-ns/op.
func (m cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	if end, ok := cpuTime(m.pid); ok && m.ok {
		b.ReportMetric(float64(end-m.start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkLayer measures, on their own, the steps our layer adds to a
// call, which the end-to-end benchmarks above cannot resolve on a busy
// machine: running the tool through tool.Tool.Call (validation, panic
// recovery) instead of answering directly, checking a stdio line before
// the SDK reads it, and the HTTP checks (Origin, token, body size).
func BenchmarkLayer(b *testing.B) {
	ctx := context.Background()
	req := &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: "noop", Arguments: json.RawMessage(`{}`)}}
	b.Run("step=tool-handler/server=bridle", func(b *testing.B) {
		s := serverBenchBridle()
		noop, err := tool.Tool{Risk: tool.Read,
			Name: "noop",
			Func: func(context.Context, json.RawMessage) (string, error) { return "ok", nil },
		}.Prepare()
		if err != nil {
			b.Fatal(err)
		}
		h := s.toolHandler(noop)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("step=tool-handler/server=sdk-raw", func(b *testing.B) {
		h := rawNoop
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("step=stdio-line-decode", func(b *testing.B) {
		line := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"noop","arguments":{}}}`)
		var f lineFilter
		running := func(jsonrpc.ID) bool { return false }
		b.ReportAllocs()
		for b.Loop() {
			if _, _, reply := f.decode(line, running); reply != nil {
				b.Fatalf("check refused the line: %s", reply)
			}
		}
	})
	b.Run("step=http-checks", func(b *testing.B) {
		s := serverBenchBridle()
		h := s.newHTTPHandler(&HTTPOptions{Token: "s3cret"}, nil)
		h.stateful = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header.Set("Origin", "http://localhost:5173")
		r.Header.Set("Authorization", "Bearer s3cret")
		w := httptest.NewRecorder()
		b.ReportAllocs()
		for b.Loop() {
			h.ServeHTTP(w, r)
		}
	})
}
