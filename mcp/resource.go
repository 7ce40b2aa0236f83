package mcp

import (
	"context"
	"fmt"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource is a piece of text a client can list and read: a document, an
// index, a note. Its content is produced by Read on every read.
type Resource struct {
	// URI identifies the resource; it must be absolute, such as
	// "notes://index" or "file:///etc/motd".
	URI string
	// Name is a short name shown to people. Empty means the URI.
	Name string
	// Description says what the resource holds.
	Description string
	// MIMEType is the type of the text. Empty means "text/plain".
	MIMEType string
	// Read returns the resource's text; an empty text is sent as a result
	// with no contents. Its error is sent to the client as
	// a failed read (JSON-RPC code -32603) with the error's message; a
	// panic in Read is sent the same way.
	Read func(ctx context.Context) (string, error)
}

// AddResources adds resources to the server. It panics, naming the
// resource, on a URI that is empty, not absolute or repeated, or a missing
// Read: these are programming errors. When it panics, none of the given
// resources is added.
func (s *Server) AddResources(rs ...Resource) {
	s.mu.Lock()
	seen := make(map[string]bool, len(rs))
	for i, r := range rs {
		if err := checkResource(r); err != nil {
			s.mu.Unlock()
			panic(fmt.Sprintf("mcp: AddResources: resource #%d (%q): %v", i+1, r.URI, err))
		}
		if s.resources[r.URI] || seen[r.URI] {
			s.mu.Unlock()
			panic(fmt.Sprintf("mcp: AddResources: resource %q is added twice: URIs must be unique", r.URI))
		}
		seen[r.URI] = true
	}
	for uri := range seen {
		s.resources[uri] = true
	}
	s.mu.Unlock()

	for _, r := range rs {
		if r.Name == "" {
			r.Name = r.URI
		}
		if r.MIMEType == "" {
			r.MIMEType = "text/plain"
		}
		s.sdk.AddResource(&sdk.Resource{
			URI:         r.URI,
			Name:        r.Name,
			Description: r.Description,
			MIMEType:    r.MIMEType,
		}, resourceHandler(r))
	}
}

func checkResource(r Resource) error {
	if r.URI == "" {
		return fmt.Errorf("the URI is empty")
	}
	u, err := url.Parse(r.URI)
	if err != nil {
		return fmt.Errorf("the URI does not parse: %v", err)
	}
	if u.Scheme == "" {
		return fmt.Errorf("the URI is not absolute: give it a scheme, such as notes://")
	}
	if r.Read == nil {
		return fmt.Errorf("it has no Read function")
	}
	return nil
}

// resourceHandler reads r for the SDK, turning a panic in Read into an
// error, as tool calls do.
func resourceHandler(r Resource) sdk.ResourceHandler {
	return func(ctx context.Context, _ *sdk.ReadResourceRequest) (res *sdk.ReadResourceResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				res, err = nil, readError(fmt.Sprintf("reading %s panicked: %v", r.URI, p))
			}
		}()
		text, err := r.Read(ctx)
		if err != nil {
			return nil, readError(fmt.Sprintf("reading %s: %v", r.URI, err))
		}
		if text == "" {
			// The SDK leaves an empty text out, and an item with neither
			// text nor blob is refused by strict clients: say "nothing"
			// with no items instead.
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{}}, nil
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{
			URI:      r.URI,
			MIMEType: r.MIMEType,
			Text:     text,
		}}}, nil
	}
}

// readError is a failed read as the client sees it: an internal error
// (the SDK would send a plain error with code 0) carrying the message.
func readError(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
}
