package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bridle-dev/bridle/internal/inert"
	"github.com/bridle-dev/bridle/internal/redact"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
)

// mcpEntry is one server of a .mcp.json file, Claude Code's project format:
//
//	{"mcpServers": {
//	  "files": {"command": "npx", "args": ["-y", "@scope/server"], "env": {"TOKEN": "${TOKEN}"}},
//	  "docs":  {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
//	}}
//
// ${VAR} and ${VAR:-default} in the command, arguments, environment, URL
// and headers are replaced from the environment when the server starts.
type mcpEntry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	OAuth   *mcpOAuth         `json:"oauth,omitempty"`
}

// mcpServer is a server to connect, with where it came from.
type mcpServer struct {
	Name     string
	Entry    mcpEntry
	File     string // the absolute path of the file naming it
	Explicit bool   // given with --mcp-config, so connected without asking
}

// readMCPFile reads a .mcp.json file. Servers come back sorted by name.
func readMCPFile(file string, explicit bool) ([]mcpServer, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("MCP config %s does not exist", file)
		}
		return nil, fmt.Errorf("MCP config %s: %v", file, unwrapPathError(err))
	}
	var f struct {
		MCPServers map[string]mcpEntry `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("MCP config %s is not valid: %v (the format is {\"mcpServers\": {\"name\": {\"command\": ..., \"args\": [...]}}})", file, err)
	}
	var out []mcpServer
	for name, e := range f.MCPServers {
		if err := tool.CheckName(name); err != nil {
			return nil, fmt.Errorf("MCP config %s: server name %q: use only letters, digits, '_' and '-'", file, name)
		}
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("MCP config %s: server %q: %v", file, name, err)
		}
		out = append(out, mcpServer{Name: name, Entry: e, File: abs, Explicit: explicit})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (e mcpEntry) transport() string {
	if e.Type == "" {
		if e.URL != "" && e.Command == "" {
			return "http"
		}
		return "stdio"
	}
	return e.Type
}

func (e mcpEntry) check() error {
	switch e.transport() {
	case "stdio":
		if e.Command == "" {
			return errors.New("no \"command\": give the program to run, or \"type\": \"http\" and a \"url\"")
		}
	case "http":
		if e.URL == "" {
			return errors.New("no \"url\" for an http server")
		}
		if e.OAuth != nil {
			return e.OAuth.check()
		}
	case "sse":
		return errors.New("the SSE transport is not supported: use the server's Streamable HTTP endpoint with \"type\": \"http\"")
	default:
		return fmt.Errorf("unknown type %q: use \"stdio\" or \"http\"", e.Type)
	}
	return nil
}

// describe says what starting the server does, on one line made inert,
// without the values of its environment or headers, which may hold
// secrets, and with the URL's secrets masked, but naming the variables of
// the person's environment those values and the URL take.
func (e mcpEntry) describe() string {
	if e.transport() == "http" {
		s := "connect to " + inert.Line(redact.URL(e.URL))
		if len(e.Headers) > 0 {
			s += " with headers " + inert.Line(strings.Join(keys(e.Headers), ", "))
		}
		return s + e.passedNote()
	}
	s := "run " + commandLine(e.Command, e.Args)
	if len(e.Env) > 0 {
		s += " with " + inert.Line(strings.Join(keys(e.Env), ", ")) + " set"
	}
	return s + e.passedNote()
}

// commandLine shows a command and its arguments as a shell would take
// them, each word quoted when it holds a space or a quote, made inert.
func commandLine(command string, args []string) string {
	words := make([]string, 0, len(args)+1)
	for _, w := range append([]string{command}, args...) {
		if w == "" || strings.ContainsFunc(w, func(r rune) bool { return r <= ' ' || strings.ContainsRune("\"'\\$`;&|<>(){}*?#~", r) }) {
			w = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(w) + `"`
		}
		words = append(words, inert.Line(w))
	}
	return strings.Join(words, " ")
}

// serverView shows a .mcp.json entry before the person approves it: what
// it runs (each word quoted as a shell would need it) or reaches, and the
// names of the variables and headers it sets.
func serverView(sv mcpServer) *view {
	return &view{sections: []section{{head: ".mcp.json server " + inert.Line(sv.Name) + ": " + sv.Entry.describe()}}}
}

func keys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// fingerprint identifies an entry as written, so that an approval ends
// when the entry changes.
func (s mcpServer) fingerprint() string {
	data, _ := json.Marshal(s.Entry)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// expand replaces ${VAR} and ${VAR:-default} in s. Missing variables
// without a default are reported by name.
func expand(s string, getenv func(string) string, missing *[]string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		name, def, hasDef := strings.Cut(s[i+2:i+j], ":-")
		switch v := getenv(name); {
		case v != "":
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			*missing = append(*missing, name)
		}
		s = s[i+j+1:]
	}
}

// command is the stdio server to start, with variables replaced.
func (s mcpServer) command(dir string, getenv func(string) string) (mcp.Command, error) {
	var missing []string
	c := mcp.Command{Path: expand(s.Entry.Command, getenv, &missing), Dir: dir}
	for _, a := range s.Entry.Args {
		c.Args = append(c.Args, expand(a, getenv, &missing))
	}
	for _, k := range keys(s.Entry.Env) {
		c.Env = append(c.Env, k+"="+expand(s.Entry.Env[k], getenv, &missing))
	}
	return c, missingError(missing)
}

// http is the HTTP server to reach, with variables replaced.
func (s mcpServer) http(getenv func(string) string) (mcp.HTTP, error) {
	var missing []string
	h := mcp.HTTP{URL: expand(s.Entry.URL, getenv, &missing)}
	if len(s.Entry.Headers) > 0 {
		h.Headers = http.Header{}
		for _, k := range keys(s.Entry.Headers) {
			h.Headers.Set(k, expand(s.Entry.Headers[k], getenv, &missing))
		}
	}
	return h, missingError(missing)
}

func missingError(names []string) error {
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("set %s: the server's configuration uses it", strings.Join(names, ", "))
}

// approvals remembers the .mcp.json servers the person approved for good,
// by file and name, with the fingerprint of the entry approved. It lives in
// the user's configuration folder and holds no secrets.
type approvals struct {
	path  string
	Files map[string]map[string]string `json:"files"`
}

func approvalsPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "agent-cli", "mcp-approvals.json"), nil
}

// loadApprovals reads the approvals; a missing or unreadable file means
// none.
func loadApprovals() *approvals {
	a := &approvals{Files: map[string]map[string]string{}}
	p, err := approvalsPath()
	if err != nil {
		return a
	}
	a.path = p
	if data, err := os.ReadFile(p); err == nil {
		json.Unmarshal(data, a)
		if a.Files == nil {
			a.Files = map[string]map[string]string{}
		}
	}
	return a
}

func (a *approvals) approved(s mcpServer) bool {
	return a.Files[s.File][s.Name] == s.fingerprint()
}

// remember records s as approved and saves the file atomically.
func (a *approvals) remember(s mcpServer) error {
	if a.path == "" {
		return errors.New("there is no configuration folder to remember the approval in")
	}
	if a.Files[s.File] == nil {
		a.Files[s.File] = map[string]string{}
	}
	a.Files[s.File][s.Name] = s.fingerprint()
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(a.path, ".mcp-approvals-*", append(data, '\n'))
}
