package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/bridle-dev/bridle/internal/redact"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// OAuth lets a session reach a server that asks for OAuth authorization,
// as hosted MCP servers do. Set it on [HTTP.OAuth].
//
// The official SDK runs the authorization flow itself: protected resource
// metadata, authorization server discovery (OAuth and OpenID Connect),
// client registration (a Client ID Metadata Document first, then a
// pre-registered client, then dynamic registration), PKCE, the RFC 8707
// resource parameter, the RFC 9207 issuer check, scopes from
// WWW-Authenticate with step-up, and token refresh. What it leaves to the
// application is here: a redirect listener on 127.0.0.1 with a random port
// that checks the state it receives, showing the authorization URL to the
// person ([OAuth.Open], [OpenBrowser]), and keeping tokens between runs
// ([TokenStore]).
//
// A session sends no Authorization header until the server asks: a stored
// token is sent when there is one, refreshed without asking when it has
// expired, and the person is sent to log in (through Open) when there is
// none, when the refresh is refused, or when the server refuses the token.
type OAuth struct {
	// Store keeps tokens between sessions, by resource (the server's
	// URL). Nil means tokens last as long as the session.
	Store TokenStore
	// Open shows the person the authorization URL, such as with
	// [OpenBrowser], and returns; the session then waits for the
	// authorization server to send the browser back. Nil means no one can
	// log in: a session that needs a login fails with an error wrapping
	// [ErrLoginRequired].
	Open func(ctx context.Context, authURL string) error
	// ClientName is the name the client registers under with dynamic
	// registration, which the authorization server shows when it asks the
	// person; "" means "Bridle".
	ClientName string
	// ClientID, with ClientSecret for a confidential client, is a client
	// registered with the authorization server beforehand. Empty means none:
	// the client registers itself.
	ClientID string
	// ClientSecret is ClientID's secret; "" for a public client.
	ClientSecret string
	// ClientMetadataURL is the https URL of a Client ID Metadata Document
	// describing this client, used as its client ID by authorization
	// servers that support them. "" means none.
	ClientMetadataURL string
	// RedirectPort is the loopback port the authorization server sends
	// the browser back to; 0 means a random free port, which suits
	// dynamically registered clients. A pre-registered client may need
	// the port it was registered with.
	RedirectPort int
	// Client makes the requests to the authorization server; nil means
	// [HTTP.Client], or http.DefaultClient.
	Client *http.Client
	// LoginHint ends the error of a session that needs a login while Open
	// is nil: how the person can log in, such as "run `agent-cli mcp login
	// notes`". "" means a general hint.
	LoginHint string
}

// ErrLoginRequired is wrapped by the error a session returns when the
// server wants an OAuth login and [OAuth.Open] is nil, so no one can log in.
var ErrLoginRequired = errors.New("mcp: the server requires an OAuth login")

// loginRequiredError says which server wants a login, and how to give it.
type loginRequiredError struct{ resource, hint string }

func (e *loginRequiredError) Error() string {
	hint := e.hint
	if hint == "" {
		hint = "log in where a browser can be opened, or store a token"
	}
	return fmt.Sprintf("the server at %s requires an OAuth login: %s", e.resource, hint)
}

func (e *loginRequiredError) Is(target error) bool { return target == ErrLoginRequired }

// oauthHandler is the session's auth.OAuthHandler. The SDK's own handler
// runs each login; it is made at the first login, once the redirect port is
// known, and kept so that a later step-up adds to the scopes granted.
type oauthHandler struct {
	o        OAuth
	resource string
	shown    string // resource with its secrets masked, for messages
	client   *http.Client
	logger   *slog.Logger
	issuers  *issuerWatch

	mu   sync.Mutex // held for a whole login: one at a time
	sdk  *auth.AuthorizationCodeHandler
	port int
	ln   net.Listener
	// src gives the current token; nil until one is loaded or granted.
	src *storedSource
	// loaded is set once the store has been asked.
	loaded bool
}

func newOAuthHandler(o OAuth, resource string, base *http.Client, logger *slog.Logger) (*oauthHandler, error) {
	if o.ClientSecret != "" && o.ClientID == "" {
		return nil, errors.New("OAuth.ClientSecret is set without OAuth.ClientID: give the client ID it belongs to")
	}
	if o.RedirectPort < 0 || o.RedirectPort > 65535 {
		return nil, fmt.Errorf("OAuth.RedirectPort %d is not a port: use 0 for a random one, or 1 to 65535", o.RedirectPort)
	}
	if o.ClientMetadataURL != "" {
		if u, err := url.Parse(o.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Path == "" || u.Path == "/" {
			return nil, fmt.Errorf("OAuth.ClientMetadataURL %q is not an https URL with a path: give the URL of the client's metadata document", o.ClientMetadataURL)
		}
	}
	if o.ClientName == "" {
		o.ClientName = "Bridle"
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := o.Client
	if c == nil {
		c = base
	}
	ru, err := url.Parse(resource)
	if err != nil {
		return nil, err
	}
	w := &issuerWatch{origin: origin(ru)}
	cc := *c
	rt := cc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	w.base = rt
	cc.Transport = w
	return &oauthHandler{o: o, resource: resource, shown: redact.URL(ru.String()), client: &cc, logger: logger, issuers: w}, nil
}

// TokenSource returns the token to send, from the store the first time.
// Before any token is known it returns nil: the request goes without one,
// and the server's 401 starts a login.
func (h *oauthHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.loaded && h.o.Store != nil {
		h.loaded = true
		t, err := h.o.Store.LoadToken(ctx, h.resource)
		if err != nil {
			// Go without: a server that needs no token still works, and one
			// that does asks for a login.
			h.logger.Warn("mcp oauth token could not be loaded", "resource", h.shown, "error", err)
		}
		if err == nil && t != nil && t.AccessToken != "" {
			h.src = h.newSource(t, oauth2.ReuseTokenSource(t.oauth2(), t.config().TokenSource(h.refreshContext(), t.oauth2())))
		}
	}
	if h.src == nil {
		return nil, nil
	}
	return h.src, nil
}

// refreshContext is the context the oauth2 package keeps for refreshes:
// it outlives any one request, and carries the client to use.
func (h *oauthHandler) refreshContext() context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, h.client)
}

// Authorize runs a login, after the server answered 401 (or 403 asking for
// more scope) to req.
func (h *oauthHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if resp.StatusCode == http.StatusUnauthorized && h.src != nil && h.src.refreshNow(req) {
		// The server refused a token that had not yet expired here: a
		// refreshed one may do, without asking anyone.
		drain(resp)
		return nil
	}
	if h.o.Open == nil {
		drain(resp)
		if resp.StatusCode == http.StatusForbidden && !strings.Contains(resp.Header.Get("WWW-Authenticate"), "insufficient_scope") {
			// Not a matter of login: the SDK retries once, and the 403
			// reaches the caller.
			return nil
		}
		return &loginRequiredError{resource: h.shown, hint: h.o.LoginHint}
	}
	ln, err := h.listen()
	if err != nil {
		drain(resp)
		return err
	}
	h.ln = ln
	defer func() {
		ln.Close()
		h.ln = nil
	}()
	if h.sdk == nil {
		if h.sdk, err = h.newSDKHandler(); err != nil {
			drain(resp)
			return err
		}
	}
	h.issuers.begin()
	h.logger.Debug("mcp oauth login", "resource", h.shown, "status", resp.StatusCode)
	return h.sdk.Authorize(ctx, req, resp)
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// listen opens the redirect listener: on the port of the first login when
// there was one, since the SDK's handler is bound to that redirect URL.
func (h *oauthHandler) listen() (net.Listener, error) {
	port := h.port
	if port == 0 {
		port = h.o.RedirectPort
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil && h.sdk != nil && h.o.RedirectPort == 0 {
		// The port went to someone else since the last login: start afresh
		// on a new one, at the cost of the scopes granted before.
		h.sdk = nil
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("listening on 127.0.0.1 for the OAuth redirect: %w", err)
	}
	h.port = ln.Addr().(*net.TCPAddr).Port
	return ln, nil
}

func (h *oauthHandler) redirectURL() string {
	return "http://127.0.0.1:" + strconv.Itoa(h.port) + "/callback"
}

func (h *oauthHandler) newSDKHandler() (*auth.AuthorizationCodeHandler, error) {
	redirect := h.redirectURL()
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: h.fetch,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs:            []string{redirect},
				ClientName:              h.o.ClientName,
				GrantTypes:              []string{"authorization_code", "refresh_token"},
				ResponseTypes:           []string{"code"},
				TokenEndpointAuthMethod: "none",
			},
		},
		RequestRefreshToken: true,
		Client:              h.client,
		NewTokenSource:      h.granted,
	}
	if h.o.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: h.o.ClientMetadataURL}
	}
	if h.o.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: h.o.ClientID}
		if h.o.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: h.o.ClientSecret}
		}
	}
	return auth.NewAuthorizationCodeHandler(cfg)
}

// fetch sends the person to the authorization URL and waits on the
// redirect listener for the authorization server's answer.
func (h *oauthHandler) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(args.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the authorization URL %q is not an http or https URL: check the authorization server's metadata", args.URL)
	}
	state := u.Query().Get("state")
	if state == "" {
		return nil, errors.New("the authorization URL has no state parameter")
	}
	wait := serveRedirect(h.ln, state)
	if err := h.o.Open(ctx, args.URL); err != nil {
		wait(nil)
		return nil, fmt.Errorf("opening the authorization URL: %w", err)
	}
	return wait(ctx)
}

// granted is the SDK's NewTokenSource hook: it runs when a login has
// produced a token, which is saved to the store with what a later refresh
// needs.
func (h *oauthHandler) granted(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	t := tokenFrom(tok)
	t.Resource = h.resource
	t.Issuer = h.issuers.issuer(cfg.Endpoint.TokenURL)
	t.ClientID, t.ClientSecret = cfg.ClientID, cfg.ClientSecret
	t.TokenURL = cfg.Endpoint.TokenURL
	t.AuthStyle = authStyleName(cfg.Endpoint.AuthStyle)
	t.Scopes = cfg.Scopes
	src := h.newSource(t, oauth2.ReuseTokenSource(tok, cfg.TokenSource(ctx, tok)))
	if err := src.save(ctx, t); err != nil {
		// The token serves this session; the next one logs in again.
		h.logger.Warn("mcp oauth token granted but not saved", "resource", h.shown, "error", err)
	}
	// Called with h.mu held, from Authorize.
	h.src = src
	h.loaded = true
	return src, nil
}

func (h *oauthHandler) newSource(t *Token, ts oauth2.TokenSource) *storedSource {
	return &storedSource{h: h, ts: ts, meta: *t, last: t.AccessToken}
}

// issuerWatch notes the issuer of each authorization server whose metadata
// the SDK fetched, so that a token is stored with the issuer that granted
// it. It reads responses and hands them on unchanged, with one exception:
// in the discovery of the 2025-03-26 specification (the server publishes
// no protected resource metadata), the MCP server's origin is the
// authorization server, and metadata it serves at its root naming an
// issuer elsewhere on that same origin is taken to be the origin's.
type issuerWatch struct {
	base http.RoundTripper
	// origin is the MCP server's scheme://host.
	origin string
	mu     sync.Mutex
	// byToken maps a token endpoint to its issuer.
	byToken map[string]string
	// resourceMeta is set when protected resource metadata was found
	// since the login began.
	resourceMeta bool
}

// begin starts a login.
func (w *issuerWatch) begin() {
	w.mu.Lock()
	w.resourceMeta = false
	w.mu.Unlock()
}

func (w *issuerWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK || req.Method != http.MethodGet {
		return resp, err
	}
	p := req.URL.Path
	if strings.HasPrefix(p, "/.well-known/oauth-protected-resource") {
		w.mu.Lock()
		w.resourceMeta = true
		w.mu.Unlock()
		return resp, nil
	}
	if !strings.Contains(p, "/.well-known/oauth-authorization-server") && !strings.Contains(p, "/.well-known/openid-configuration") {
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if json.Unmarshal(body, &m) == nil {
		iss, _ := m["issuer"].(string)
		tok, _ := m["token_endpoint"].(string)
		w.mu.Lock()
		legacy := !w.resourceMeta && p == "/.well-known/oauth-authorization-server" && origin(req.URL) == w.origin
		w.mu.Unlock()
		if u, err := url.Parse(iss); legacy && err == nil && origin(u) == w.origin && iss != w.origin {
			m["issuer"] = w.origin
			iss = w.origin
			if b, err := json.Marshal(m); err == nil {
				body = b
				resp.ContentLength = int64(len(b))
				resp.Header.Del("Content-Length")
			}
		}
		if iss != "" && tok != "" {
			w.mu.Lock()
			if w.byToken == nil {
				w.byToken = map[string]string{}
			}
			w.byToken[tok] = iss
			w.mu.Unlock()
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// origin returns u's scheme://host.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// issuer returns the issuer whose token endpoint is tokenURL; for a server
// without metadata, whose endpoints are fixed paths under it, the token
// endpoint's origin.
func (w *issuerWatch) issuer(tokenURL string) string {
	w.mu.Lock()
	iss, ok := w.byToken[tokenURL]
	w.mu.Unlock()
	if ok {
		return iss
	}
	if u, err := url.Parse(tokenURL); err == nil {
		return origin(u)
	}
	return ""
}
