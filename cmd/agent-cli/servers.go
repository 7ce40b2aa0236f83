package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/internal/childenv"
	"github.com/bridle-dev/bridle/internal/inert"
	"github.com/bridle-dev/bridle/internal/otelsetup"
	"github.com/bridle-dev/bridle/mcp"
)

// connectTimeout bounds the start and handshake of one MCP server.
const connectTimeout = 30 * time.Second

// errGotoolsOff reports GOTOOLS_BIN=off: the person chose to do without.
var errGotoolsOff = errors.New("GOTOOLS_BIN is off")

// findGotools finds the gotools-mcp program: GOTOOLS_BIN, else next to this
// program, else on PATH. It also says where it was found.
func findGotools(getenv func(string) string) (path, from string, err error) {
	if p := getenv("GOTOOLS_BIN"); p != "" {
		if p == "off" {
			return "", "", errGotoolsOff
		}
		return p, "GOTOOLS_BIN", nil
	}
	name := "gotools-mcp"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, "next to agent-cli", nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, "PATH", nil
	}
	return "", "", errors.New("gotools-mcp is neither next to agent-cli nor on PATH: install it with `go install github.com/bridle-dev/bridle/cmd/gotools-mcp@latest`, or set GOTOOLS_BIN")
}

// gotoolsCommand is gotools-mcp on the working folder, with the
// allow-listed environment and the Go toolchain's variables: the code it
// runs for the model never sees the person's keys.
func gotoolsCommand(path, dir string) mcp.Command {
	return mcp.Command{Path: path, Args: []string{"--root", dir}, Dir: dir, EnvNames: childenv.Go, Env: otelsetup.Env()}
}

// connectGotools starts gotools-mcp on the working folder. The server is
// ours, so its tool annotations are believed: go_fmt, which only reports,
// counts as what it says it is.
func connectGotools(ctx context.Context, path, dir string) (*mcp.Session, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	return mcp.ConnectCommand(ctx, "gotools", gotoolsCommand(path, dir), &mcp.ClientOptions{Hints: mcp.HintsTrusted})
}

// connectServers connects gotools-mcp, the servers of --mcp-config, and
// those of the working folder's .mcp.json that the person approves. Only a
// broken --mcp-config file is an error; a server that does not start is a
// warning.
func (s *session) connectServers(ctx context.Context, o *options) error {
	var explicit, servers []mcpServer
	if o.mcpConfig != "" {
		var err error
		if explicit, err = readMCPFile(o.mcpConfig, true); err != nil {
			return err
		}
	}
	project := filepath.Join(s.work.abs, ".mcp.json")
	if _, err := os.Stat(project); err == nil && !sameFile(project, o.mcpConfig) {
		if servers, err = readMCPFile(project, false); err != nil {
			s.ui.warn("%v; its servers are not connected", err)
		}
	}

	// A configured server named gotools takes the built-in one's place,
	// unless it is one of .mcp.json that will be skipped unasked.
	approved := loadApprovals()
	candidates := slices.Clone(explicit)
	for _, sv := range servers {
		if s.ui.interactive || approved.approved(sv) {
			candidates = append(candidates, sv)
		}
	}
	if sv, err := findServer(candidates, builtinGotools); err == nil {
		s.ui.notice("the MCP server %s of %s replaces the built-in gotools-mcp", sv.Name, sv.File)
	} else if path, _, err := findGotools(os.Getenv); err != nil {
		if !errors.Is(err, errGotoolsOff) {
			s.ui.warn("%v; carrying on without the Go tools", err)
		}
	} else if conn, err := connectGotools(ctx, path, s.work.abs); err != nil {
		s.ui.warn("gotools-mcp did not start (%v); carrying on without the Go tools", err)
	} else {
		s.attach(ctx, conn)
	}

	for _, sv := range explicit {
		s.connect(ctx, sv)
	}
	var skipped []string
	for _, sv := range servers {
		switch {
		case approved.approved(sv):
			s.connect(ctx, sv)
		case s.ui.interactive:
			d := s.ui.ask(ctx, s.lines, serverView(sv), fmt.Sprintf("start %s?", s.ui.paint(bold, inert.Line(sv.Name))))
			if d == agent.Always {
				if err := approved.remember(sv); err != nil {
					s.ui.warn("the approval of %s could not be saved: %v", sv.Name, err)
				}
			}
			if d != agent.No {
				s.connect(ctx, sv)
			}
		default:
			skipped = append(skipped, sv.Name)
		}
	}
	if len(skipped) > 0 {
		s.ui.notice("skipped the MCP servers of .mcp.json (%s): they run commands, and there is no terminal to ask; approve them by running agent-cli on a terminal, or pass --mcp-config .mcp.json", strings.Join(skipped, ", "))
	}
	return nil
}

// builtinGotools is the name the built-in gotools-mcp connects under; a
// configured server of that name replaces it.
const builtinGotools = "gotools"

// connect starts or reaches one configured server and hands its tools to
// the agent; a failure is a warning.
func (s *session) connect(ctx context.Context, sv mcpServer) {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	var conn *mcp.Session
	var err error
	if sv.Entry.transport() == "http" {
		var h mcp.HTTP
		if h, err = sv.http(os.Getenv); err == nil {
			conn, err = s.connectHTTP(ctx, sv, h)
		}
	} else {
		var c mcp.Command
		if c, err = sv.command(s.work.abs, os.Getenv); err == nil {
			conn, err = mcp.ConnectCommand(cctx, sv.Name, c, s.clientOptions())
		}
	}
	if err != nil {
		s.ui.warn("MCP server %s did not start: %v", sv.Name, err)
		return
	}
	s.attach(ctx, conn)
}

func (s *session) attach(ctx context.Context, conn *mcp.Session) {
	if err := s.agent.Connect(ctx, conn.Name(), conn); err != nil {
		s.ui.warn("MCP server %s: %v", conn.Name(), err)
		conn.Close()
		return
	}
	s.conns = append(s.conns, conn)
}

// sameFile reports whether a and b name the same existing file.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
