package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bridle "github.com/bridle-dev/bridle"
	"github.com/bridle-dev/bridle/internal/peers"
)

// TestInspector drives gotools-mcp over stdio with the MCP Inspector CLI,
// a client written independently of ours.
func TestInspector(t *testing.T) {
	node, cli := peers.Node22(t), peers.Inspector(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Nor does it pass HOME on as it is: the go command's caches are named.
	caches, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache, modcache, _ := strings.Cut(strings.TrimSpace(string(caches)), "\n")
	inspect := func(t *testing.T, args ...string) (out struct {
		Tools []struct {
			Name        string
			Annotations struct{ ReadOnlyHint bool }
		}
		Content  []struct{ Text string }
		IsError  bool
		Contents []struct {
			MIMEType string
			Text     string
		}
	}) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		// The Inspector starts a stdio server without this process's
		// environment: the test binary's switch is passed on.
		base := []string{cli, "--cli", "-e", "GOTOOLS_MCP_SERVE=1", "-e", "GOCACHE=" + cache, "-e", "GOMODCACHE=" + modcache,
			exe, "--root", testdataRoot(t)}
		cmd := exec.CommandContext(ctx, node, append(base, args...)...)
		home := t.TempDir()
		cmd.Env = append(os.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"))
		cmd.WaitDelay = 5 * time.Second
		var stderr strings.Builder
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil && !errors.As(err, new(*exec.ExitError)) {
			t.Fatalf("inspector %q: %v\n%s", args, err, stderr.String())
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("inspector %q printed no JSON: %v\n%s\n%s", args, err, b, stderr.String())
		}
		return out
	}

	t.Run("tools/list shows the five tools with portable schemas", func(t *testing.T) {
		r := inspect(t, "--method", "tools/list", "--strict")
		var names []string
		for _, tl := range r.Tools {
			names = append(names, tl.Name)
			if want := tl.Name == "go_doc" || tl.Name == "go_fmt"; tl.Annotations.ReadOnlyHint != want {
				t.Errorf("%s: readOnlyHint = %v, want %v", tl.Name, tl.Annotations.ReadOnlyHint, want)
			}
		}
		slices.Sort(names)
		if want := []string{"go_check", "go_doc", "go_fmt", "go_run", "go_test"}; !slices.Equal(names, want) {
			t.Errorf("tools = %q, want %q", names, want)
		}
	})
	t.Run("tools/call go_check reports a type error", func(t *testing.T) {
		r := inspect(t, "--method", "tools/call", "--tool-name", "go_check", "--tool-arg", "path=typeerror")
		if r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, "typeerror/main.go:6:14: cannot use") {
			t.Errorf("go_check: %+v", r)
		}
	})
	t.Run("tools/call with a path outside the root is a failed call", func(t *testing.T) {
		r := inspect(t, "--method", "tools/call", "--tool-name", "go_fmt", "--tool-arg", "path=/etc")
		if !r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, "outside the project root") {
			t.Errorf("go_fmt outside the root: %+v", r)
		}
	})
	t.Run("resources/read gives llms.txt", func(t *testing.T) {
		r := inspect(t, "--method", "resources/read", "--uri", "bridle://llms.txt")
		if len(r.Contents) != 1 || r.Contents[0].Text != bridle.LLMsTxt() || r.Contents[0].MIMEType != "text/markdown" {
			t.Errorf("resources/read: %d contents", len(r.Contents))
		}
	})
}
