package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"

	"github.com/bridle-dev/bridle/internal/version"
	"github.com/bridle-dev/bridle/mcp"
)

// instructions tell the model what the server is for and how to use it.
//
//go:embed instructions.md
var instructions string

// indexURI names the resource that lists every title.
const indexURI = "notes://index"

// newServer returns an MCP server over the notes in s.
func newServer(s *store, version string, logger *slog.Logger) *mcp.Server {
	srv := mcp.NewServer("notes-mcp", version, &mcp.ServerOptions{
		Instructions: strings.TrimSpace(instructions),
		Logger:       logger,
	})
	srv.AddTools(tools(s)...)
	srv.AddResources(mcp.Resource{
		URI:         indexURI,
		Name:        "index",
		Description: "The title of every note, one per line, sorted.",
		MIMEType:    "text/plain",
		Read: func(ctx context.Context) (string, error) {
			titles, err := s.titles()
			if err != nil || len(titles) == 0 {
				return "", err
			}
			return strings.Join(titles, "\n") + "\n", nil
		},
	})
	return srv
}

// maxRequestBytes bounds an HTTP request: room for a note of maxBody bytes
// even when every byte of it is escaped in JSON.
const maxRequestBytes = 8 << 20

// serve opens the notes folder and serves it over stdio or HTTP until ctx
// ends or, on stdio, the client closes stdin.
func serve(ctx context.Context, cfg config, stdin io.Reader, stdout, stderr io.Writer) error {
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := openStore(cfg.dir)
	if err != nil {
		return err
	}
	defer s.Close()
	srv := newServer(s, version.String(), logger)
	if !cfg.http {
		return srv.Run(ctx, stdin, stdout)
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("cannot listen for HTTP: %w", err)
	}
	auth := "no token"
	if cfg.token != "" {
		auth = "bearer token from NOTES_MCP_TOKEN"
	}
	fmt.Fprintf(stderr, "notes-mcp: serving the notes in %s at http://%s/mcp (%s)\n", cfg.dir, ln.Addr(), auth)
	return srv.Serve(ctx, ln, httpOptions(cfg, logger))
}

// httpOptions are the HTTP server's options for cfg.
func httpOptions(cfg config, logger *slog.Logger) *mcp.HTTPOptions {
	return &mcp.HTTPOptions{
		Token:          cfg.token,
		MaxBodyBytes:   maxRequestBytes,
		SessionTimeout: cfg.sessionTimeout,
		MaxSessions:    cfg.maxSessions,
		Logger:         logger,
	}
}
