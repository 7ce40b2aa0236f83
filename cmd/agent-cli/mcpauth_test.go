package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/internal/oauthtest"
	"github.com/bridle-dev/bridle/keychain"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zalando/go-keyring"
)

// protectedNotes serves a "greet" tool behind OAuth.
func protectedNotes(t *testing.T) *oauthtest.Server {
	s := mcp.NewServer("notes", "v1", nil)
	s.AddTools(tool.New("greet", "Greets.", tool.Read, func(context.Context, struct{}) (string, error) {
		return "hello from notes", nil
	}))
	return oauthtest.New(t, s.HTTPHandler(nil))
}

// storedToken reads the token agent-cli keeps in the keychain for url.
func storedToken(t *testing.T, url string) *mcp.Token {
	t.Helper()
	data, err := keychain.Get(keychainService, tokenAccount(url))
	if err != nil {
		return nil
	}
	var tok mcp.Token
	if err := json.Unmarshal([]byte(data), &tok); err != nil {
		t.Fatal(err)
	}
	return &tok
}

// TestMCPLoginEndToEnd logs agent-cli in to an OAuth-protected server,
// uses the token from the keychain for a question whose answer calls the
// server's tool, renews the token once it has expired, and says what to
// run when the renewal is refused and there is no terminal.
func TestMCPLoginEndToEnd(t *testing.T) {
	keyring.MockInit()
	srv := protectedNotes(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("GOTOOLS_BIN", "off")
	t.Setenv("AGENT_MCP_TOKENS", "")
	work := t.TempDir()
	config := filepath.Join(t.TempDir(), "servers.json")
	os.WriteFile(config, []byte(`{"mcpServers": {"notes": {"type": "http", "url": "`+srv.URL+`"}}}`), 0o644)
	deps := mcpDeps{getenv: os.Getenv, browse: srv.Browse}
	mcpRun := func(args ...string) (string, string, error) {
		var out, errb bytes.Buffer
		err := mcpCommand(t.Context(), append(args, "--dir", work, "--mcp-config", config), &out, &errb, deps)
		return out.String(), errb.String(), err
	}

	_, stderr, err := mcpRun("login", "notes")
	if err != nil {
		t.Fatalf("mcp login: %v\n%s", err, stderr)
	}
	tok := storedToken(t, srv.URL)
	if tok == nil || tok.AccessToken == "" || tok.RefreshToken == "" || tok.Issuer != srv.Issuer {
		t.Fatalf("the keychain holds %+v after the login", tok)
	}
	if !strings.Contains(stderr, "log in to notes in your browser:\n  "+srv.Issuer+"/authorize?") || !strings.Contains(stderr, "logged in to notes; the token is in the keychain, valid until") {
		t.Errorf("mcp login said:\n%s", stderr)
	}
	if strings.Contains(stderr, tok.AccessToken) || strings.Contains(stderr, tok.RefreshToken) {
		t.Errorf("mcp login showed the token:\n%s", stderr)
	}

	out, _, err := mcpRun("list")
	if err != nil || !regexpMatch(`(?m)^notes\s+http\s+OAuth\s+stored, valid until \d{4}-`, out) || strings.Contains(out, tok.AccessToken) {
		t.Errorf("mcp list = %v:\n%s", err, out)
	}

	// A question whose answer calls the server's tool, with no terminal.
	ask := func(t *testing.T) (*llmtest.Server, string) {
		t.Helper()
		model := llmtest.NewServer(llmtest.Replies(
			llmtest.Reply{Calls: []llmtest.Call{{Name: "mcp__notes__greet", Args: `{}`}}},
			llmtest.Reply{Text: "The server greeted us."},
		))
		t.Cleanup(model.Close)
		t.Setenv("AGENT_PROVIDER", "anthropic")
		t.Setenv("AGENT_BASE_URL", model.Config(llm.Anthropic).BaseURL)
		t.Setenv("ANTHROPIC_API_KEY", fakeKey)
		var stdout, stderr bytes.Buffer
		err := run(t.Context(), []string{"--dir", work, "--mcp-config", config, "greet me"}, strings.NewReader(""), &stdout, &stderr)
		if err != nil {
			t.Fatalf("run: %v\n%s", err, stderr.String())
		}
		return model, stderr.String()
	}
	toolResult := func(model *llmtest.Server) string {
		reqs := model.Requests()
		if len(reqs) < 2 {
			return ""
		}
		var b strings.Builder
		for _, p := range reqs[1].LastToolResults() {
			b.WriteString(p.Text)
		}
		return b.String()
	}

	t.Run("a question uses the stored token to call the server's tool", func(t *testing.T) {
		model, stderr := ask(t)
		if got := toolResult(model); !strings.Contains(got, "hello from notes") {
			t.Errorf("tool result %q\nstderr:\n%s", got, stderr)
		}
		if srv.Logins() != 1 || srv.Refreshes() != 0 {
			t.Errorf("logins %d, refreshes %d", srv.Logins(), srv.Refreshes())
		}
	})

	t.Run("an expired token is renewed without asking and stored again", func(t *testing.T) {
		old := storedToken(t, srv.URL)
		old.Expiry = time.Now().Add(-time.Hour)
		data, _ := json.Marshal(old)
		keychain.Set(keychainService, tokenAccount(srv.URL), string(data))
		model, stderr := ask(t)
		if got := toolResult(model); !strings.Contains(got, "hello from notes") {
			t.Errorf("tool result %q\nstderr:\n%s", got, stderr)
		}
		now := storedToken(t, srv.URL)
		if srv.Refreshes() != 1 || srv.Logins() != 1 || now.AccessToken == old.AccessToken || !now.Expiry.After(time.Now()) {
			t.Errorf("refreshes %d, logins %d, new token stored %v", srv.Refreshes(), srv.Logins(), now.AccessToken != old.AccessToken)
		}
	})

	t.Run("a refused renewal without a terminal says to log in", func(t *testing.T) {
		srv.RefuseRefresh()
		srv.ExpireAccessTokens()
		model, stderr := ask(t)
		if !strings.Contains(stderr, "MCP server notes did not start") || !strings.Contains(stderr, "run `agent-cli mcp login notes`") {
			t.Errorf("stderr:\n%s", stderr)
		}
		if strings.Contains(toolResult(model), "hello from notes") {
			t.Error("the tool ran without a valid token")
		}
	})

	t.Run("logout forgets the token", func(t *testing.T) {
		_, stderr, err := mcpRun("logout", "notes")
		if err != nil || !strings.Contains(stderr, "logged out of notes") || storedToken(t, srv.URL) != nil {
			t.Errorf("mcp logout = %v: %s", err, stderr)
		}
		out, _, _ := mcpRun("list")
		if !regexpMatch(`(?m)^notes\s+http\s+OAuth\s+none$`, out) {
			t.Errorf("mcp list after logout:\n%s", out)
		}
	})
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

func TestHTTPOptions(t *testing.T) {
	keyring.MockInit()
	t.Setenv("AGENT_MCP_TOKENS", "")
	entry := func(raw string) mcpServer {
		var e mcpEntry
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			t.Fatal(err)
		}
		if err := e.check(); err != nil {
			t.Fatal(err)
		}
		return mcpServer{Name: "docs", Entry: e}
	}
	for _, tc := range []struct {
		name        string
		entry       string
		interactive bool
		check       func(t *testing.T, h mcp.HTTP, timeout time.Duration)
	}{
		{"an entry with its own Authorization header does not use OAuth", `{"type":"http","url":"https://x.example/mcp","headers":{"Authorization":"Bearer t"}}`, true,
			func(t *testing.T, h mcp.HTTP, timeout time.Duration) {
				if h.OAuth != nil || timeout != connectTimeout {
					t.Errorf("OAuth %+v, timeout %v", h.OAuth, timeout)
				}
			}},
		{"on a terminal a login opens the browser and may take minutes", `{"type":"http","url":"https://x.example/mcp"}`, true,
			func(t *testing.T, h mcp.HTTP, timeout time.Duration) {
				if h.OAuth == nil || h.OAuth.Open == nil || h.OAuth.Store == nil || timeout != loginTimeout {
					t.Errorf("OAuth %+v, timeout %v", h.OAuth, timeout)
				}
			}},
		{"without a terminal a needed login names the command to run", `{"type":"http","url":"https://x.example/mcp"}`, false,
			func(t *testing.T, h mcp.HTTP, timeout time.Duration) {
				if h.OAuth == nil || h.OAuth.Open != nil || h.OAuth.LoginHint != "run `agent-cli mcp login docs`" || timeout != connectTimeout {
					t.Errorf("OAuth %+v, timeout %v", h.OAuth, timeout)
				}
			}},
		{"an oauth object gives a registered client and its port", `{"type":"http","url":"https://x.example/mcp","oauth":{"clientId":"cli-1","callbackPort":8765}}`, false,
			func(t *testing.T, h mcp.HTTP, timeout time.Duration) {
				if h.OAuth.ClientID != "cli-1" || h.OAuth.RedirectPort != 8765 {
					t.Errorf("OAuth %+v", h.OAuth)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &session{ui: newUI(&bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" })}
			s.ui.interactive = tc.interactive
			sv := entry(tc.entry)
			h, err := sv.http(os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			timeout, err := s.httpOptions(sv, &h)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, h, timeout)
		})
	}
	var e mcpEntry
	json.Unmarshal([]byte(`{"type":"http","url":"https://x.example/mcp","oauth":{"callbackPort":70000}}`), &e)
	if err := e.check(); err == nil || !strings.Contains(err.Error(), "callbackPort 70000 is not a port") {
		t.Errorf("check = %v", err)
	}
}

// TestServerQuestionWithoutTerminal runs a question whose tool call makes
// the server ask the person something: without a terminal the question is
// declined, the server hears so, and stderr says it.
func TestServerQuestionWithoutTerminal(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "v1"}, nil)
	heard := make(chan string, 1)
	srv.AddTool(&sdk.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Which notebook?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"book":{"type":"string"}}}`)})
			if err != nil {
				heard <- "error: " + err.Error()
				return nil, err
			}
			heard <- res.Action
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "the person said " + res.Action}}}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()
	config := filepath.Join(t.TempDir(), "servers.json")
	os.WriteFile(config, []byte(`{"mcpServers": {"asker": {"type": "http", "url": "`+ts.URL+`", "headers": {"Authorization": "Bearer x"}}}}`), 0o644)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("GOTOOLS_BIN", "off")
	model := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{{Name: "mcp__asker__ask", Args: `{}`}}},
		llmtest.Reply{Text: "Declined."},
	))
	defer model.Close()
	t.Setenv("AGENT_PROVIDER", "anthropic")
	t.Setenv("AGENT_BASE_URL", model.Config(llm.Anthropic).BaseURL)
	t.Setenv("ANTHROPIC_API_KEY", fakeKey)
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"--dir", t.TempDir(), "--mcp-config", config, "ask me"}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	select {
	case got := <-heard:
		if got != "decline" {
			t.Errorf("the server heard %q, want decline", got)
		}
	default:
		t.Fatalf("the tool never ran:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "declined a question from MCP server asker: there is no terminal to ask") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

func TestOpenAuthURL(t *testing.T) {
	t.Run("the URL is shown inert, and the person is told to open it when there is no browser", func(t *testing.T) {
		var out bytes.Buffer
		noBrowser := func(context.Context, string) error { return mcp.ErrNoBrowser }
		u := "https://as.example/authorize?state=s&x=%1b"
		if err := openAuthURL(&out, "linear", noBrowser)(t.Context(), u); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "log in to linear in your browser:\n  "+u+"\n") || !strings.Contains(out.String(), "open the URL yourself") {
			t.Errorf("shown:\n%s", out.String())
		}
	})
	t.Run("a URL that is not http or https is refused before anything opens it", func(t *testing.T) {
		opened := false
		err := openAuthURL(&bytes.Buffer{}, "x", func(context.Context, string) error { opened = true; return nil })(t.Context(), "file:///etc/passwd")
		if err == nil || opened {
			t.Errorf("err = %v, opened %v", err, opened)
		}
	})
}

// TestRefusedRenewalOnTerminalLogsInAgain connects a session on a
// terminal to a server whose renewal is refused: the login starts again,
// its URL shown, and the new token is stored.
func TestRefusedRenewalOnTerminalLogsInAgain(t *testing.T) {
	keyring.MockInit()
	t.Setenv("AGENT_MCP_TOKENS", "")
	srv := protectedNotes(t)
	sv := mcpServer{Name: "notes", Entry: mcpEntry{Type: "http", URL: srv.URL}}
	var shown bytes.Buffer
	s := &session{ui: newUI(&bytes.Buffer{}, &shown, func(string) string { return "" }), browse: srv.Browse}
	s.ui.interactive = true

	connect := func() {
		t.Helper()
		conn, err := s.connectHTTP(t.Context(), sv, mcp.HTTP{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		tools, err := conn.Tools(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if out, err := tools[0].Call(t.Context(), json.RawMessage(`{}`)); err != nil || out != "hello from notes" {
			t.Errorf("greet = %q, %v", out, err)
		}
		conn.Close()
	}
	connect()
	first := storedToken(t, srv.URL)
	if srv.Logins() != 1 || first == nil {
		t.Fatalf("logins %d, stored %v", srv.Logins(), first)
	}
	srv.RefuseRefresh()
	srv.ExpireAccessTokens()
	connect()
	if srv.Logins() != 2 || storedToken(t, srv.URL).AccessToken == first.AccessToken {
		t.Errorf("logins %d; a new token stored: %v", srv.Logins(), storedToken(t, srv.URL).AccessToken != first.AccessToken)
	}
	if n := strings.Count(shown.String(), "log in to notes in your browser:"); n != 2 {
		t.Errorf("the login URL was shown %d times:\n%s", n, shown.String())
	}
}
