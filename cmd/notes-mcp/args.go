package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// defaultSessionTimeout is how long an HTTP session may stay idle before
// it is closed, unless --session-timeout says otherwise.
const defaultSessionTimeout = 30 * time.Minute

// defaultMaxSessions bounds the HTTP sessions open at once, unless
// --max-sessions says otherwise: past it, the session quiet longest is
// closed to make room.
const defaultMaxSessions = 1000

// config is what the command line and the environment ask for.
type config struct {
	dir   string // the notes folder, absolute
	http  bool   // serve Streamable HTTP rather than stdio
	addr  string // host:port to listen on, with http
	token string // bearer token HTTP clients must send, or ""
	// sessionTimeout closes an HTTP session idle that long; negative
	// means never.
	sessionTimeout time.Duration
	// maxSessions bounds the HTTP sessions open at once; negative means
	// no bound.
	maxSessions int
	help        bool
	version     bool
}

// usageError is a mistake on the command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// parseArgs reads the command line and the environment.
func parseArgs(args []string, getenv func(string) string) (config, error) {
	var cfg config
	fl := flag.NewFlagSet("notes-mcp", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.Usage = func() {}
	dir := fl.String("dir", "", "")
	port := fl.String("http", "", "")
	host := fl.String("addr", "127.0.0.1", "")
	sessionTimeout := fl.Duration("session-timeout", defaultSessionTimeout, "")
	maxSessions := fl.Int("max-sessions", defaultMaxSessions, "")
	fl.BoolVar(&cfg.version, "version", false, "")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			cfg.help = true
			return cfg, nil
		}
		return cfg, usageError{err}
	}
	if fl.NArg() > 0 {
		return cfg, usagef("unexpected argument %q", fl.Arg(0))
	}
	if cfg.version {
		return cfg, nil
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *port == "" {
		for _, name := range []string{"addr", "session-timeout", "max-sessions"} {
			if set[name] {
				return cfg, usagef("--%s only applies with --http PORT", name)
			}
		}
	} else {
		n, err := strconv.Atoi(*port)
		if err != nil || n < 0 || n > 65535 {
			return cfg, usagef("--http wants a port number from 0 to 65535, not %q", *port)
		}
		if *host == "" {
			return cfg, usagef("--addr is empty: give an interface such as 127.0.0.1")
		}
		switch {
		case *sessionTimeout < 0:
			return cfg, usagef("--session-timeout is %v: give a duration such as 30m, or 0 to keep idle sessions", *sessionTimeout)
		case *sessionTimeout == 0:
			cfg.sessionTimeout = -1
		default:
			cfg.sessionTimeout = *sessionTimeout
		}
		switch {
		case *maxSessions < 0:
			return cfg, usagef("--max-sessions is %d: give a number of sessions, or 0 for no bound", *maxSessions)
		case *maxSessions == 0:
			cfg.maxSessions = -1
		default:
			cfg.maxSessions = *maxSessions
		}
		cfg.http = true
		cfg.addr = net.JoinHostPort(*host, *port)
		cfg.token = getenv("NOTES_MCP_TOKEN")
		if cfg.token == "" && !loopback(*host) {
			return cfg, usagef("refusing to serve the notes on %s without a token: set NOTES_MCP_TOKEN, or listen on 127.0.0.1", *host)
		}
	}
	var err error
	if cfg.dir, err = notesDir(*dir, getenv); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// loopback reports whether host names this machine only.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

const usage = `notes-mcp: an MCP server over a folder of Markdown notes.

Usage:
  notes-mcp [--dir DIR]                            serve over stdin and stdout
  notes-mcp [--dir DIR] --http PORT [--addr ADDR] [--session-timeout D] [--max-sessions N]
                                                   serve Streamable HTTP at http://ADDR:PORT/mcp

Flags:
  --dir DIR     the notes folder (default: $NOTES_DIR, else $XDG_DATA_HOME/notes-mcp
                or ~/.local/share/notes-mcp); created when missing
  --http PORT   serve Streamable HTTP on PORT instead of stdio (0 picks a free port)
  --addr ADDR   the interface to listen on with --http (default 127.0.0.1)
  --session-timeout D
                with --http: close a session idle for D (default 30m; 0 never)
  --max-sessions N
                with --http: keep at most N sessions open, closing the one quiet
                longest to make room (default 1000; 0 no bound)
  --help        show this help
  --version     print the version

Environment:
  NOTES_DIR        the notes folder, when --dir is not given
  NOTES_MCP_TOKEN  with --http: the bearer token every client must send
                   (required when ADDR is not a loopback address)

Each note is a file "<title>.md" in the folder. Titles are 1 to 80 letters,
digits, spaces, dashes and underscores. Tools: search_notes, read_note,
add_note, append_to_note, edit_note, rename_note, delete_note; resource
notes://index. More at https://github.com/bridle-dev/bridle/blob/main/docs/notes-mcp.md
`

func writeUsage(w io.Writer) error {
	_, err := io.WriteString(w, usage)
	return err
}
