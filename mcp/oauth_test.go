package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/internal/oauthtest"
	"github.com/bridle-dev/bridle/tool"
)

// oauthServer serves a "greet" tool behind OAuth.
func oauthServer(t *testing.T) *oauthtest.Server {
	t.Helper()
	s := NewServer("protected", "v1", nil)
	s.AddTools(tool.New("greet", "Greets.", tool.Read, func(context.Context, struct{}) (string, error) {
		return "hello", nil
	}))
	return oauthtest.New(t, s.HTTPHandler(nil))
}

// greet connects with o and calls greet.
func greet(t *testing.T, srv *oauthtest.Server, o *OAuth) error {
	t.Helper()
	s, err := ConnectHTTP(t.Context(), "protected", HTTP{URL: srv.URL, OAuth: o}, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	tools, err := s.Tools(t.Context())
	if err != nil {
		return err
	}
	out, err := tools[0].Call(t.Context(), json.RawMessage(`{}`))
	if err == nil && out != "hello" {
		t.Errorf("greet = %q", out)
	}
	return err
}

// noLogin fails the test when a login is started.
func noLogin(t *testing.T) func(context.Context, string) error {
	return func(context.Context, string) error {
		t.Error("a login was started")
		return errors.New("no login expected")
	}
}

func TestOAuthLogsInStoresAndRefreshes(t *testing.T) {
	srv := oauthServer(t)
	store := &MemoryTokenStore{}

	var opened string
	open := func(ctx context.Context, u string) error { opened = u; return srv.Browse(ctx, u) }
	if err := greet(t, srv, &OAuth{Store: store, Open: open}); err != nil {
		t.Fatal(err)
	}
	if srv.Logins() != 1 || !strings.Contains(opened, "code_challenge=") || !strings.Contains(opened, "redirect_uri=http%3A%2F%2F127.0.0.1%3A") {
		t.Fatalf("logins = %d, opened %q", srv.Logins(), opened)
	}
	tok, err := store.LoadToken(t.Context(), srv.URL)
	if err != nil || tok == nil {
		t.Fatalf("stored token = %v, %v", tok, err)
	}
	if tok.Issuer != srv.Issuer || tok.RefreshToken == "" || tok.ClientID == "" || tok.TokenURL != srv.Issuer+"/token" || tok.Expiry.IsZero() {
		t.Errorf("stored token lacks what a refresh needs: issuer %q client %q token URL %q expiry %v", tok.Issuer, tok.ClientID, tok.TokenURL, tok.Expiry)
	}

	t.Run("a stored token is used without a login", func(t *testing.T) {
		if err := greet(t, srv, &OAuth{Store: store, Open: noLogin(t)}); err != nil {
			t.Fatal(err)
		}
		if srv.Logins() != 1 || srv.Refreshes() != 0 {
			t.Errorf("logins %d, refreshes %d", srv.Logins(), srv.Refreshes())
		}
	})

	t.Run("an expired token is refreshed without asking, and the new one stored", func(t *testing.T) {
		old, _ := store.LoadToken(t.Context(), srv.URL)
		old.Expiry = time.Now().Add(-time.Minute)
		store.SaveToken(t.Context(), old)
		if err := greet(t, srv, &OAuth{Store: store}); err != nil {
			t.Fatal(err)
		}
		now, _ := store.LoadToken(t.Context(), srv.URL)
		if srv.Refreshes() != 1 || now.AccessToken == old.AccessToken || !now.Expiry.After(time.Now()) {
			t.Errorf("refreshes %d; stored token changed: %v", srv.Refreshes(), now.AccessToken != old.AccessToken)
		}
	})

	t.Run("a token the server no longer takes is refreshed without asking", func(t *testing.T) {
		srv.ExpireAccessTokens()
		before := srv.Refreshes()
		if err := greet(t, srv, &OAuth{Store: store, Open: noLogin(t)}); err != nil {
			t.Fatal(err)
		}
		if srv.Refreshes() != before+1 || srv.Logins() != 1 {
			t.Errorf("refreshes %d (was %d), logins %d", srv.Refreshes(), before, srv.Logins())
		}
	})

	t.Run("a refused refresh without a way to log in names ErrLoginRequired", func(t *testing.T) {
		srv.ExpireAccessTokens()
		srv.RefuseRefresh()
		err := greet(t, srv, &OAuth{Store: store})
		if !errors.Is(err, ErrLoginRequired) || !strings.Contains(err.Error(), `mcp server "protected"`) {
			t.Fatalf("err = %v", err)
		}
		if tok, _ := store.LoadToken(t.Context(), srv.URL); strings.Contains(err.Error(), tok.AccessToken) || strings.Contains(err.Error(), tok.RefreshToken) {
			t.Errorf("the error shows a token: %v", err)
		}
	})

	t.Run("a refused refresh with a way to log in logs in again", func(t *testing.T) {
		if err := greet(t, srv, &OAuth{Store: store, Open: srv.Browse}); err != nil {
			t.Fatal(err)
		}
		if srv.Logins() != 2 {
			t.Errorf("logins = %d", srv.Logins())
		}
	})
}

func TestOAuthWithoutTokenOrLogin(t *testing.T) {
	srv := oauthServer(t)
	err := greet(t, srv, &OAuth{})
	if !errors.Is(err, ErrLoginRequired) {
		t.Fatalf("err = %v", err)
	}
	if err := greet(t, srv, nil); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("without OAuth: err = %v, want ErrUnauthorized", err)
	}
}

func TestOAuthMisconfiguration(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    HTTP
		want string
	}{
		{"a token beside OAuth", HTTP{URL: "http://127.0.0.1:1/mcp", Token: "x", OAuth: &OAuth{}}, "both HTTP.Token and HTTP.OAuth"},
		{"a secret without an ID", HTTP{URL: "http://127.0.0.1:1/mcp", OAuth: &OAuth{ClientSecret: "s"}}, "ClientSecret is set without OAuth.ClientID"},
		{"a bad port", HTTP{URL: "http://127.0.0.1:1/mcp", OAuth: &OAuth{RedirectPort: 70000}}, "RedirectPort 70000"},
		{"a metadata URL over http", HTTP{URL: "http://127.0.0.1:1/mcp", OAuth: &OAuth{ClientMetadataURL: "http://example.com/c.json"}}, "ClientMetadataURL"},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			_, err := ConnectHTTP(t.Context(), "x", tc.h, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestRedirectListener(t *testing.T) {
	listen := func(t *testing.T) (net.Listener, string) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return ln, "http://" + ln.Addr().String() + "/callback"
	}
	get := func(t *testing.T, u string) int {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	t.Run("an answer with another state is refused and waited past", func(t *testing.T) {
		ln, base := listen(t)
		wait := serveRedirect(ln, "right")
		if code := get(t, base+"?code=evil&state=wrong"); code != http.StatusBadRequest {
			t.Errorf("wrong state: status %d", code)
		}
		if code := get(t, base+"?code=good&state=right&iss=https%3A%2F%2Fas.example"); code != http.StatusOK {
			t.Errorf("right state: status %d", code)
		}
		res, err := wait(t.Context())
		if err != nil || res.Code != "good" || res.Iss != "https://as.example" {
			t.Errorf("wait = %+v, %v", res, err)
		}
	})

	t.Run("an error from the authorization server ends the wait with it", func(t *testing.T) {
		ln, base := listen(t)
		wait := serveRedirect(ln, "s")
		get(t, base+"?error=access_denied&error_description=no+thanks&state=s")
		_, err := wait(t.Context())
		if err == nil || !strings.Contains(err.Error(), `refused the login: access_denied ("no thanks")`) {
			t.Errorf("err = %v", err)
		}
	})

	t.Run("the wait ends with its context", func(t *testing.T) {
		ln, _ := listen(t)
		wait := serveRedirect(ln, "s")
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := wait(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://example.com/authorize?x=1", true},
		{"http://127.0.0.1:8080/", true},
		{"file:///etc/passwd", false},
		{"javascript:alert(1)", false},
		{"https://", false},
		{"https://example.com/a b", false},
		{"https://example.com/\x1b[31m", false},
		{"--help", false},
	} {
		if err := CheckURL(tc.url); (err == nil) != tc.ok {
			t.Errorf("CheckURL(%q) = %v", tc.url, err)
		}
	}
	if err := OpenBrowser(t.Context(), "file:///etc/passwd"); err == nil || errors.Is(err, ErrNoBrowser) {
		t.Errorf("OpenBrowser(file URL) = %v, want a refusal of the URL", err)
	}
}

// brokenStore is a keychain that cannot be reached.
type brokenStore struct{}

func (brokenStore) LoadToken(context.Context, string) (*Token, error) {
	return nil, errors.New("no keychain")
}
func (brokenStore) SaveToken(context.Context, *Token) error { return errors.New("no keychain") }

func TestOAuthStoreFailures(t *testing.T) {
	t.Run("a server that needs no token works when the store cannot be read", func(t *testing.T) {
		ts := httptest.NewServer(roundTripServer().HTTPHandler(nil))
		defer ts.Close()
		s, err := ConnectHTTP(t.Context(), "open", HTTP{URL: ts.URL, OAuth: &OAuth{Store: brokenStore{}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	})
	t.Run("a login whose token cannot be stored still serves the session", func(t *testing.T) {
		srv := oauthServer(t)
		if err := greet(t, srv, &OAuth{Store: brokenStore{}, Open: srv.Browse}); err != nil {
			t.Fatal(err)
		}
	})
}
