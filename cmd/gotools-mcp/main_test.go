package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bridle "github.com/bridle-dev/bridle"
	"github.com/bridle-dev/bridle/internal/childenv"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/mcp/mcptest"
	"github.com/bridle-dev/bridle/sandbox"
)

// TestMain lets the test binary stand in for gotools-mcp in the
// subprocess test: with GOTOOLS_MCP_SERVE set it serves MCP on stdio.
func TestMain(m *testing.M) {
	if os.Getenv("GOTOOLS_MCP_SERVE") == "1" {
		if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
			os.Stderr.WriteString("gotools-mcp: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testdataRoot is the absolute path of testdata, the root most tests serve.
func testdataRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func newTestServer(t *testing.T, root string) *mcp.Server {
	t.Helper()
	s, err := newServer(root, newConfinement(sandbox.Auto), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rpc sends one JSON-RPC request through an mcptest connection and
// decodes its result.
func rpc(t *testing.T, s *mcp.Server, method string, params any, result any) {
	t.Helper()
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcptest.Connect(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Handle(t.Context(), line)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	var r struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatalf("%s: response %s: %v", method, resp, err)
	}
	if r.Error != nil {
		t.Fatalf("%s: error %d: %s", method, r.Error.Code, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, result); err != nil {
		t.Fatalf("%s: result %s: %v", method, r.Result, err)
	}
}

// call calls a tool and returns its text and whether it failed.
func call(t *testing.T, s *mcp.Server, name string, args map[string]any) (string, bool) {
	t.Helper()
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	rpc(t, s, "tools/call", map[string]any{"name": name, "arguments": args}, &res)
	var texts []string
	for _, c := range res.Content {
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, "\n"), res.IsError
}

// toolCase is one call of a tool and what its answer must be.
type toolCase struct {
	name string
	args map[string]any
	want expect
}

// runCases calls tool on s once per case, in parallel subtests, and checks
// each answer against the case and with also, when given.
func runCases(t *testing.T, s *mcp.Server, tool string, cases []toolCase, also ...func(t *testing.T, text string)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text, failed := call(t, s, tool, tc.args)
			tc.want.check(t, text, failed)
			for _, check := range also {
				check(t, text)
			}
		})
	}
}

// expect checks a tool's answer: whether it failed, and what it must and
// must not contain.
type expect struct {
	fails   bool
	has     []string
	hasNot  []string
	prefix  string
	exactly string
}

func (e expect) check(t *testing.T, text string, failed bool) {
	t.Helper()
	if failed != e.fails {
		t.Errorf("failed = %v, want %v; answer:\n%s", failed, e.fails, text)
	}
	for _, h := range e.has {
		if !strings.Contains(text, h) {
			t.Errorf("answer lacks %q:\n%s", h, text)
		}
	}
	for _, h := range e.hasNot {
		if strings.Contains(text, h) {
			t.Errorf("answer has %q:\n%s", h, text)
		}
	}
	if e.prefix != "" && !strings.HasPrefix(text, e.prefix) {
		t.Errorf("answer does not start with %q:\n%s", e.prefix, text)
	}
	if e.exactly != "" && text != e.exactly {
		t.Errorf("answer is\n%s\nwant\n%s", text, e.exactly)
	}
}

func TestToolsAreAnnouncedWithTheirRisks(t *testing.T) {
	s := newTestServer(t, testdataRoot(t))
	var list struct {
		Tools []struct {
			Name        string
			Annotations struct {
				ReadOnlyHint bool
			}
			InputSchema struct {
				Properties map[string]any
			}
		}
	}
	rpc(t, s, "tools/list", map[string]any{}, &list)
	want := map[string]struct {
		readOnly bool
		args     []string
	}{
		"go_check": {false, []string{"path", "code"}},
		"go_run":   {false, []string{"path", "code", "args", "stdin", "timeout_seconds"}},
		"go_test":  {false, []string{"path", "run", "timeout_seconds"}},
		"go_doc":   {true, []string{"symbol", "path"}},
		"go_fmt":   {true, []string{"path", "code"}},
	}
	if len(list.Tools) != len(want) {
		t.Errorf("got %d tools, want %d", len(list.Tools), len(want))
	}
	for _, tl := range list.Tools {
		w, ok := want[tl.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tl.Name)
			continue
		}
		if tl.Annotations.ReadOnlyHint != w.readOnly {
			t.Errorf("%s: readOnlyHint = %v, want %v", tl.Name, tl.Annotations.ReadOnlyHint, w.readOnly)
		}
		if len(tl.InputSchema.Properties) != len(w.args) {
			t.Errorf("%s: %d arguments, want %v", tl.Name, len(tl.InputSchema.Properties), w.args)
		}
		for _, a := range w.args {
			if _, ok := tl.InputSchema.Properties[a]; !ok {
				t.Errorf("%s: no argument %q", tl.Name, a)
			}
		}
	}
}

func TestTheInstructionsPointAtLLMsTxt(t *testing.T) {
	s := newTestServer(t, testdataRoot(t))
	var init struct{ Instructions string }
	rpc(t, s, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "test", "version": "1"},
	}, &init)
	for _, want := range []string{"bridle://llms.txt", "path"} {
		if !strings.Contains(init.Instructions, want) {
			t.Errorf("instructions lack %q:\n%s", want, init.Instructions)
		}
	}
}

func TestTheLLMsTxtResourceIsTheEmbeddedFile(t *testing.T) {
	s := newTestServer(t, testdataRoot(t))
	var list struct {
		Resources []struct{ URI, MIMEType string }
	}
	rpc(t, s, "resources/list", map[string]any{}, &list)
	if len(list.Resources) != 1 || list.Resources[0].URI != "bridle://llms.txt" {
		t.Fatalf("resources = %+v, want bridle://llms.txt alone", list.Resources)
	}
	var read struct {
		Contents []struct{ URI, MIMEType, Text string }
	}
	rpc(t, s, "resources/read", map[string]any{"uri": "bridle://llms.txt"}, &read)
	if len(read.Contents) != 1 || read.Contents[0].Text != bridle.LLMsTxt() {
		t.Fatalf("read %d contents, want the text of llms.txt", len(read.Contents))
	}
	if mt := read.Contents[0].MIMEType; mt != "text/markdown" {
		t.Errorf("MIME type %q, want text/markdown", mt)
	}
	disk, err := os.ReadFile("../../llms.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(disk, []byte(bridle.LLMsTxt())) {
		t.Error("the embedded llms.txt differs from the file")
	}
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		wantOut string
		wantErr string
	}{
		{"--help prints the usage and the flags", []string{"--help"}, "-root", ""},
		{"--version prints the name and version", []string{"--version"}, "gotools-mcp ", ""},
		{"an unknown flag is an error that points at --help", []string{"--nope"}, "", "see gotools-mcp --help"},
		{"an argument is refused", []string{"serve"}, "", `unexpected argument "serve"`},
		{"a root that does not exist is refused", []string{"--root", "testdata/nowhere"}, "", "does not exist"},
		{"a root that is a file is refused", []string{"--root", "main.go"}, "", "is not a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(t.Context(), tc.args, strings.NewReader(""), &out, &errOut)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("output lacks %q:\n%s", tc.wantOut, out.String())
			}
		})
	}
}

func TestServingEndsWhenStdinEnds(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	var out bytes.Buffer
	if err := run(t.Context(), []string{"--root", "testdata"}, in, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
}

// TestOverStdio runs the server as a child process, as Claude Code does,
// and talks to it with Bridle's own MCP client.
func TestOverStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	sess, err := mcp.ConnectCommand(t.Context(), "gotools", mcp.Command{
		Path:     exe,
		Args:     []string{"--root", testdataRoot(t)},
		Env:      []string{"GOTOOLS_MCP_SERVE=1"},
		EnvNames: childenv.Go,
		Stderr:   &stderr,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := sess.Close(); err != nil {
			t.Errorf("close: %v (stderr: %s)", err, stderr.String())
		}
	}()
	if !strings.Contains(sess.Instructions(), "bridle://llms.txt") {
		t.Errorf("instructions lack bridle://llms.txt:\n%s", sess.Instructions())
	}
	tools, err := sess.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, tl := range tools {
		byName[tl.Name] = i
	}
	for _, name := range []string{"go_check", "go_run", "go_test", "go_doc", "go_fmt"} {
		if _, ok := byName[name]; !ok {
			t.Fatalf("tool %s missing from %v", name, byName)
		}
	}
	out, err := tools[byName["go_check"]].Call(t.Context(), json.RawMessage(`{"path":"typeerror"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "typeerror/main.go:6:14: cannot use") {
		t.Errorf("go_check over stdio:\n%s", out)
	}
	_, err = tools[byName["go_run"]].Call(t.Context(), json.RawMessage(`{"path":"../.."}`))
	if err == nil || !strings.Contains(err.Error(), "outside the project root") {
		t.Errorf("go_run outside the root: err = %v", err)
	}
	out, err = tools[byName["go_run"]].Call(t.Context(), json.RawMessage(`{"code":`+strconv.Quote(floods)+`}`))
	if err != nil || !strings.Contains(out, "wrote more than 16 MiB") {
		t.Errorf("go_run of a program that floods its output over stdio: %v\n%.300s", err, out)
	}
	text, err := sess.ReadResource(t.Context(), "bridle://llms.txt")
	if err != nil {
		t.Fatal(err)
	}
	if text != bridle.LLMsTxt() {
		t.Error("bridle://llms.txt over stdio differs from the embedded llms.txt")
	}
}
