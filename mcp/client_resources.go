package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResourceInfo describes a resource a server offers; read it with
// [Session.ReadResource].
type ResourceInfo struct {
	// URI identifies the resource.
	URI string
	// Name is the server's short name for it.
	Name string
	// Title is a name for people, if the server gives one.
	Title string
	// Description says what the resource holds.
	Description string
	// MIMEType is its media type, if known.
	MIMEType string
	// Size is its size in bytes, or 0 when unknown.
	Size int64
}

// Resources lists the resources the server offers, following its pages.
// A server without resources gives an empty list and no error.
func (s *Session) Resources(ctx context.Context) ([]ResourceInfo, error) {
	var out []ResourceInfo
	for r, err := range s.cs.Resources(ctx, nil) {
		if err != nil {
			if methodNotFound(err) {
				return nil, nil // a server without resources
			}
			return nil, s.fail("listing resources", err)
		}
		out = append(out, ResourceInfo{
			URI:         r.URI,
			Name:        r.Name,
			Title:       r.Title,
			Description: r.Description,
			MIMEType:    r.MIMEType,
			Size:        r.Size,
		})
	}
	return out, nil
}

// ReadResource reads the resource at uri and returns its text. Binary
// contents are described ("[resource file:///a.png image/png, 1234
// bytes]"); several contents are joined with newlines.
func (s *Session) ReadResource(ctx context.Context, uri string) (string, error) {
	if uri == "" {
		return "", fmt.Errorf("mcp server %q: resource URI is empty: pass a URI from Resources", s.name)
	}
	res, err := s.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return "", s.fail(fmt.Sprintf("reading resource %q", uri), err)
	}
	parts := make([]string, 0, len(res.Contents))
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		text, _ := resourceText(c)
		parts = append(parts, text)
	}
	return strings.Join(parts, "\n"), nil
}
