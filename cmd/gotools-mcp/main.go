// Command gotools-mcp serves the Go toolchain to a model over MCP (stdio),
// so that an assistant writing Go can check, run, test, document and format
// it without anyone copying code by hand.
//
// Tools: go_check (build and vet), go_run (build and run a main package
// under a time limit), go_test (go test, summarised), go_doc (go doc) and
// go_fmt (gofmt, without rewriting files). Paths are relative to --root, the
// folder the server started in by default, and cannot leave it. The resource
// bridle://llms.txt holds Bridle's llms.txt.
//
// go_run and go_test run the program a model wrote inside a sandbox
// (bubblewrap, on Linux) when one is installed: no network, only the root
// writable. --sandbox on refuses to run code without it, --sandbox off
// never uses it.
//
// Usage:
//
//	gotools-mcp [--root DIR] [--sandbox auto|on|off]
//
// With Claude Code:
//
//	claude mcp add gotools -- gotools-mcp
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"

	bridle "github.com/bridle-dev/bridle"
	"github.com/bridle-dev/bridle/internal/otelsetup"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/sandbox"
)

//go:embed instructions.md
var instructions string

func main() {
	// The MCP SDK allocates freely per message, so with a small live heap
	// the GC runs every few calls; a higher target trades a few MiB for
	// about a fifth less CPU per call (bench/README.md, "levers").
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gotools-mcp:", err)
		os.Exit(1)
	}
}

const usage = `gotools-mcp serves the Go toolchain over MCP on stdin and stdout.

Usage:
  gotools-mcp [--root DIR] [--sandbox auto|on|off]

Tools: go_check, go_run, go_test, go_doc, go_fmt. Resource: bridle://llms.txt.
Paths the model passes are relative to the root and cannot leave it. The
programs go_run and go_test run are confined with bubblewrap (bwrap) when it
is installed: no network, only the root writable, home folders hidden.

Flags:
`

// run is the whole program: it parses args and serves MCP over stdin and
// stdout until stdin ends or ctx is cancelled.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gotools-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	root := fs.String("root", "", "the project folder the tools may read and run (default: the current folder)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	box := fs.String("sandbox", "auto", "confine the programs go_run and go_test run: auto (when bwrap works here), on (refuse to run code without it) or off")
	printUsage := func(w io.Writer) {
		fmt.Fprint(w, usage)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout)
			return nil
		}
		return fmt.Errorf("%v (see gotools-mcp --help)", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: gotools-mcp takes only flags (see gotools-mcp --help)", fs.Arg(0))
	}
	if *showVersion {
		fmt.Fprintln(stdout, "gotools-mcp", version())
		return nil
	}
	mode, err := sandbox.ParseMode(*box)
	if err != nil {
		return fmt.Errorf("--sandbox: %v (see gotools-mcp --help)", err)
	}
	if *root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("cannot find the current folder: %v; pass --root", err)
		}
		*root = wd
	}
	defer otelsetup.Start(ctx, "gotools-mcp", stderr)()
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	conf := newConfinement(mode)
	s, err := newServer(*root, conf, logger)
	if err != nil {
		return err
	}
	if w := conf.warning(); w != "" {
		fmt.Fprintln(stderr, "gotools-mcp:", w)
	}
	return s.Run(ctx, stdin, stdout)
}

// newServer builds the MCP server for the project at root, whose programs
// run confined as box says.
func newServer(root string, box *confinement, logger *slog.Logger) (*mcp.Server, error) {
	ws, err := newWorkspace(root)
	if err != nil {
		return nil, err
	}
	g := newGotools(ws, box)
	s := mcp.NewServer("gotools", version(), &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       logger,
	})
	s.AddTools(g.checkTool(), g.runTool(), g.testTool(), g.docTool(), g.fmtTool())
	s.AddResources(mcp.Resource{
		URI:         "bridle://llms.txt",
		Name:        "llms.txt",
		Description: "How to write Go against Bridle (llm, tool, mcp, agent): what each package is for, canonical code, common mistakes and the exact error messages.",
		MIMEType:    "text/markdown",
		Read: func(context.Context) (string, error) {
			return bridle.LLMsTxt(), nil
		},
	})
	return s, nil
}

// gotools holds what the tools share: the workspace, the sandbox, and the
// installed go version, read once when first needed.
type gotools struct {
	ws        workspace
	box       *confinement
	goVersion func() (string, error)
}

func newGotools(ws workspace, box *confinement) *gotools {
	return &gotools{ws: ws, box: box, goVersion: sync.OnceValues(installedGoVersion)}
}

// version is the module version the binary was built from, or "devel".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
