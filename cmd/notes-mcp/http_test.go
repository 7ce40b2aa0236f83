package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/mcp"
)

func TestHTTPSubprocessWithAToken(t *testing.T) {
	dir := t.TempDir()
	url := startHTTP(t, dir, "s3cret-token")
	ctx := context.Background()

	t.Run("a client with the token can use every tool", func(t *testing.T) {
		sess, err := mcp.ConnectHTTP(ctx, "notes", mcp.HTTP{URL: url, Token: "s3cret-token"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		tools := connectTools(t, sess)
		callSessionTool(t, tools, "add_note", map[string]any{"title": "Over HTTP", "body": "hello"})
		callSessionTool(t, tools, "append_to_note", map[string]any{"title": "Over HTTP", "text": "again"})
		if got := callSessionTool(t, tools, "read_note", map[string]any{"title": "Over HTTP"}); got != "hello\nagain" {
			t.Errorf("read_note = %q", got)
		}
		if got := callSessionTool(t, tools, "search_notes", map[string]any{"text": "AGAIN"}); got != "Over HTTP" {
			t.Errorf("search_notes = %q", got)
		}
		if index, err := sess.ReadResource(ctx, indexURI); err != nil || index != "Over HTTP\n" {
			t.Errorf("index = %q, %v", index, err)
		}
	})
	for _, c := range []struct{ name, token string }{
		{"a client without the token is refused", ""},
		{"a client with a wrong token is refused", "guess"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sess, err := mcp.ConnectHTTP(ctx, "notes", mcp.HTTP{URL: url, Token: c.token}, nil)
			if err == nil {
				sess.Close()
				t.Fatal("connected")
			}
			if !errors.Is(err, mcp.ErrUnauthorized) {
				t.Errorf("error = %v, want one wrapping mcp.ErrUnauthorized", err)
			}
			if strings.Contains(err.Error(), "s3cret-token") {
				t.Errorf("error %q shows the token", err)
			}
		})
	}
	t.Run("a raw request without the token gets 401", func(t *testing.T) {
		if status := pingStatus(t, url, nil); status != http.StatusUnauthorized {
			t.Errorf("status = %d, want 401", status)
		}
	})
	t.Run("a page from another origin gets 403", func(t *testing.T) {
		header := map[string]string{"Authorization": "Bearer s3cret-token", "Origin": "https://evil.example"}
		if status := pingStatus(t, url, header); status != http.StatusForbidden {
			t.Errorf("status = %d, want 403", status)
		}
	})
	if body, err := os.ReadFile(filepath.Join(dir, "Over HTTP.md")); err != nil || string(body) != "hello\nagain" {
		t.Errorf("the note on disk is %q, %v", body, err)
	}
}

func TestHTTPSubprocessWithoutAToken(t *testing.T) {
	url := startHTTP(t, t.TempDir(), "")
	sess, err := mcp.ConnectHTTP(context.Background(), "notes", mcp.HTTP{URL: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tools := connectTools(t, sess)
	if got := callSessionTool(t, tools, "search_notes", map[string]any{}); got != "There are no notes yet." {
		t.Errorf("search_notes = %q", got)
	}
}

// TestConcurrentAddsOverHTTP has many clients add, replace and append to
// notes at once through one server, and checks that every note is there,
// whole, and that no append was lost.
func TestConcurrentAddsOverHTTP(t *testing.T) {
	s := newStore(t)
	srv := newServer(s, "test", nil)
	hs := httptest.NewServer(srv.HTTPHandler(&mcp.HTTPOptions{MaxBodyBytes: maxRequestBytes}))
	defer hs.Close()
	ctx := context.Background()

	const clients, notesEach = 8, 12
	body := func(c, i int) string {
		// Sizes vary so that a torn or interleaved write would show.
		line := fmt.Sprintf("client %d note %d\n", c, i)
		return strings.Repeat(line, 1+(c*notesEach+i)%7*500)
	}
	shared := func(c int) string { return strings.Repeat(fmt.Sprintf("%d", c), 10_000) }

	if _, err := s.put("Log", "start"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients*(notesEach*2+1))
	for c := range clients {
		wg.Go(func() {
			sess, err := mcp.ConnectHTTP(ctx, "notes", mcp.HTTP{URL: hs.URL + "/mcp"}, nil)
			if err != nil {
				errs <- err
				return
			}
			defer sess.Close()
			list, err := sess.Tools(ctx)
			if err != nil {
				errs <- err
				return
			}
			tools := map[string]toolCaller{}
			for _, tl := range list {
				tools[tl.Name] = tl
			}
			call := func(name string, args string) {
				if _, err := tools[name].Call(ctx, []byte(args)); err != nil {
					errs <- fmt.Errorf("client %d: %s %s: %w", c, name, args[:min(len(args), 60)], err)
				}
			}
			for i := range notesEach {
				call("add_note", fmt.Sprintf(`{"title":"Note %d %d","body":%q}`, c, i, body(c, i)))
				call("add_note", fmt.Sprintf(`{"title":"Shared","body":%q}`, shared(c)))
				call("append_to_note", fmt.Sprintf(`{"title":"Log","text":"client %d entry %d"}`, c, i))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	titles, err := s.titles()
	if err != nil {
		t.Fatal(err)
	}
	if want := clients*notesEach + 2; len(titles) != want {
		t.Errorf("%d notes, want %d", len(titles), want)
	}
	for c := range clients {
		for i := range notesEach {
			title := fmt.Sprintf("Note %d %d", c, i)
			got, err := s.read(title)
			if err != nil {
				t.Errorf("%s: %v", title, err)
			} else if got != body(c, i) {
				t.Errorf("%s is not the body written (%d bytes, want %d)", title, len(got), len(body(c, i)))
			}
		}
	}
	sharedBody, err := s.read("Shared")
	if err != nil {
		t.Fatal(err)
	}
	whole := false
	for c := range clients {
		whole = whole || sharedBody == shared(c)
	}
	if !whole {
		t.Errorf("Shared is not one whole body: %d bytes starting %q", len(sharedBody), sharedBody[:min(20, len(sharedBody))])
	}
	logBody, err := s.read("Log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(logBody, "\n")
	if len(lines) != 1+clients*notesEach {
		t.Errorf("Log has %d lines, want %d", len(lines), 1+clients*notesEach)
	}
	seen := map[string]bool{}
	for _, l := range lines[1:] {
		seen[l] = true
	}
	for c := range clients {
		for i := range notesEach {
			if l := fmt.Sprintf("client %d entry %d", c, i); !seen[l] {
				t.Errorf("Log lost %q", l)
			}
		}
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("a temporary file was left behind: %s", e.Name())
		}
	}
}

// pingStatus posts a ping to url with header and returns the status.
func pingStatus(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
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
	resp.Body.Close()
	return resp.StatusCode
}
