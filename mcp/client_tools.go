package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/tool"
)

// Tools lists the server's tools as [tool.Tool] values, each with the
// server's own tool name, its description and input schema, and a risk from
// its annotations (see [HintPolicy] and [ClientOptions.Risks]). Calling one
// calls the server with the caller's context: a result the server marks as
// an error becomes an error whose text is the server's message; text
// contents are joined with newlines; images, audio and binary resources are
// described ("[image image/png, 1234 bytes]"); structured content stands in
// when there is no text. A tool whose name or schema Bridle cannot use is
// left out and logged.
func (s *Session) Tools(ctx context.Context) ([]tool.Tool, error) {
	var tools []tool.Tool
	for t, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			if methodNotFound(err) {
				return nil, nil // a server without tools
			}
			return nil, s.fail("listing tools", err)
		}
		bt, err := s.convertTool(t)
		if err != nil {
			s.logger.Warn("mcp server tool left out", "tool", t.Name, "error", err)
			continue
		}
		tools = append(tools, bt)
	}
	return tools, nil
}

// convertTool turns a tool the server announced into a prepared tool.Tool
// whose Func calls the server.
func (s *Session) convertTool(t *sdk.Tool) (tool.Tool, error) {
	var schema json.RawMessage
	if t.InputSchema != nil {
		raw, err := json.Marshal(t.InputSchema)
		if err != nil {
			return tool.Tool{}, fmt.Errorf("input schema: %v", err)
		}
		schema = raw
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
		if desc == "" && t.Annotations != nil {
			desc = t.Annotations.Title
		}
	}
	name := t.Name
	bt := tool.Tool{
		Name:        name,
		Description: desc,
		Schema:      schema,
		Risk:        s.riskOf(t),
		Func: func(ctx context.Context, args json.RawMessage) (string, error) {
			return s.callTool(ctx, name, args)
		},
	}
	return bt.Prepare()
}

// riskOf applies the per-tool override, then the hint policy.
func (s *Session) riskOf(t *sdk.Tool) tool.Risk {
	if r, ok := s.risks[t.Name]; ok {
		return r
	}
	return riskFromHints(s.hints, t.Annotations)
}

// riskFromHints maps annotations to a risk. Missing annotations take the
// protocol's defaults: not read-only, destructive, open world.
func riskFromHints(p HintPolicy, a *sdk.ToolAnnotations) tool.Risk {
	if p == HintsIgnored || a == nil {
		return tool.Exec
	}
	if a.ReadOnlyHint {
		return tool.Read
	}
	// A tool that keeps to its own closed world changes only the server's
	// data, which is what Write means; reaching outside (the protocol's
	// default) is Exec however gentle, like an additive post to a feed.
	if p == HintsTrusted && a.OpenWorldHint != nil && !*a.OpenWorldHint {
		return tool.Write
	}
	return tool.Exec
}

// callTool calls a tool on the server and turns the result into what the
// model reads.
func (s *Session) callTool(ctx context.Context, name string, args json.RawMessage) (string, error) {
	params := &sdk.CallToolParams{Name: name}
	if len(args) > 0 {
		params.Arguments = args
	}
	ctx, span := s.startCallSpan(ctx, params)
	res, err := s.cs.CallTool(ctx, params)
	endCallSpan(span, err, err == nil && res.IsError)
	if err != nil {
		return "", s.fail(fmt.Sprintf("calling tool %q", name), err)
	}
	text := resultText(res)
	if res.IsError {
		if text == "" {
			text = fmt.Sprintf("tool %s failed and the server gave no message", name)
		}
		return "", errors.New(text)
	}
	return text, nil
}
