// Package fastpath holds prototypes of changes proposed for Bridle's root
// packages, so that the benchmarks can measure them before they are made:
// a stdio front for an MCP server that answers tools/call for its own
// tools without the SDK (Serve). The validator for flat tool schemas it
// once held is now package tool's own (tool.Tool.Validate).
package fastpath

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
)

// Options choose the parts of the fast path.
type Options struct {
	// Workers hands calls to goroutines that live on, whose stacks have
	// grown already, instead of a new goroutine per call.
	Workers bool
	// Flat validates arguments with tool.Tool.Validate (which skips the
	// JSON Schema engine for flat schemas), then calls the tool's Func,
	// instead of tool.Tool.Call with its panic recovery.
	Flat bool
}

// Serve serves s over r and w as s.Run does, answering tools/call for
// tools itself (they must be the tools added to s) and passing every
// other line to s.Run. name and version are s's, for the _meta of
// stateless results.
func Serve(ctx context.Context, s *mcp.Server, name, version string, tools []tool.Tool, r io.Reader, w io.Writer, opts Options) error {
	f := &front{
		tools:   make(map[string]fastTool, len(tools)),
		out:     &lockedWriter{w: w},
		running: make(map[string]context.CancelFunc),
		opts:    opts,
	}
	for _, t := range tools {
		ft := fastTool{t: t}
		ft.direct = opts.Flat
		f.tools[t.Name] = ft
	}
	f.meta, _ = json.Marshal(map[string]any{"io.modelcontextprotocol/serverInfo": map[string]string{"name": name, "version": version}})
	if opts.Workers {
		f.work = make(chan func())
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, pr, f.out) }()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && !f.serve(ctx, line) {
			if _, werr := pw.Write(line); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	pw.Close()
	return <-done
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lockedWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.w.Write(p)
}

type fastTool struct {
	t      tool.Tool
	direct bool // false: use tool.Tool.Call
}

func (ft fastTool) call(ctx context.Context, args json.RawMessage) (string, error) {
	if !ft.direct {
		return ft.t.Call(ctx, args)
	}
	if err := ft.t.Validate(args); err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	return ft.t.Func(ctx, args)
}

// front answers tools/call requests for the tools it holds.
type front struct {
	tools       map[string]fastTool
	out         io.Writer
	meta        json.RawMessage // the _meta of a 2026-07-28 result
	initialized bool            // a legacy session finished its handshake
	opts        Options
	work        chan func() // to idle workers, when opts.Workers

	mu      sync.Mutex
	running map[string]context.CancelFunc
}

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta *struct {
			ProtocolVersion string          `json:"io.modelcontextprotocol/protocolVersion"`
			Capabilities    json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		RequestID json.RawMessage `json:"requestId"` // notifications/cancelled
	} `json:"params"`
}

type result struct {
	Meta       json.RawMessage `json:"_meta,omitempty"`
	Content    [1]text         `json:"content"`
	IsError    bool            `json:"isError,omitempty"`
	ResultType string          `json:"resultType,omitempty"`
}

type text struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// serve answers line and reports true, or reports false for a line the
// SDK must see.
func (f *front) serve(ctx context.Context, line []byte) bool {
	if !bytes.Contains(line, []byte(`"tools/call"`)) {
		switch {
		case bytes.Contains(line, []byte(`"notifications/initialized"`)):
			f.initialized = true
		case bytes.Contains(line, []byte(`"notifications/cancelled"`)):
			var req request
			if json.Unmarshal(line, &req) == nil {
				f.mu.Lock()
				cancel := f.running[string(req.Params.RequestID)]
				f.mu.Unlock()
				if cancel != nil {
					cancel()
				}
			}
		}
		return false
	}
	var req request
	if json.Unmarshal(line, &req) != nil || req.Method != "tools/call" || len(req.ID) == 0 || req.ID[0] == 'n' {
		return false
	}
	ft, ok := f.tools[req.Params.Name]
	if !ok {
		return false
	}
	stateless := req.Params.Meta != nil && req.Params.Meta.ProtocolVersion >= "2026-07-28" && len(req.Params.Meta.Capabilities) > 0
	if !stateless && (!f.initialized || req.Params.Meta != nil && req.Params.Meta.ProtocolVersion != "") {
		return false
	}
	id := string(req.ID)
	ctx, cancel := context.WithCancel(ctx)
	f.mu.Lock()
	f.running[id] = cancel
	f.mu.Unlock()
	call := func() {
		defer cancel()
		out, err := ft.call(ctx, req.Params.Arguments)
		res := result{}
		if err != nil {
			out, res.IsError = err.Error(), true
		}
		res.Content[0] = text{"text", out}
		if stateless {
			res.Meta, res.ResultType = f.meta, "complete"
		}
		f.mu.Lock()
		delete(f.running, id)
		f.mu.Unlock()
		b, _ := json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  *result         `json:"result"`
		}{"2.0", req.ID, &res})
		f.out.Write(append(b, '\n'))
	}
	if f.work == nil {
		go call()
		return true
	}
	select {
	case f.work <- call:
	default:
		go f.worker(call)
	}
	return true
}

// worker runs call, then the calls handed to it after; a worker lives as
// long as the server (a real one would let idle workers go).
func (f *front) worker(call func()) {
	for {
		call()
		call = <-f.work
	}
}
