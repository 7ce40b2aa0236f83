package mcp

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// A Token is what an OAuth login to one server produced: the tokens, and
// what refreshing them needs. It holds secrets (the tokens, and the client
// secret of a confidential client): keep it where secrets belong, such as
// the system keychain, and never print it.
type Token struct {
	// Resource is the server's MCP endpoint the token is for.
	Resource string `json:"resource"`
	// Issuer is the authorization server that granted it.
	Issuer string `json:"issuer,omitempty"`
	// ClientID and ClientSecret are the client the token was granted to,
	// registered dynamically or beforehand; a refresh must use them.
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	// TokenURL is the issuer's token endpoint, where a refresh goes.
	TokenURL string `json:"token_url"`
	// AuthStyle is how the client authenticates there: "params",
	// "header", or "" to find out.
	AuthStyle string `json:"auth_style,omitempty"`
	// Scopes are the scopes asked for.
	Scopes []string `json:"scopes,omitempty"`

	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type,omitempty"`
	RefreshToken string `json:"refresh_token,omitempty"`
	// Expiry is when AccessToken expires; zero means it does not say.
	Expiry time.Time `json:"expiry,omitzero"`
}

// A TokenStore keeps OAuth tokens between sessions, one for each resource
// (a server's MCP endpoint); each records the issuer that granted it. Its
// methods may be called from several goroutines at once.
type TokenStore interface {
	// LoadToken returns the token stored for resource, or nil and no
	// error when there is none.
	LoadToken(ctx context.Context, resource string) (*Token, error)
	// SaveToken stores t for t.Resource, replacing any token stored for it
	// before. A session calls it after a login and after each refresh.
	SaveToken(ctx context.Context, t *Token) error
}

// MemoryTokenStore is a [TokenStore] that keeps tokens in memory, for as
// long as the program runs. Its zero value is ready to use.
type MemoryTokenStore struct {
	mu     sync.Mutex
	tokens map[string]Token
}

// LoadToken returns a copy of the token stored for resource, or nil.
func (m *MemoryTokenStore) LoadToken(_ context.Context, resource string) (*Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[resource]
	if !ok {
		return nil, nil
	}
	return &t, nil
}

// SaveToken stores a copy of t.
func (m *MemoryTokenStore) SaveToken(_ context.Context, t *Token) error {
	if t == nil || t.Resource == "" {
		return errors.New("the token has no resource: set Token.Resource to the server's URL")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens == nil {
		m.tokens = map[string]Token{}
	}
	m.tokens[t.Resource] = *t
	return nil
}

func tokenFrom(tok *oauth2.Token) *Token {
	return &Token{
		AccessToken:  tok.AccessToken,
		TokenType:    tok.TokenType,
		RefreshToken: tok.RefreshToken,
		Expiry:       tok.Expiry,
	}
}

func (t *Token) oauth2() *oauth2.Token {
	return &oauth2.Token{
		AccessToken:  t.AccessToken,
		TokenType:    t.TokenType,
		RefreshToken: t.RefreshToken,
		Expiry:       t.Expiry,
	}
}

// config is what oauth2 needs to refresh t.
func (t *Token) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID:     t.ClientID,
		ClientSecret: t.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: t.TokenURL, AuthStyle: authStyleFromName(t.AuthStyle)},
		Scopes:       t.Scopes,
	}
}

func authStyleName(s oauth2.AuthStyle) string {
	switch s {
	case oauth2.AuthStyleInParams:
		return "params"
	case oauth2.AuthStyleInHeader:
		return "header"
	}
	return ""
}

func authStyleFromName(s string) oauth2.AuthStyle {
	switch s {
	case "params":
		return oauth2.AuthStyleInParams
	case "header":
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleAutoDetect
}

// storedSource hands out the current token, refreshing it through ts when
// it has expired and saving each new one. When the token cannot be
// refreshed (the authorization server refused, or there is no refresh
// token) it gives no token at all, so the request goes without one and
// the server's 401 starts a new login.
type storedSource struct {
	h  *oauthHandler
	ts oauth2.TokenSource

	mu   sync.Mutex
	meta Token  // the token's client and endpoint, and the last saved
	last string // the access token last saved
	// forced is the access token the last refreshNow produced.
	forced string
	dead   bool
}

// refreshNow refreshes the token although it has not expired here,
// because the server refused it (req is the refused request). It reports
// whether there is a new token to try: not when there is no refresh
// token, when the refresh is refused, or when the token refused is the one
// the last forced refresh gave.
func (s *storedSource) refreshNow(req *http.Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead || s.meta.RefreshToken == "" {
		return false
	}
	if s.forced != "" && req.Header.Get("Authorization") == "Bearer "+s.forced {
		return false
	}
	old := s.meta.oauth2()
	old.Expiry = time.Unix(1, 0)
	cfg := s.meta.config()
	tok, err := cfg.TokenSource(s.h.refreshContext(), old).Token()
	if err != nil {
		s.dead = true
		s.h.logger.Info("mcp oauth token could not be refreshed; a new login is needed", "resource", s.h.shown, "error", refreshError(err))
		return false
	}
	s.ts = oauth2.ReuseTokenSource(tok, cfg.TokenSource(s.h.refreshContext(), tok))
	s.forced = tok.AccessToken
	s.store(tok)
	return true
}

// store saves tok, a refreshed token, with the rest of the record.
func (s *storedSource) store(tok *oauth2.Token) {
	t := s.meta
	t.AccessToken, t.TokenType, t.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry
	if tok.RefreshToken != "" {
		t.RefreshToken = tok.RefreshToken
	}
	if err := s.saveLocked(context.Background(), &t); err != nil {
		// The token works for this session; the next one logs in again.
		s.h.logger.Warn("mcp oauth token refreshed but not saved", "resource", s.h.shown, "error", err)
	}
}

// Token returns the token to send, or nil and no error when there is no
// usable one; the SDK's transport then sends the request without.
func (s *storedSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return nil, nil
	}
	tok, err := s.ts.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) || s.meta.RefreshToken == "" {
			s.dead = true
			s.h.logger.Info("mcp oauth token could not be refreshed; a new login is needed", "resource", s.h.shown, "error", refreshError(err))
			return nil, nil
		}
		return nil, err
	}
	if tok.AccessToken != s.last {
		s.store(tok)
	}
	return tok, nil
}

func (s *storedSource) save(ctx context.Context, t *Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saveLocked(ctx, t)
}

func (s *storedSource) saveLocked(ctx context.Context, t *Token) error {
	s.meta, s.last = *t, t.AccessToken
	if s.h.o.Store == nil {
		return nil
	}
	return s.h.o.Store.SaveToken(ctx, t)
}

// refreshError describes a failed refresh without the response body,
// which may echo what was sent.
func refreshError(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return "the authorization server answered " + re.ErrorCode
		}
		if re.Response != nil {
			return "the authorization server answered " + re.Response.Status
		}
	}
	return err.Error()
}
