package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// openSession initializes a session over HTTP and returns its id.
func openSession(t *testing.T, url string) string {
	t.Helper()
	resp := post(t, url, initializeBody, nil)
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("initialize: status %d: %s", resp.StatusCode, body)
	}
	id := resp.Header.Get(sessionHeader)
	if id == "" {
		t.Fatal("initialize opened no session")
	}
	resp.Body.Close()
	return id
}

// pingSession reports the status of a ping in session id.
func pingSession(t *testing.T, url, id string) int {
	t.Helper()
	resp := post(t, url, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, map[string]string{sessionHeader: id, versionHeader: "2025-11-25"})
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func TestHTTPSessionsStayWithinMaxSessions(t *testing.T) {
	srv := httptest.NewServer(fixtureServer().HTTPHandler(&HTTPOptions{MaxSessions: 2}))
	defer srv.Close()

	first := openSession(t, srv.URL)
	second := openSession(t, srv.URL)
	if got := pingSession(t, srv.URL, first); got != http.StatusOK {
		t.Fatalf("ping in the first session: status %d", got)
	}
	// first was used after second: second is now the one quiet longest.
	third := openSession(t, srv.URL)
	if got := pingSession(t, srv.URL, second); got != http.StatusNotFound {
		t.Errorf("ping in the session quiet longest after a third opened: status %d, want 404 (closed)", got)
	}
	for _, id := range []string{first, third} {
		if got := pingSession(t, srv.URL, id); got != http.StatusOK {
			t.Errorf("ping in session %s: status %d, want 200", id, got)
		}
	}
}

func TestHTTPRefusesANewSessionWhenEveryOneIsBusy(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	s := NewServer("busy", "1", nil)
	s.AddTools(tool.New("wait", "Waits.", tool.Read, func(ctx context.Context, _ struct{}) (string, error) {
		close(started)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return "done", nil
	}))
	srv := httptest.NewServer(s.HTTPHandler(&HTTPOptions{MaxSessions: 1}))
	defer srv.Close()

	id := openSession(t, srv.URL)
	done := make(chan int)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(sessionHeader, id)
		req.Header.Set(versionHeader, "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	<-started

	resp := post(t, srv.URL, initializeBody, nil)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "too many sessions") {
		t.Errorf("a new session while the only one is busy: status %d %q, want 503 naming the limit", resp.StatusCode, body)
	}
	close(release)
	if got := <-done; got != http.StatusOK {
		t.Errorf("the running call: status %d", got)
	}
	if got := pingSession(t, srv.URL, id); got != http.StatusOK {
		t.Errorf("the busy session after the refusal: status %d, want 200", got)
	}
}

// serveForTest runs s.serve on a loopback port with the given limits and
// returns its address.
func serveForTest(t *testing.T, s *Server, limits connLimits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.serve(ctx, ln, nil, limits) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String()
}

func TestServeDropsAClientThatNeverSendsTheBody(t *testing.T) {
	addr := serveForTest(t, fixtureServer(), connLimits{header: time.Minute, body: 50 * time.Millisecond, idle: time.Minute})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Headers promising a body that never comes.
	io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a request whose body never came: %v", err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("status %d, want 408", resp.StatusCode)
	}
	if _, err := io.ReadAll(resp.Body); err != nil && !isClosed(err) {
		t.Errorf("reading the rest: %v", err)
	}
	if _, err := conn.Read(make([]byte, 1)); !isClosed(err) {
		t.Errorf("the connection stays open after the body timed out: %v", err)
	}
}

func TestServeClosesAnIdleConnectionAfterA401(t *testing.T) {
	s := fixtureServer()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.serve(ctx, ln, &HTTPOptions{Token: "s3cret"}, connLimits{header: time.Minute, body: time.Minute, idle: 50 * time.Millisecond})
	}()
	defer func() { cancel(); <-done }()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", resp.StatusCode)
	}
	if _, err := br.ReadByte(); !isClosed(err) {
		t.Errorf("the connection of a refused client stays open: %v", err)
	}
}

// isClosed reports whether err is the peer closing the connection.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

func TestOneEndpointServesBothEras(t *testing.T) {
	srv := httptest.NewServer(fixtureServer().HTTPHandler(nil))
	defer srv.Close()

	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		t.Run("a go-sdk client at "+version+" calls a tool", func(t *testing.T) {
			c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: srv.URL}, &sdk.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %q, want %q", got, version)
			}
			if stateless := cs.ID() == ""; stateless != (version >= statelessRevision) {
				t.Errorf("session id %q at %s", cs.ID(), version)
			}
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil {
				t.Fatal(err)
			}
			if text := res.Content[0].(*sdk.TextContent).Text; res.IsError || text != "hi" {
				t.Errorf("echo: %q (isError %v)", text, res.IsError)
			}
		})
	}

	t.Run("server/discover lists the stateless revision beside the others", func(t *testing.T) {
		resp := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`,
			map[string]string{versionHeader: "2026-07-28", methodHeader: methodDiscover})
		r := readRPC(t, resp)
		var res struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatalf("discover: %s (error %v)", r.Result, r.Error)
		}
		if !strings.Contains(strings.Join(res.SupportedVersions, ","), "2026-07-28") || !strings.Contains(strings.Join(res.SupportedVersions, ","), "2025-11-25") {
			t.Errorf("supportedVersions %v, want 2026-07-28 and 2025-11-25", res.SupportedVersions)
		}
	})
}
