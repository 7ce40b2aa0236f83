package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// methodNotFound reports whether the server answered that it has no such
// method: how a server without tools or resources answers their listing.
func methodNotFound(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound
}

// resultText turns a tool result into the text a model reads: the text
// contents joined with newlines, with everything else described in place;
// when no content is text, the structured content as JSON stands in.
func resultText(res *sdk.CallToolResult) string {
	parts := make([]string, 0, len(res.Content))
	hasText := false
	for _, c := range res.Content {
		text, isText := contentText(c)
		if isText {
			hasText = true
		}
		parts = append(parts, text)
	}
	if !hasText && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			// The structured value says more than descriptions of the
			// non-text parts; keep those after it.
			parts = append([]string{string(raw)}, parts...)
		}
	}
	return strings.Join(parts, "\n")
}

// contentText returns the text of one content item, or a description of it
// in brackets, and whether it was text the model can read as is.
func contentText(c sdk.Content) (string, bool) {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text, true
	case *sdk.ImageContent:
		return describeData("image", c.MIMEType, len(c.Data)), false
	case *sdk.AudioContent:
		return describeData("audio", c.MIMEType, len(c.Data)), false
	case *sdk.ResourceLink:
		return describeLink(c), false
	case *sdk.EmbeddedResource:
		if c.Resource == nil {
			return "[resource]", false
		}
		return resourceText(c.Resource)
	}
	return fmt.Sprintf("[%T content]", c), false
}

// resourceText returns the text of a resource's contents, or a
// description of its binary contents.
func resourceText(r *sdk.ResourceContents) (string, bool) {
	if r.Blob != nil || r.Text == "" && r.MIMEType != "" && !isTextMIME(r.MIMEType) {
		return describeResource(r), false
	}
	return r.Text, true
}

// isTextMIME reports whether content of this type reads as text.
func isTextMIME(t string) bool {
	t = strings.ToLower(t)
	return strings.HasPrefix(t, "text/") || strings.Contains(t, "json") || strings.Contains(t, "xml") ||
		strings.Contains(t, "yaml") || strings.Contains(t, "javascript")
}

// describeData describes binary content: "[image image/png, 1234 bytes]".
func describeData(kind, mime string, n int) string {
	if mime == "" {
		mime = "of unknown type"
	}
	return fmt.Sprintf("[%s %s, %d bytes]", kind, mime, n)
}

// describeResource describes a binary resource:
// "[resource file:///a.bin application/octet-stream, 10 bytes]".
func describeResource(r *sdk.ResourceContents) string {
	var b strings.Builder
	b.WriteString("[resource ")
	b.WriteString(r.URI)
	if r.MIMEType != "" {
		b.WriteString(" ")
		b.WriteString(r.MIMEType)
	}
	fmt.Fprintf(&b, ", %d bytes]", len(r.Blob))
	return b.String()
}

// describeLink describes a link to a resource the server did not include:
// "[resource link file:///notes/a.md (a.md, text/markdown)]".
func describeLink(l *sdk.ResourceLink) string {
	var extra []string
	if l.Name != "" {
		extra = append(extra, l.Name)
	}
	if l.MIMEType != "" {
		extra = append(extra, l.MIMEType)
	}
	if l.Size != nil {
		extra = append(extra, fmt.Sprintf("%d bytes", *l.Size))
	}
	if len(extra) == 0 {
		return "[resource link " + l.URI + "]"
	}
	return "[resource link " + l.URI + " (" + strings.Join(extra, ", ") + ")]"
}
