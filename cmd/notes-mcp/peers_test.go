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

	"github.com/bridle-dev/bridle/internal/peers"
)

// The MCP conformance scenarios that apply to any server, run against
// notes-mcp over HTTP.
func TestConformance(t *testing.T) {
	node, suite := peers.Node22(t), peers.Conformance(t)
	url := startHTTP(t, t.TempDir(), "")
	for _, scenario := range []string{"server-initialize", "ping", "tools-list", "resources-list", "dns-rebinding-protection"} {
		t.Run(scenario+" passes", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "server", "--url", url, "--scenario", scenario, "-o", t.TempDir())
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("conformance scenario %s failed: %v\n%s", scenario, err, out)
			}
			if !strings.Contains(string(out), " 0 failed") {
				t.Errorf("conformance scenario %s did not report 0 failed:\n%s", scenario, out)
			}
		})
	}
}

// inspector runs the MCP Inspector CLI with args and returns what it
// printed on stdout and its exit code.
func inspector(t *testing.T, args ...string) (string, int) {
	t.Helper()
	node, cli := peers.Node22(t), peers.Inspector(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{cli, "--cli"}, args...)...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"))
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatalf("inspector %q: %v\n%s", args, err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("inspector stderr: %s", stderr.String())
	}
	return string(out), 0
}

// inspectorResult is the part of the Inspector's JSON output the tests read.
type inspectorResult struct {
	Tools []struct {
		Name        string `json:"name"`
		Annotations struct {
			ReadOnlyHint bool `json:"readOnlyHint"`
		} `json:"annotations"`
	} `json:"tools"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	IsError  bool `json:"isError"`
	Contents []struct {
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
	} `json:"contents"`
}

func parseInspector(t *testing.T, out string) inspectorResult {
	t.Helper()
	var r inspectorResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("inspector output is not JSON: %v\n%s", err, out)
	}
	return r
}

// checkWithInspector lists and calls the tools of the server that target
// (the Inspector's arguments naming a server) reaches.
func checkWithInspector(t *testing.T, target ...string) {
	run := func(t *testing.T, args ...string) (inspectorResult, int) {
		t.Helper()
		out, code := inspector(t, append(slices.Clone(target), args...)...)
		return parseInspector(t, out), code
	}
	t.Run("resources/read gives the index of a folder with no notes", func(t *testing.T) {
		r, code := run(t, "--method", "resources/read", "--uri", indexURI)
		if code != 0 || len(r.Contents) > 1 || len(r.Contents) == 1 && r.Contents[0].Text != "" {
			t.Fatalf("resources/read: exit %d, %+v", code, r)
		}
	})
	t.Run("tools/list shows every tool with a portable schema", func(t *testing.T) {
		r, code := run(t, "--method", "tools/list", "--strict")
		if code != 0 {
			t.Fatalf("exit code %d", code)
		}
		var names []string
		for _, tl := range r.Tools {
			names = append(names, tl.Name)
			if want := tl.Name == "search_notes" || tl.Name == "read_note"; tl.Annotations.ReadOnlyHint != want {
				t.Errorf("%s: readOnlyHint = %v, want %v", tl.Name, tl.Annotations.ReadOnlyHint, want)
			}
		}
		slices.Sort(names)
		want := []string{"add_note", "append_to_note", "delete_note", "edit_note", "read_note", "rename_note", "search_notes"}
		if !slices.Equal(names, want) {
			t.Errorf("tools = %q, want %q", names, want)
		}
	})
	t.Run("tools/call adds and reads a note", func(t *testing.T) {
		r, code := run(t, "--method", "tools/call", "--tool-name", "add_note", "--tool-arg", "title=From the Inspector", "--tool-arg", "body=Hello, world")
		if code != 0 || r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, `Created note "From the Inspector"`) {
			t.Fatalf("add_note: exit %d, %+v", code, r)
		}
		r, code = run(t, "--method", "tools/call", "--tool-name", "read_note", "--tool-arg", "title=From the Inspector")
		if code != 0 || len(r.Content) != 1 || r.Content[0].Text != "Hello, world" {
			t.Fatalf("read_note: exit %d, %+v", code, r)
		}
	})
	t.Run("tools/call of a missing note is a failed call", func(t *testing.T) {
		r, code := run(t, "--method", "tools/call", "--tool-name", "read_note", "--tool-arg", "title=Missing")
		if code == 0 || !r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, `there is no note titled "Missing"`) {
			t.Fatalf("read_note of a missing note: exit %d, %+v", code, r)
		}
	})
	t.Run("resources/read gives the index", func(t *testing.T) {
		r, code := run(t, "--method", "resources/read", "--uri", indexURI)
		if code != 0 || len(r.Contents) != 1 || r.Contents[0].Text != "From the Inspector\n" || r.Contents[0].MIMEType != "text/plain" {
			t.Fatalf("resources/read: exit %d, %+v", code, r)
		}
	})
}

func TestInspectorOverStdio(t *testing.T) {
	peers.Node22(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The Inspector starts stdio servers without this process's
	// environment: the test binary needs its switch passed on.
	checkWithInspector(t, "-e", beEnv+"=main", exe, "--dir", t.TempDir())
}

func TestInspectorOverHTTP(t *testing.T) {
	peers.Node22(t)
	url := startHTTP(t, t.TempDir(), "inspector-token")
	checkWithInspector(t, url, "--transport", "http", "--header", "Authorization: Bearer inspector-token")
	t.Run("without the token the Inspector is refused", func(t *testing.T) {
		if out, code := inspector(t, url, "--transport", "http", "--method", "tools/list"); code == 0 {
			t.Errorf("tools/list without the token succeeded:\n%s", out)
		}
	})
}
