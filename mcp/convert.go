package mcp

import (
	"github.com/bridle-dev/bridle/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Conversions between our types and the SDK's protocol types.

// annotationsFor returns the hints a server announces for a tool of risk r.
// Unset hints take the protocol's defaults (destructiveHint and
// openWorldHint true), which is what Exec means.
func annotationsFor(r tool.Risk) *sdk.ToolAnnotations {
	switch r {
	case tool.Read:
		return &sdk.ToolAnnotations{ReadOnlyHint: true}
	case tool.Write:
		yes, no := true, false
		return &sdk.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}
	}
	return &sdk.ToolAnnotations{}
}

// textResult is a tool result holding one text content; isError marks a
// failed call.
func textResult(text string, isError bool) *sdk.CallToolResult {
	return &sdk.CallToolResult{
		Content: []sdk.Content{&sdk.TextContent{Text: text}},
		IsError: isError,
	}
}
