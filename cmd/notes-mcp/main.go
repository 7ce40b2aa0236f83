// Command notes-mcp is an MCP server over a folder of personal notes, one
// Markdown file per note, for Claude Code, Claude Desktop, editors or any
// MCP client.
//
// With no arguments it speaks MCP over stdin and stdout. With --http PORT it
// serves Streamable HTTP on 127.0.0.1 (or --addr), asking for the bearer
// token in NOTES_MCP_TOKEN when that is set.
//
// Usage:
//
//	notes-mcp [--dir DIR] [--http PORT [--addr ADDR]]
//
// The notes live in --dir, else $NOTES_DIR, else $XDG_DATA_HOME/notes-mcp
// (~/.local/share/notes-mcp). See docs/notes-mcp.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/bridle-dev/bridle/internal/otelsetup"
)

func main() {
	// The MCP SDK allocates freely per message, so with a small live heap
	// the GC runs every few calls; a higher target trades a few MiB for
	// about a fifth less CPU per call (bench/README.md, "levers").
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "notes-mcp: %v\n", err)
		var u usageError
		if errors.As(err, &u) {
			fmt.Fprintln(os.Stderr, "Run notes-mcp --help for usage.")
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// run is the whole program, with its arguments and streams passed in.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseArgs(args, os.Getenv)
	if err != nil {
		return err
	}
	switch {
	case cfg.help:
		return writeUsage(stdout)
	case cfg.version:
		_, err := fmt.Fprintf(stdout, "notes-mcp %s\n", version())
		return err
	}
	defer otelsetup.Start(ctx, "notes-mcp", stderr)()
	return serve(ctx, cfg, stdin, stdout, stderr)
}
