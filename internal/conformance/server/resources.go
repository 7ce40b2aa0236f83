package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const watchedURI = "test://watched-resource"

func addResources(s *mcp.Server) {
	s.AddResources(
		mcp.Resource{
			URI:         "test://static-text",
			Name:        "static-text",
			Description: "A static text resource for testing",
			Read: func(context.Context) (string, error) {
				return "This is the content of the static text resource.", nil
			},
		},
		mcp.Resource{
			URI:         watchedURI,
			Name:        "watched-resource",
			Description: "A resource that auto-updates every 3 seconds",
			Read: func(context.Context) (string, error) {
				return "Watched resource content", nil
			},
		},
	)

	// Binary contents and URI templates go through the SDK.
	raw := s.SDK()
	raw.AddResource(&sdk.Resource{
		URI:         "test://static-binary",
		Name:        "static-binary",
		Description: "A static binary resource (image) for testing",
		MIMEType:    "image/png",
	}, func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{
			URI: req.Params.URI, MIMEType: "image/png", Blob: decode(pngBase64),
		}}}, nil
	})
	raw.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: "test://template/{id}/data",
		Name:        "template",
		Description: "A resource template with parameter substitution",
		MIMEType:    "application/json",
	}, func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		uri := req.Params.URI
		id := strings.TrimSuffix(strings.TrimPrefix(uri, "test://template/"), "/data")
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{
			URI:      uri,
			MIMEType: "application/json",
			Text:     fmt.Sprintf(`{"id": %q, "templateTest": true, "data": "Data for ID: %s"}`, id, id),
		}}}, nil
	})
}

// updateWatched tells subscribers the watched resource changed, every
// three seconds, until ctx is done.
func updateWatched(ctx context.Context, s *sdk.Server) {
	tick := time.NewTicker(3 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: watchedURI})
		}
	}
}
