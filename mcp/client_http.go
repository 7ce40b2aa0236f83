package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/bridle-dev/bridle/internal/redact"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTP is an MCP server reached over Streamable HTTP.
type HTTP struct {
	// URL is the server's MCP endpoint, such as http://127.0.0.1:8080/mcp.
	URL string
	// Token, when set, is sent as "Authorization: Bearer <Token>" with
	// every request. It never appears in errors or logs.
	Token string
	// Headers are added to every request. They do not replace the headers
	// the protocol itself sets (Accept, Content-Type, Mcp-Session-Id, …);
	// Token replaces an Authorization header given here.
	Headers http.Header
	// Client makes the requests; nil means http.DefaultClient. Its
	// Transport is wrapped, not changed.
	Client *http.Client
	// OAuth, when set, answers the server's request for authorization with
	// an OAuth login (see [OAuth]); nil means the server's 401 is an error
	// wrapping [ErrUnauthorized]. It cannot be used with Token.
	OAuth *OAuth
}

// ErrUnauthorized is wrapped by the error a [Session] returns when the
// server answers 401 Unauthorized: the bearer token is missing or was
// refused.
var ErrUnauthorized = errors.New("mcp: unauthorized")

// authError reports a 401 without the token that caused it.
type authError struct{ hadToken bool }

func (e *authError) Error() string {
	if e.hadToken {
		return "the server refused the bearer token (HTTP 401 Unauthorized): check that HTTP.Token is the token this server expects"
	}
	return "the server requires authorization (HTTP 401 Unauthorized): set HTTP.Token to its bearer token"
}

func (e *authError) Is(target error) bool { return target == ErrUnauthorized }

// ConnectHTTP runs the MCP handshake with the server at h.URL. ctx bounds
// the handshake; the session lasts until [Session.Close]. A server that
// refuses the token gives an error wrapping [ErrUnauthorized].
func ConnectHTTP(ctx context.Context, name string, h HTTP, opts *ClientOptions) (*Session, error) {
	o, err := settle(name, opts)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("mcp server %q: URL %q is not an http or https URL: give the server's MCP endpoint, such as http://127.0.0.1:8080/mcp", name, redact.URL(h.URL))
	}
	base := h.Client
	if base == nil {
		base = http.DefaultClient
	}
	client := *base
	rt := client.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	client.Transport = &authTransport{base: rt, token: h.Token, headers: h.Headers, oauth: h.OAuth != nil}
	t := &sdk.StreamableClientTransport{Endpoint: h.URL, HTTPClient: &client}
	if h.OAuth != nil {
		if h.Token != "" {
			return nil, fmt.Errorf("mcp server %q: both HTTP.Token and HTTP.OAuth are set: use one", name)
		}
		oh, err := newOAuthHandler(*h.OAuth, h.URL, base, o.Logger)
		if err != nil {
			return nil, fmt.Errorf("mcp server %q: %w", name, err)
		}
		t.OAuthHandler = oh
	}
	shown := redact.URL(h.URL)
	s, err := connect(ctx, name, t, o)
	if err != nil {
		if ae := authFailure(err); ae != nil {
			return nil, fmt.Errorf("mcp server %q: %w", name, ae)
		}
		return nil, fmt.Errorf("mcp server %q: connecting to %s: %w", name, shown, redact.Error(err, h.URL))
	}
	if shown != h.URL {
		s.redact = func(err error) error { return redact.Error(err, h.URL) }
	}
	return s, nil
}

// authFailure returns the error that says why the server refused
// authorization, when that is what err comes from, else nil.
func authFailure(err error) error {
	var ae *authError
	if errors.As(err, &ae) {
		return ae
	}
	var le *loginRequiredError
	if errors.As(err, &le) {
		return le
	}
	return nil
}

// authTransport adds the token and the caller's headers to each request
// and turns a 401 into an error that says what to fix; with oauth set the
// 401 goes on to the SDK, which starts a login.
type authTransport struct {
	base    http.RoundTripper
	token   string
	headers http.Header
	oauth   bool
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// A RoundTripper must not change the request it was given.
	r := req.Clone(req.Context())
	for k, vs := range t.headers {
		if _, set := r.Header[http.CanonicalHeaderKey(k)]; set {
			continue
		}
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	if t.token != "" {
		r.Header.Set("Authorization", "Bearer "+t.token)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized && !t.oauth {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return nil, &authError{hadToken: r.Header.Get("Authorization") != ""}
	}
	return resp, nil
}
