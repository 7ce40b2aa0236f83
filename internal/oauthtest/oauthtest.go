// Package oauthtest runs an OAuth-protected MCP server on loopback for
// tests: the MCP endpoint behind the go-sdk's bearer-token middleware and
// protected resource metadata, and a small authorization server beside it
// (metadata, dynamic registration, authorization with PKCE, tokens and
// refresh). Its authorization endpoint answers at once, so a test's
// "browser" is a GET that follows the redirect ([Server.Browse]).
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Server is an OAuth-protected MCP server and its authorization server.
type Server struct {
	// URL is the MCP endpoint.
	URL string
	// Issuer is the authorization server's issuer (the server's root).
	Issuer string
	// Scope is the scope the MCP endpoint asks for.
	Scope string

	mu        sync.Mutex
	clients   map[string][]string // client ID → redirect URIs
	codes     map[string]grant
	access    map[string]time.Time // access token → expiry
	refresh   map[string]string    // refresh token → client ID
	logins    int
	refreshes int
	refuse    bool
}

type grant struct {
	client, redirect, challenge, resource string
}

// New serves mcpHandler behind OAuth on a loopback port until the test
// ends.
func New(t testing.TB, mcpHandler http.Handler) *Server {
	s := &Server{
		Scope:   "notes:read",
		clients: map[string][]string{},
		codes:   map[string]grant{},
		access:  map[string]time.Time{},
		refresh: map[string]string{},
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.Issuer = srv.URL
	s.URL = srv.URL + "/mcp"
	prmURL := srv.URL + "/.well-known/oauth-protected-resource/mcp"

	mux.Handle("/mcp", auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: prmURL,
		Scopes:              []string{s.Scope},
	})(mcpHandler))
	mux.Handle("GET /.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             s.URL,
		AuthorizationServers: []string{s.Issuer},
		ScopesSupported:      []string{s.Scope},
	}))
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, &oauthex.AuthServerMeta{
			Issuer:                            s.Issuer,
			AuthorizationEndpoint:             s.Issuer + "/authorize",
			TokenEndpoint:                     s.Issuer + "/token",
			RegistrationEndpoint:              s.Issuer + "/register",
			ScopesSupported:                   []string{s.Scope, "offline_access"},
			ResponseTypesSupported:            []string{"code"},
			GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
			TokenEndpointAuthMethodsSupported: []string{"none"},
			CodeChallengeMethodsSupported:     []string{"S256"},
		})
	})
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	return s
}

// Browse stands in for the person's browser: it opens the authorization
// URL and follows the redirect back to the client's listener.
func (s *Server) Browse(ctx context.Context, authURL string) error {
	return Browse(ctx, authURL)
}

// Browse opens authURL as [Server.Browse] does, for any authorization
// server that redirects at once to the client's loopback listener.
func Browse(ctx context.Context, authURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the login ended with %s", resp.Status)
	}
	return nil
}

// Logins returns how many authorization codes were exchanged for tokens.
func (s *Server) Logins() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins
}

// Refreshes returns how many refresh tokens were exchanged for tokens.
func (s *Server) Refreshes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshes
}

// ExpireAccessTokens makes every access token issued so far invalid, as
// if their time had run out; refresh tokens keep working.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.access)
}

// RefuseRefresh makes the token endpoint refuse every refresh token, as
// an authorization server does once a grant is revoked.
func (s *Server) RefuseRefresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = true
}

func (s *Server) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	s.mu.Lock()
	exp, ok := s.access[token]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{Scopes: []string{s.Scope}, Expiration: exp}, nil
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var m oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || len(m.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := rand.Text()
	s.mu.Lock()
	s.clients[id] = m.RedirectURIs
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none",
	})
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	uris, ok := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	redirect := q.Get("redirect_uri")
	switch {
	case !ok:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case !slices.Contains(uris, redirect):
		http.Error(w, "redirect_uri not registered", http.StatusBadRequest)
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE required", http.StatusBadRequest)
		return
	case q.Get("resource") != s.URL:
		http.Error(w, "resource is not "+s.URL, http.StatusBadRequest)
		return
	}
	code := rand.Text()
	s.mu.Lock()
	s.codes[code] = grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource")}
	s.mu.Unlock()
	u, _ := url.Parse(redirect)
	v := u.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	u.RawQuery = v.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var client string
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		g, ok := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || g.client != r.PostForm.Get("client_id") || g.redirect != r.PostForm.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.PostForm.Get("resource") != s.URL {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		client = g.client
		s.logins++
	case "refresh_token":
		c, ok := s.refresh[r.PostForm.Get("refresh_token")]
		if !ok || s.refuse || c != r.PostForm.Get("client_id") {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(s.refresh, r.PostForm.Get("refresh_token"))
		client = c
		s.refreshes++
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access, refresh := rand.Text(), rand.Text()
	s.access[access] = time.Now().Add(time.Hour)
	s.refresh[refresh] = client
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "token_type": "Bearer", "expires_in": 3600,
		"refresh_token": refresh, "scope": s.Scope,
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
