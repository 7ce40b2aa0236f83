package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/internal/inert"
	"github.com/bridle-dev/bridle/mcp"
)

const mcpUsage = `usage: agent-cli mcp list | agent-cli mcp login NAME | agent-cli mcp logout NAME

  list          the configured MCP servers: transport, whether the server asks
                for an OAuth login, and whether a token is stored (never the token)
  login NAME    log in to an http server through the browser; the token goes
                to the keychain (or, with AGENT_MCP_TOKENS=file, to a file of
                your configuration folder)
  logout NAME   forget the server's token

The servers are those of the working folder's .mcp.json and of --mcp-config;
--dir and --mcp-config work as for a question.`

// loginTimeout bounds a login in the browser.
const loginTimeout = 5 * time.Minute

// probeTimeout bounds the look at each server that mcp list takes.
const probeTimeout = 10 * time.Second

// mcpDeps are what the mcp subcommand takes from outside.
type mcpDeps struct {
	getenv func(string) string
	// browse opens a URL in the person's browser, such as mcp.OpenBrowser.
	browse func(ctx context.Context, url string) error
}

// mcpCommand runs agent-cli mcp list, login and logout.
func mcpCommand(ctx context.Context, args []string, stdout, stderr io.Writer, d mcpDeps) error {
	o, err := parseArgs("agent-cli mcp", args, io.Discard, false)
	if errors.Is(err, flag.ErrHelp) || (err == nil && len(o.args) == 1 && (o.args[0] == "help")) {
		fmt.Fprintln(stdout, mcpUsage)
		return nil
	}
	if err != nil {
		return err
	}
	servers, err := configuredServers(o)
	if err != nil {
		return err
	}
	switch {
	case len(o.args) == 1 && o.args[0] == "list":
		return mcpList(ctx, servers, stdout, d)
	case len(o.args) == 2 && o.args[0] == "login":
		sv, err := findServer(servers, o.args[1])
		if err != nil {
			return err
		}
		return mcpLogin(ctx, sv, stderr, d)
	case len(o.args) == 2 && o.args[0] == "logout":
		sv, err := findServer(servers, o.args[1])
		if err != nil {
			return err
		}
		return mcpLogout(ctx, sv, stderr, d)
	}
	return errors.New(mcpUsage)
}

// configuredServers reads --mcp-config and the working folder's .mcp.json;
// a name in both is the one of --mcp-config.
func configuredServers(o *options) ([]mcpServer, error) {
	var all []mcpServer
	seen := map[string]bool{}
	if o.mcpConfig != "" {
		servers, err := readMCPFile(o.mcpConfig, true)
		if err != nil {
			return nil, err
		}
		for _, sv := range servers {
			seen[sv.Name] = true
			all = append(all, sv)
		}
	}
	project := filepath.Join(o.dir, ".mcp.json")
	if _, err := os.Stat(project); err == nil && !sameFile(project, o.mcpConfig) {
		servers, err := readMCPFile(project, false)
		if err != nil {
			return nil, err
		}
		for _, sv := range servers {
			if !seen[sv.Name] {
				all = append(all, sv)
			}
		}
	}
	return all, nil
}

func findServer(servers []mcpServer, name string) (mcpServer, error) {
	var names []string
	for _, sv := range servers {
		if sv.Name == name {
			return sv, nil
		}
		names = append(names, sv.Name)
	}
	if len(names) == 0 {
		return mcpServer{}, fmt.Errorf("no MCP server named %q: there is no .mcp.json in the working folder and no --mcp-config", name)
	}
	return mcpServer{}, fmt.Errorf("no MCP server named %q: the configured servers are %s", name, strings.Join(names, ", "))
}

// hasAuthHeader reports whether the entry sends its own Authorization
// header, in which case it does not use OAuth.
func hasAuthHeader(h mcp.HTTP) bool { return h.Headers.Get("Authorization") != "" }

// oauthServer returns the HTTP settings of sv for an OAuth login, or an
// error saying why sv does not log in.
func oauthServer(sv mcpServer, getenv func(string) string) (mcp.HTTP, error) {
	if sv.Entry.transport() != "http" {
		return mcp.HTTP{}, fmt.Errorf("MCP server %s runs a command (stdio): logins are for http servers", sv.Name)
	}
	h, err := sv.http(getenv)
	if err != nil {
		return h, fmt.Errorf("MCP server %s: %v", sv.Name, err)
	}
	if hasAuthHeader(h) {
		return h, fmt.Errorf("MCP server %s sends its own Authorization header (in %s): it does not use OAuth", sv.Name, sv.File)
	}
	return h, nil
}

// mcpOAuth is an http entry's "oauth" object, for an authorization server
// that wants a client registered beforehand:
//
//	"oauth": {"clientId": "agent-cli-1234", "callbackPort": 8765}
type mcpOAuth struct {
	ClientID     string `json:"clientId,omitempty"`
	CallbackPort int    `json:"callbackPort,omitempty"`
}

func (o *mcpOAuth) check() error {
	if o.CallbackPort < 0 || o.CallbackPort > 65535 {
		return fmt.Errorf("\"oauth\": callbackPort %d is not a port: give 1 to 65535, or leave it out for a random one", o.CallbackPort)
	}
	return nil
}

// oauthFor returns the OAuth settings of sv, with the entry's client.
func oauthFor(sv mcpServer, store mcp.TokenStore) *mcp.OAuth {
	o := &mcp.OAuth{Store: store, ClientName: "agent-cli", LoginHint: loginHint(sv.Name)}
	if e := sv.Entry.OAuth; e != nil {
		o.ClientID, o.RedirectPort = e.ClientID, e.CallbackPort
	}
	return o
}

func loginHint(name string) string {
	return "run `agent-cli mcp login " + name + "`"
}

// mcpLogin logs in afresh, whatever token is stored, and stores the new
// one.
func mcpLogin(ctx context.Context, sv mcpServer, stderr io.Writer, d mcpDeps) error {
	h, err := oauthServer(sv, d.getenv)
	if err != nil {
		return err
	}
	store, err := openTokens(d.getenv)
	if err != nil {
		return err
	}
	fresh := &freshStore{tokenStore: store}
	h.OAuth = oauthFor(sv, fresh)
	h.OAuth.Open = openAuthURL(stderr, sv.Name, d.browse)
	ctx, cancel := context.WithTimeout(ctx, loginTimeout)
	defer cancel()
	conn, err := mcp.ConnectHTTP(ctx, sv.Name, h, nil)
	if err != nil {
		return err
	}
	conn.Close()
	t, err := fresh.result()
	switch {
	case err != nil:
		return fmt.Errorf("logged in to %s, but the token could not be stored: %w", sv.Name, err)
	case t == nil:
		fmt.Fprintf(stderr, "%s did not ask for a login: it needs no token\n", sv.Name)
		return nil
	}
	fmt.Fprintf(stderr, "logged in to %s; the token is in %s%s\n", sv.Name, store.where(), until(t))
	return nil
}

// until says how long a token lasts, for messages.
func until(t *mcp.Token) string {
	s := ""
	if !t.Expiry.IsZero() {
		s = ", valid until " + t.Expiry.Local().Format("2006-01-02 15:04 MST")
	}
	if t.RefreshToken != "" {
		s += " (renewed without asking)"
	}
	return s
}

// freshStore hides the stored token, so that a login happens, and notes
// what the login saves.
type freshStore struct {
	tokenStore
	mu    sync.Mutex
	saved *mcp.Token
	err   error
}

func (f *freshStore) LoadToken(context.Context, string) (*mcp.Token, error) { return nil, nil }

func (f *freshStore) SaveToken(ctx context.Context, t *mcp.Token) error {
	err := f.tokenStore.SaveToken(ctx, t)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.saved, f.err = t, err
	return err
}

func (f *freshStore) result() (*mcp.Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.saved, f.err
}

func mcpLogout(ctx context.Context, sv mcpServer, stderr io.Writer, d mcpDeps) error {
	if sv.Entry.transport() != "http" {
		return fmt.Errorf("MCP server %s runs a command (stdio): it has no login", sv.Name)
	}
	h, err := sv.http(d.getenv)
	if err != nil {
		return fmt.Errorf("MCP server %s: %v", sv.Name, err)
	}
	store, err := openTokens(d.getenv)
	if err != nil {
		return err
	}
	ok, err := store.DeleteToken(ctx, h.URL)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintf(stderr, "no token is stored for %s\n", sv.Name)
		return nil
	}
	fmt.Fprintf(stderr, "logged out of %s: its token is gone from %s\n", sv.Name, store.where())
	return nil
}

// mcpList shows each server and its login state, looking at the http
// servers (at the same time) to see whether they ask for a login.
func mcpList(ctx context.Context, servers []mcpServer, stdout io.Writer, d mcpDeps) error {
	if len(servers) == 0 {
		fmt.Fprintln(stdout, "no MCP servers: there is no .mcp.json in the working folder and no --mcp-config")
		return nil
	}
	store, storeErr := openTokens(d.getenv)
	rows := make([][4]string, len(servers))
	var wg sync.WaitGroup
	for i, sv := range servers {
		rows[i] = [4]string{sv.Name, sv.Entry.transport(), "-", "-"}
		if sv.Entry.transport() != "http" {
			continue
		}
		h, err := sv.http(d.getenv)
		switch {
		case err != nil:
			rows[i][2] = "unknown: " + err.Error()
			continue
		case hasAuthHeader(h):
			rows[i][2] = "no: sends its own Authorization header"
			continue
		}
		rows[i][3] = tokenState(ctx, store, storeErr, h.URL, sv.Name)
		wg.Go(func() { rows[i][2] = probeLogin(ctx, sv.Name, h) })
	}
	wg.Wait()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tLOGIN\tTOKEN")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r[0], r[1], inert.Line(r[2]), r[3])
	}
	return tw.Flush()
}

// probeLogin connects to the server without a token to see whether it
// asks for one.
func probeLogin(ctx context.Context, name string, h mcp.HTTP) string {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	h.OAuth = &mcp.OAuth{}
	conn, err := mcp.ConnectHTTP(ctx, name, h, nil)
	switch {
	case err == nil:
		conn.Close()
		return "not needed"
	case errors.Is(err, mcp.ErrLoginRequired):
		return "OAuth"
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return "unreachable: " + oe.Err.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "unreachable: no answer in " + probeTimeout.String()
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return "unknown: " + clip.String(msg, 80)
}

// tokenState says whether a token is stored and until when; never the
// token.
func tokenState(ctx context.Context, store tokenStore, storeErr error, resource, name string) string {
	if storeErr != nil {
		return "unknown: " + storeErr.Error()
	}
	t, err := store.LoadToken(ctx, resource)
	switch {
	case err != nil:
		return "unknown: " + err.Error()
	case t == nil:
		return "none"
	case t.Expiry.IsZero():
		return "stored"
	case t.Expiry.After(time.Now()):
		return "stored, valid until " + t.Expiry.Local().Format("2006-01-02 15:04 MST")
	case t.RefreshToken != "":
		return "stored, expired (renewed on next use)"
	}
	return "expired: " + loginHint(name)
}

// openAuthURL shows the authorization URL on w and opens it with browse;
// when there is no browser, the person opens the URL shown.
func openAuthURL(w io.Writer, name string, browse func(ctx context.Context, url string) error) func(ctx context.Context, url string) error {
	return func(ctx context.Context, url string) error {
		if err := mcp.CheckURL(url); err != nil {
			return err
		}
		fmt.Fprintf(w, "log in to %s in your browser:\n  %s\n", name, inert.Line(url))
		if err := browse(ctx, url); err != nil {
			fmt.Fprintf(w, "(%v: open the URL yourself)\n", err)
		}
		return nil
	}
}

// httpOptions are the settings of a configured http server for a
// session: OAuth when it sends no Authorization header of its own, with
// the person's browser on a terminal; elicitation always.
func (s *session) httpOptions(sv mcpServer, h *mcp.HTTP) (timeout time.Duration, err error) {
	timeout = connectTimeout
	if hasAuthHeader(*h) {
		return timeout, nil
	}
	store, err := openTokens(os.Getenv)
	if err != nil {
		return timeout, err
	}
	h.OAuth = oauthFor(sv, warningStore{tokenStore: store, name: sv.Name, warn: s.ui.warn})
	if s.ui.interactive {
		browse := s.browse
		if browse == nil {
			browse = mcp.OpenBrowser
		}
		h.OAuth.Open = openAuthURL(lockedWriter{s.ui}, sv.Name, browse)
		timeout = loginTimeout
	}
	return timeout, nil
}

// connectHTTP reaches one configured http server.
func (s *session) connectHTTP(ctx context.Context, sv mcpServer, h mcp.HTTP) (*mcp.Session, error) {
	timeout, err := s.httpOptions(sv, &h)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return mcp.ConnectHTTP(ctx, sv.Name, h, s.clientOptions())
}

// lockedWriter writes on the activity stream between other activity
// lines.
type lockedWriter struct{ u *ui }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.u.mu.Lock()
	defer w.u.mu.Unlock()
	w.u.stopSpinLocked()
	w.u.breakLineLocked()
	return w.u.err.Write(p)
}

// warningStore tells the person when a token cannot be read or stored;
// the session goes on without (package mcp then asks for a login).
type warningStore struct {
	tokenStore
	name string
	warn func(format string, args ...any)
}

func (w warningStore) LoadToken(ctx context.Context, resource string) (*mcp.Token, error) {
	t, err := w.tokenStore.LoadToken(ctx, resource)
	if err != nil {
		w.warn("MCP server %s: its login could not be read from %s: %v", w.name, w.where(), err)
	}
	return t, err
}

func (w warningStore) SaveToken(ctx context.Context, t *mcp.Token) error {
	err := w.tokenStore.SaveToken(ctx, t)
	if err != nil {
		w.warn("MCP server %s: its login could not be kept in %s (%v); it lasts for this run only", w.name, w.where(), err)
	}
	return err
}
