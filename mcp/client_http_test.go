package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bridle-dev/bridle/tool"
)

// headerRecorder remembers one header of every request it passes on.
type headerRecorder struct {
	next http.Handler
	name string
	mu   sync.Mutex
	seen []string
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Header.Get(h.name))
	h.mu.Unlock()
	h.next.ServeHTTP(w, r)
}

func (h *headerRecorder) values() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

func TestHTTPRoundTrip(t *testing.T) {
	const token = "s3cret-token-value"
	for _, stateless := range []bool{false, true} {
		name := "a stateful server"
		if stateless {
			name = "a stateless server"
		}
		t.Run(name+" serves tools and resources to a client with a token", func(t *testing.T) {
			rec := &headerRecorder{next: roundTripServer().HTTPHandler(&HTTPOptions{Token: token, Stateless: stateless}), name: "X-Team"}
			ts := httptest.NewServer(rec)
			defer ts.Close()
			ctx := t.Context()
			s, err := ConnectHTTP(ctx, "remote", HTTP{
				URL:     ts.URL,
				Token:   token,
				Headers: http.Header{"X-Team": {"blue"}},
			}, &ClientOptions{Hints: HintsTrusted})
			if err != nil {
				t.Fatal(err)
			}
			if s.Instructions() != "Use add for sums." {
				t.Errorf("Instructions() = %q", s.Instructions())
			}
			tools := toolMap(t, s)
			if tools["delete_note"].Risk != tool.Write || tools["add"].Risk != tool.Read {
				t.Errorf("risks: delete_note %v, add %v", tools["delete_note"].Risk, tools["add"].Risk)
			}
			out, err := tools["add"].Call(ctx, json.RawMessage(`{"a":20,"b":22}`))
			if err != nil || out != "42" {
				t.Errorf("add = %q, %v", out, err)
			}
			_, err = tools["delete_note"].Call(ctx, json.RawMessage(`{"title":"x"}`))
			if err == nil || err.Error() != `no note is titled "x"` {
				t.Errorf("delete_note error = %v", err)
			}
			text, err := s.ReadResource(ctx, "notes://index")
			if err != nil || !strings.HasPrefix(text, "# Notes") {
				t.Errorf("ReadResource = %q, %v", text, err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close() = %v", err)
			}
			for i, v := range rec.values() {
				if v != "blue" {
					t.Errorf("request %d carried X-Team %q, want blue", i+1, v)
				}
			}
		})
	}
}

func TestHTTPUnauthorized(t *testing.T) {
	const token = "s3cret-token-value"
	ts := httptest.NewServer(roundTripServer().HTTPHandler(&HTTPOptions{Token: token}))
	defer ts.Close()
	tests := []struct {
		name, token, want string
	}{
		{"a refused token is called refused, without printing it", "wrong-token-value", "refused the bearer token"},
		{"a missing token says to set one", "", "set HTTP.Token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ConnectHTTP(t.Context(), "remote", HTTP{URL: ts.URL, Token: tt.token}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			t.Logf("error: %v", err)
			if !errors.Is(err, ErrUnauthorized) {
				t.Errorf("error %v does not wrap ErrUnauthorized", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) || !strings.Contains(msg, `mcp server "remote"`) {
				t.Errorf("error %q does not name the server and contain %q", msg, tt.want)
			}
			if tt.token != "" && strings.Contains(msg, tt.token) {
				t.Errorf("error %q shows the token", msg)
			}
		})
	}
}

func TestHTTPFaults(t *testing.T) {
	t.Run("a URL that is not http is refused before connecting", func(t *testing.T) {
		_, err := ConnectHTTP(t.Context(), "remote", HTTP{URL: "localhost:8080/mcp"}, nil)
		if err == nil || !strings.Contains(err.Error(), "not an http or https URL") {
			t.Errorf("ConnectHTTP = %v", err)
		}
	})
	t.Run("a server that is gone gives an error naming the server", func(t *testing.T) {
		ts := httptest.NewServer(roundTripServer().HTTPHandler(nil))
		s, err := ConnectHTTP(t.Context(), "remote", HTTP{URL: ts.URL + "/?key=hidden"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		tools := toolMap(t, s)
		ts.CloseClientConnections()
		ts.Close()
		_, err = tools["add"].Call(t.Context(), json.RawMessage(`{"a":1,"b":2}`))
		t.Logf("error: %v", err)
		if err == nil || !strings.Contains(err.Error(), `mcp server "remote": calling tool "add"`) {
			t.Errorf("call after the server went away = %v", err)
		}
		if err != nil && strings.Contains(err.Error(), "hidden") {
			t.Errorf("error %q shows the query", err)
		}
	})
	t.Run("a page that is not an MCP server gives an error naming the server", func(t *testing.T) {
		ts := httptest.NewServer(http.NotFoundHandler())
		defer ts.Close()
		_, err := ConnectHTTP(t.Context(), "remote", HTTP{URL: ts.URL + "/mcp?key=hidden"}, nil)
		t.Logf("error: %v", err)
		if err == nil || !strings.Contains(err.Error(), `mcp server "remote": connecting to `+ts.URL+"/mcp") {
			t.Errorf("ConnectHTTP = %v", err)
		}
		if err != nil && strings.Contains(err.Error(), "hidden") {
			t.Errorf("error %q shows the query", err)
		}
	})
}

func TestHTTPTokenRefusedMidSession(t *testing.T) {
	var refuse atomic.Bool
	inner := roundTripServer().HTTPHandler(nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuse.Load() {
			http.Error(w, "token revoked", http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	defer ts.Close()
	s, err := ConnectHTTP(t.Context(), "remote", HTTP{URL: ts.URL, Token: "s3cret-token-value"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := toolMap(t, s)["add"]
	refuse.Store(true)
	_, err = add.Call(t.Context(), json.RawMessage(`{"a":1,"b":2}`))
	if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), `mcp server "remote": calling tool "add": the server refused the bearer token`) {
		t.Errorf("call with a revoked token = %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %q shows the token", err)
	}
}
