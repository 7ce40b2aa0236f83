package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/tool"
)

// server is a connected MCP server.
type server struct {
	name         string
	instructions string
}

// connect registers the tools of a server under name and appends its
// instructions to the system prompt. Nothing changes when it fails.
func (a *Agent) connect(name, instructions string, tools []tool.Tool) error {
	if name == "" {
		return fmt.Errorf("agent: connect: the server name is empty: give the connection a name")
	}
	es := make([]*entry, 0, len(tools))
	names := map[string]string{}
	for _, t := range tools {
		real := t.Name
		t.Name = mcpName(name, real)
		p, err := t.Prepare()
		if err != nil {
			return fmt.Errorf("agent: connect %q: tool %q: %w", name, real, err)
		}
		if other, ok := names[p.Name]; ok {
			return fmt.Errorf("agent: connect %q: tools %q and %q both become %q", name, other, real, p.Name)
		}
		names[p.Name] = real
		es = append(es, &entry{t: p, server: name, real: real})
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.servers {
		if s.name == name {
			return fmt.Errorf("agent: connect: a server named %q is already connected: connect the second one under another name", name)
		}
	}
	for _, e := range es {
		if a.tools[e.t.Name] != nil {
			return fmt.Errorf("agent: connect %q: tool %q is already registered", name, e.t.Name)
		}
	}
	a.servers = append(a.servers, server{name: name, instructions: strings.TrimSpace(instructions)})
	a.register(es)
	a.system = a.systemPrompt()
	return nil
}

// systemPrompt joins the configured prompt and the servers' instructions.
// The caller holds a.mu.
func (a *Agent) systemPrompt() string {
	var b strings.Builder
	b.WriteString(a.cfg.System)
	for _, s := range a.servers {
		if s.instructions == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "# Instructions from the MCP server %q\n\n%s", s.name, s.instructions)
	}
	return b.String()
}

// ToolSource is a named set of tools from elsewhere, with instructions on
// using them: typically a session with an MCP server, which
// *[github.com/bridle-dev/bridle/mcp.Session] satisfies. The agent
// declares what it needs rather than importing package mcp, so a program
// using the agent without MCP links no MCP code.
type ToolSource interface {
	// Name is the name the source goes by when Connect is given none.
	Name() string
	// Instructions tell the model how and when to use the tools; empty
	// means none.
	Instructions() string
	// Tools lists the tools, once, when the source is connected.
	Tools(ctx context.Context) ([]tool.Tool, error)
}

// Connect registers the tools of src, such as an MCP session, under name:
// the model sees each as mcp__<name>__<tool> (made fit when too long or
// holding characters providers refuse), and src's instructions are
// appended to the system prompt under a heading naming it. An empty name
// means src.Name(). Connecting a second source under a name already
// connected is an error, as is a failure to list the tools; either way
// nothing changes. The agent does not close src.
func (a *Agent) Connect(ctx context.Context, name string, src ToolSource) error {
	if src == nil {
		return errors.New("agent: connect: the tool source is nil: pass a connected session")
	}
	if name == "" {
		name = src.Name()
	}
	tools, err := src.Tools(ctx)
	if err != nil {
		return fmt.Errorf("agent: connect %q: listing the tools: %w", name, err)
	}
	return a.connect(name, src.Instructions(), tools)
}
