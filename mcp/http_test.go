package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// post sends one JSON-RPC message as a Streamable HTTP client does; header
// holds extra headers.
func post(t *testing.T, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readRPC reads the JSON-RPC response from a JSON or event-stream body.
func readRPC(t *testing.T, resp *http.Response) rpcResponse {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var data []byte
		for line := range strings.Lines(string(body)) {
			if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok && d != "" {
				data = []byte(d)
			}
		}
		body = data
	}
	var r rpcResponse
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("response %q: %v", body, err)
	}
	return r
}

func TestHTTPHandlerChecksTheToken(t *testing.T) {
	srv := httptest.NewServer(fixtureServer().HTTPHandler(&HTTPOptions{Token: "s3cret"}))
	defer srv.Close()
	tests := []struct {
		name      string
		auth      string
		status    int
		challenge string // the WWW-Authenticate header on 401
	}{
		{"the right token is let in", "Bearer s3cret", http.StatusOK, ""},
		{"the scheme is case-insensitive", "bearer s3cret", http.StatusOK, ""},
		{"a missing token is refused with a challenge", "", http.StatusUnauthorized, `Bearer realm="mcp"`},
		{"a wrong token is refused as invalid", "Bearer guess", http.StatusUnauthorized, `Bearer realm="mcp", error="invalid_token"`},
		{"a token that only starts right is refused", "Bearer s3cret2", http.StatusUnauthorized, `Bearer realm="mcp", error="invalid_token"`},
		{"another scheme is refused", "Basic czNjcmV0", http.StatusUnauthorized, `Bearer realm="mcp", error="invalid_token"`},
		{"the bare token is refused", "s3cret", http.StatusUnauthorized, `Bearer realm="mcp", error="invalid_token"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{}
			if tt.auth != "" {
				h["Authorization"] = tt.auth
			}
			resp := post(t, srv.URL, initializeBody, h)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tt.challenge {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tt.challenge)
			}
		})
	}

	t.Run("an SDK client with the token calls tools", func(t *testing.T) {
		cs := sdkClient(t, srv.URL, "s3cret")
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "over http"}})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*sdk.TextContent).Text; text != "over http" || res.IsError {
			t.Errorf("echo gave %q (isError %v)", text, res.IsError)
		}
	})
}

func TestHTTPHandlerChecksTheOrigin(t *testing.T) {
	srv := httptest.NewServer(fixtureServer().HTTPHandler(&HTTPOptions{
		Token:          "s3cret",
		AllowedOrigins: []string{"https://app.example.com/"},
	}))
	defer srv.Close()
	tests := []struct {
		name, origin string
		status       int
	}{
		{"a request without an Origin is let in", "", http.StatusOK},
		{"localhost on any port is let in", "http://localhost:5173", http.StatusOK},
		{"127.0.0.1 is let in", "http://127.0.0.1:9", http.StatusOK},
		{"[::1] is let in", "http://[::1]:3000", http.StatusOK},
		{"an allowed origin is let in", "https://app.example.com", http.StatusOK},
		{"an allowed origin is matched without regard to case", "HTTPS://App.Example.com", http.StatusOK},
		{"a foreign origin is refused", "http://evil.example", http.StatusForbidden},
		{"an allowed host on another scheme is refused", "http://app.example.com", http.StatusForbidden},
		{"a name that starts like localhost is refused", "http://localhost.evil.example", http.StatusForbidden},
		{"an opaque origin is refused", "null", http.StatusForbidden},
		{"a file origin is refused", "file://", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{"Authorization": "Bearer s3cret"}
			if tt.origin != "" {
				h["Origin"] = tt.origin
			}
			if resp := post(t, srv.URL, initializeBody, h); resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
}

func TestHTTPHandlerRefusesAForeignHost(t *testing.T) {
	srv := httptest.NewServer(fixtureServer().HTTPHandler(nil))
	defer srv.Close()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, strings.NewReader(initializeBody))
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("status %d, want 403", resp.StatusCode)
	}
}

func TestHTTPHandlerLimitsTheBody(t *testing.T) {
	// A valid initialize request of about n bytes.
	sized := func(n int) string {
		pad := strings.Repeat("x", max(n-len(initializeBody), 0))
		return strings.Replace(initializeBody, `"name":"test"`, `"name":"test`+pad+`"`, 1)
	}
	tests := []struct {
		name    string
		limit   int64
		body    string
		chunked bool
		status  int
	}{
		{"a body within the limit is served", 1024, sized(900), false, http.StatusOK},
		{"a body over the limit is refused", 1024, sized(2048), false, http.StatusRequestEntityTooLarge},
		{"a chunked body over the limit is refused", 1024, sized(2048), true, http.StatusRequestEntityTooLarge},
		{"the default limit is 4 MiB", 0, sized(5 << 20), false, http.StatusRequestEntityTooLarge},
		{"a negative limit means none", -1, sized(5 << 20), false, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(fixtureServer().HTTPHandler(&HTTPOptions{MaxBodyBytes: tt.limit}))
			defer srv.Close()
			var body io.Reader = strings.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // hides the length
			}
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, body)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
}

func TestHTTPHandlerStateless(t *testing.T) {
	srv := httptest.NewServer(fixtureServer().HTTPHandler(&HTTPOptions{Stateless: true}))
	defer srv.Close()

	t.Run("a call needs no initialize and opens no session", func(t *testing.T) {
		resp := post(t, srv.URL, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"alone"}}}`, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if id := resp.Header.Get(sessionHeader); id != "" {
			t.Errorf("the response opened session %q", id)
		}
		r := readRPC(t, resp)
		if r.Error != nil || !strings.Contains(string(r.Result), `"text":"alone"`) {
			t.Errorf("result %s, error %+v", r.Result, r.Error)
		}
	})
	t.Run("a GET is not allowed", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("status %d, want 405", resp.StatusCode)
		}
	})
	t.Run("an SDK client calls tools", func(t *testing.T) {
		cs := sdkClient(t, srv.URL, "")
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "fail", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || res.Content[0].(*sdk.TextContent).Text != "the disk is full: free some space and retry" {
			t.Errorf("fail gave %+v", res)
		}
	})
}

func TestServeShutsDownGracefully(t *testing.T) {
	s := fixtureServer()
	started, release := make(chan struct{}), make(chan struct{})
	s.AddTools(tool.New("slow", "Waits to be released.", tool.Read, func(ctx context.Context, _ struct{}) (string, error) {
		close(started)
		select {
		case <-release:
			return "finished", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}))
	logs := &logBuffer{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() {
		served <- s.Serve(ctx, ln, &HTTPOptions{ShutdownTimeout: time.Minute, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	}()

	// A session with an open event stream and a call in flight.
	init := post(t, url, initializeBody, nil)
	session := init.Header.Get(sessionHeader)
	if init.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: status %d, session %q", init.StatusCode, session)
	}
	readRPC(t, init)
	h := map[string]string{sessionHeader: session, "Mcp-Protocol-Version": "2025-11-25"}
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	stream := getStream(t, url, h)
	callReq, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url,
		strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`))
	callReq.Header.Set("Content-Type", "application/json")
	callReq.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		callReq.Header.Set(k, v)
	}
	type answer struct {
		resp *http.Response
		err  error
	}
	call := make(chan answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(callReq)
		call <- answer{resp, err}
	}()
	<-started

	cancel()
	// The event stream ends once shutdown starts…
	if _, err := io.Copy(io.Discard, stream.Body); err != nil {
		t.Logf("event stream ended with %v", err)
	}
	// …while the call in flight may finish.
	close(release)
	a := <-call
	if a.err != nil {
		t.Fatalf("the call in flight failed: %v", a.err)
	}
	defer a.resp.Body.Close()
	if r := readRPC(t, a.resp); r.Error != nil || !strings.Contains(string(r.Result), "finished") {
		t.Errorf("the call in flight gave %s %+v", r.Result, r.Error)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v", err)
	}
	if strings.Contains(logs.String(), "cut off") {
		t.Errorf("shutdown waited for its timeout:\n%s", logs)
	}
	for ss := range s.SDK().Sessions() {
		t.Errorf("session %q is still open after shutdown", ss.ID())
	}
}

func TestListenAndServeRefusesBadAddresses(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct{ name, addr, err string }{
		{"an empty address", "", "no address"},
		{"an address without a port", "localhost", "not host:port"},
		{"an address in use", busy.Addr().String(), "in use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fixtureServer().ListenAndServe(t.Context(), tt.addr, nil)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ListenAndServe(%q) = %v, want an error containing %q", tt.addr, err, tt.err)
			}
		})
	}
}

// getStream opens the session's event stream and returns once the server
// answered.
func getStream(t *testing.T, url string, header map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: status %d", resp.StatusCode)
	}
	return resp
}

// sdkClient connects the SDK's own client over Streamable HTTP.
func sdkClient(t testing.TB, url, token string) *sdk.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: bearer{token, http.DefaultTransport}}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.next.RoundTrip(r)
}

// logBuffer collects log output from several goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestServeForgetsSessionsThatEnded(t *testing.T) {
	s := fixtureServer()
	h := s.newHTTPHandler(&HTTPOptions{MaxSessions: 64}, t.Context())
	for i := range 200 {
		h.remember(fmt.Sprintf("gone-%d", i))
	}
	if !h.makeRoom() {
		t.Fatal("no room was made for a new session")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sessions) != 0 {
		t.Errorf("%d ended sessions are still remembered", len(h.sessions))
	}
}
