package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// openSession initializes a session at url and returns its id, leaving it
// open: no DELETE, as a client that goes away does.
func openSession(t *testing.T, url string) string {
	t.Helper()
	post := func(body, session string) *http.Response {
		req, err := http.NewRequest("POST", url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
	resp := post(string(init), "")
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: status %d, session %q", resp.StatusCode, id)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, id)
	return id
}

func TestHTTPSessionsStayWithinMaxSessions(t *testing.T) {
	url := startHTTP(t, t.TempDir(), "", "--max-sessions", "3")
	var ids []string
	for range 12 {
		ids = append(ids, openSession(t, url))
	}
	var live []int
	for i, id := range ids {
		status := pingStatus(t, url, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"})
		switch status {
		case http.StatusOK:
			live = append(live, i)
		case http.StatusNotFound:
		default:
			t.Errorf("ping in session %d: status %d, want 200 or 404 (closed)", i, status)
		}
	}
	if len(live) > 3 {
		t.Errorf("%d of 12 sessions opened without DELETE are still open (%v), want at most --max-sessions 3", len(live), live)
	}
	if len(live) == 0 || live[len(live)-1] != len(ids)-1 {
		t.Errorf("the newest session is not among the open ones %v", live)
	}
}

func TestHTTPCutsOffAClientThatNeverSendsItsBody(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the server's body time limit")
	}
	url := startHTTP(t, t.TempDir(), "s3cret")
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nAuthorization: Bearer s3cret\r\n"+
		"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	// Without a limit the server waits for the rest for ever; the deadline
	// only keeps the test from doing the same.
	conn.SetReadDeadline(time.Now().Add(3 * time.Minute))
	_, err = io.Copy(io.Discard, bufio.NewReader(conn))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("the server still holds the connection of a client that never sent its body")
	}
}
