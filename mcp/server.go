package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/bridle-dev/bridle/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is an MCP server: a name, a version, instructions for the model,
// tools and resources. Create one with [NewServer], add tools with
// [Server.AddTools] and resources with [Server.AddResources], then serve it
// over stdio ([Server.ServeStdio]), Streamable HTTP
// ([Server.ListenAndServe]) or in-process ([Server.Handle]).
//
// A Server may serve several transports and sessions at once, and tools may
// be added while it serves: connected clients are told the list changed.
type Server struct {
	sdk    *sdk.Server
	impl   *sdk.Implementation
	logger *slog.Logger

	mu        sync.Mutex
	tools     map[string]bool      // names taken by AddTools
	served    map[string]tool.Tool // AddTools' tools, prepared, once the SDK lists them
	resources map[string]bool

	// sdkTaken is set once SDK was called: from then on every call goes
	// through the SDK server, which the caller may have changed (see
	// Server.Run).
	sdkTaken atomic.Bool
	// fastAnswered counts the calls Run answered without the SDK.
	fastAnswered atomic.Int64

	local local // the session behind Handle, started on first use
}

// ServerOptions configures a [Server]. A nil *ServerOptions means the
// defaults.
type ServerOptions struct {
	// Instructions tell the client's model how and when to use the server's
	// tools; clients usually add them to the system prompt. Empty means none.
	Instructions string

	// Logger receives the server's activity (sessions, failed tool calls).
	// Nil means no logging. The server never writes to stdout by itself.
	Logger *slog.Logger

	// SDKOptions configures the underlying SDK server for what this package
	// does not model: a completion handler, resource subscription handlers,
	// capabilities, keepalive pings, page size. Nil means the SDK's defaults.
	// Instructions and Logger above replace the same fields here when they
	// are set. See also [Server.SDK].
	SDKOptions *sdk.ServerOptions
}

// NewServer returns a server with the given name and version (sent to
// clients when they connect) and no tools or resources. NewServer panics if
// name is empty.
func NewServer(name, version string, opts *ServerOptions) *Server {
	if name == "" {
		panic("mcp.NewServer: the server name is empty")
	}
	if opts == nil {
		opts = &ServerOptions{}
	}
	var so sdk.ServerOptions
	if opts.SDKOptions != nil {
		so = *opts.SDKOptions
	}
	if opts.Instructions != "" {
		so.Instructions = opts.Instructions
	}
	if opts.Logger != nil {
		so.Logger = opts.Logger
	}
	logger := so.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	so.Logger = logger
	impl := &sdk.Implementation{Name: name, Version: version}
	return &Server{
		sdk:       sdk.NewServer(impl, &so),
		impl:      impl,
		logger:    logger,
		tools:     make(map[string]bool),
		served:    make(map[string]tool.Tool),
		resources: make(map[string]bool),
	}
}

// SDK returns the underlying server of the official Go SDK, for what this
// package does not model: prompts, resource templates, tools that return
// images or call back into the client (sampling, elicitation, logging,
// progress). Features added there are served by every transport of s.
//
// Tools added through the SDK bypass the checks of [Server.AddTools]: their
// names are not reserved, their arguments are not validated by package
// tool, and a panic in their handler is not recovered.
//
// Once SDK has been called, [Server.Run] hands every message to the SDK
// server, so that middleware added there sees every call (see Run).
func (s *Server) SDK() *sdk.Server {
	s.sdkTaken.Store(true)
	return s.sdk
}

// AddTools adds tools to the server. Each is checked with
// [tool.Tool.Prepare] and announced with annotations that follow its risk
// (see the package documentation). A call runs through [tool.Tool.Call], so
// arguments are validated before the function runs and a panic becomes a
// failed call; a tool's error is sent as a failed call whose text is the
// error's message.
//
// AddTools panics, naming the tool, on an empty, invalid or repeated name
// (including a name added by an earlier call), a missing Func, an unknown
// risk, or a schema that is not a JSON object schema: these are programming
// errors. When it panics, none of the given tools is added.
func (s *Server) AddTools(tools ...tool.Tool) {
	prepared := make([]tool.Tool, 0, len(tools))
	s.mu.Lock()
	seen := make(map[string]bool, len(tools))
	for i, t := range tools {
		p, err := t.Prepare()
		if err == nil && (s.tools[t.Name] || seen[t.Name]) {
			err = fmt.Errorf("tool %q is added twice: tool names must be unique", t.Name)
		}
		if err != nil {
			s.mu.Unlock()
			if t.Name == "" {
				panic(fmt.Sprintf("mcp: AddTools: tool #%d (description %q): %v", i+1, short(t.Description), err))
			}
			panic("mcp: AddTools: " + err.Error())
		}
		seen[t.Name] = true
		prepared = append(prepared, p)
	}
	for name := range seen {
		s.tools[name] = true
	}
	s.mu.Unlock()

	for _, t := range prepared {
		s.sdk.AddTool(&sdk.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.Schema,
			Annotations: annotationsFor(t.Risk),
		}, s.toolHandler(t))
		s.mu.Lock()
		s.served[t.Name] = t // Run may answer its calls now the SDK lists it
		s.mu.Unlock()
	}
}

// addedTool returns the tool of that name added with AddTools.
func (s *Server) addedTool(name string) (tool.Tool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.served[name]
	return t, ok
}

// toolHandler runs t for the SDK. It never returns an error: the SDK would
// send one as a JSON-RPC error, which a model never sees.
func (s *Server) toolHandler(t tool.Tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		ctx, span := startServerSpan(ctx, req)
		out, err := t.Call(ctx, req.Params.Arguments)
		endServerSpan(span, err)
		if err != nil {
			s.logger.Debug("tool call failed", "tool", t.Name, "error", err)
			return textResult(err.Error(), true), nil
		}
		return textResult(out, false), nil
	}
}

// short cuts s to a length fit for a panic message.
func short(s string) string {
	const max = 60
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
