package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// redirectPage is what the browser shows once the login is over.
const redirectPage = `<!doctype html><meta charset="utf-8"><title>%s</title><p>%s</p>`

// serveRedirect serves the OAuth redirect on ln until the answer to the
// login whose state is state arrives. The wait function it returns blocks
// until then, or until ctx ends; called with a nil ctx it only stops
// serving. Requests with another state are refused and waited past: they
// are not the answer to this login.
func serveRedirect(ln net.Listener, state string) (wait func(ctx context.Context) (*auth.AuthorizationResult, error)) {
	type answer struct {
		res *auth.AuthorizationResult
		err error
	}
	answers := make(chan answer, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("state") != state {
			http.Error(w, "this is not the answer to the login in progress", http.StatusBadRequest)
			return
		}
		var a answer
		switch {
		case q.Get("error") != "":
			a.err = fmt.Errorf("the authorization server refused the login: %s%s", q.Get("error"), describe(q.Get("error_description")))
		case q.Get("code") == "":
			a.err = errors.New("the authorization server sent no code back")
		default:
			a.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		}
		select {
		case answers <- a:
		default:
			http.Error(w, "the login is already over", http.StatusConflict)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if a.err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, redirectPage, "Login failed", "The login failed. Return to the terminal to see why.")
			return
		}
		fmt.Fprintf(w, redirectPage, "Logged in", "Logged in. You can close this tab and return to the terminal.")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
		<-served
	}
	return func(ctx context.Context) (*auth.AuthorizationResult, error) {
		defer stop()
		if ctx == nil {
			return nil, nil
		}
		select {
		case a := <-answers:
			return a.res, a.err
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the login to finish in the browser: %w", ctx.Err())
		}
	}
}

// describe quotes an authorization server's error description, which is
// text from elsewhere, for an error message.
func describe(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return fmt.Sprintf(" (%q)", s)
}

// ErrNoBrowser is returned by [OpenBrowser] when there is no browser to
// open: no graphical session, or no program to open URLs with.
var ErrNoBrowser = errors.New("no browser to open")

// CheckURL returns an error unless s is an absolute http or https URL with
// a host and without spaces or control characters: a URL that is safe to
// hand to a browser or show on a terminal.
func CheckURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http or https URL", s)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || (r >= 0x80 && r <= 0x9f) }) {
		return fmt.Errorf("the URL %q holds spaces or control characters", s)
	}
	return nil
}

// OpenBrowser opens rawURL in the person's browser: with open on macOS,
// xdg-open on Linux and the BSDs when a graphical session is running, and
// the URL handler on Windows. The URL must pass [CheckURL]; it is given to
// the program as one argument, never through a shell. It returns an error
// wrapping [ErrNoBrowser] when there is nothing to open it with, so that
// the caller can show the URL instead.
func OpenBrowser(ctx context.Context, rawURL string) error {
	if err := CheckURL(rawURL); err != nil {
		return err
	}
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return fmt.Errorf("%w: no graphical session (DISPLAY and WAYLAND_DISPLAY are unset)", ErrNoBrowser)
		}
		name = "xdg-open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("%w: %s is not installed", ErrNoBrowser, name)
	}
	cmd := exec.CommandContext(ctx, path, append(args, rawURL)...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s failed: %v", ErrNoBrowser, name, err)
	}
	return nil
}
