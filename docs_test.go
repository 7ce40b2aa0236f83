package bridle_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// fence is a fenced code block of a Markdown file.
type fence struct {
	file string // where it is, for messages
	line int    // the line of its first line of code
	lang string // the first word of the info string: go, sh, json…
	tags []string
	code string
	// prelude is the text of an HTML comment "<!-- check: … -->" right
	// before the fence: declarations a Go fragment needs but does not show.
	prelude string
}

// fences returns the fenced blocks of a Markdown text.
func fences(file, text string) []fence {
	var out []fence
	var cur *fence
	var code strings.Builder
	var comment strings.Builder
	inComment, prelude := false, ""
	ticks := 0 // the backticks of the open fence: it closes on as many or more
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil && len(trimmed) >= ticks && strings.Trim(trimmed, "`") == "":
			cur.code = code.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			code.WriteString(line + "\n")
		case inComment:
			if before, ok := strings.CutSuffix(trimmed, "-->"); ok {
				comment.WriteString(before + "\n")
				prelude, inComment = comment.String(), false
			} else {
				comment.WriteString(line + "\n")
			}
		case strings.HasPrefix(trimmed, "<!-- check:"):
			rest := strings.TrimPrefix(trimmed, "<!-- check:")
			comment.Reset()
			if before, ok := strings.CutSuffix(rest, "-->"); ok {
				prelude = before + "\n"
			} else {
				comment.WriteString(rest + "\n")
				inComment = true
			}
		case strings.HasPrefix(trimmed, "```"):
			info := strings.TrimLeft(trimmed, "`")
			ticks = len(trimmed) - len(info)
			words := strings.Fields(info)
			cur = &fence{file: file, line: n + 1, prelude: prelude}
			if len(words) > 0 {
				cur.lang, cur.tags = words[0], words[1:]
			}
			code.Reset()
			prelude = ""
		case trimmed != "":
			prelude = "" // a prelude belongs to the fence right after it
		}
	}
	return out
}

// docFiles are the Markdown files whose code blocks are checked.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("*/README.md") // bench/, durable/ and the like
	return append(append([]string{"README.md"}, files...), more...)
}

func docFences(t *testing.T, lang ...string) []fence {
	t.Helper()
	var out []fence
	for _, f := range docFiles(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range fences(f, string(text)) {
			if slices.Contains(lang, b.lang) {
				out = append(out, b)
			}
		}
	}
	return out
}

// knownImports are the packages a fragment may use without importing
// them: it is type-checked with all of them imported, and an unused import
// is not an error there.
var knownImports = map[string]string{
	"llm":      "github.com/bridle-dev/bridle/llm",
	"llmtest":  "github.com/bridle-dev/bridle/llm/llmtest",
	"tool":     "github.com/bridle-dev/bridle/tool",
	"mcp":      "github.com/bridle-dev/bridle/mcp",
	"mcptest":  "github.com/bridle-dev/bridle/mcp/mcptest",
	"agent":    "github.com/bridle-dev/bridle/agent",
	"keychain": "github.com/bridle-dev/bridle/keychain",
	"sandbox":  "github.com/bridle-dev/bridle/sandbox",
	"context":  "context",
	"errors":   "errors",
	"fmt":      "fmt",
	"io":       "io",
	"os":       "os",
	"signal":   "os/signal",
	"exec":     "os/exec",
	"json":     "encoding/json",
	"http":     "net/http",
	"slog":     "log/slog",
	"strings":  "strings",
	"time":     "time",
	"filepath": "path/filepath",
	"testing":  "testing",
	// OpenTelemetry, for docs/tracing.md.
	"otel":          "go.opentelemetry.io/otel",
	"sdktrace":      "go.opentelemetry.io/otel/sdk/trace",
	"otlptracehttp": "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp",
}

// importable returns the known import paths that exist in this module or
// the standard library, with their export data, built by the go command.
func importable(t *testing.T) (paths map[string]string, exports map[string]string) {
	t.Helper()
	var want []string
	paths = map[string]string{}
	for name, p := range knownImports {
		if strings.HasPrefix(p, "github.com/bridle-dev/bridle/") {
			if _, err := os.Stat(strings.TrimPrefix(p, "github.com/bridle-dev/bridle/")); err != nil {
				continue // a package this checkout does not have
			}
		}
		paths[name] = p
		want = append(want, p)
	}
	slices.Sort(want)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, want...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.String())
	}
	exports = map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if p, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			exports[p] = file
		}
	}
	return paths, exports
}

// goSource turns a Go block into a file to type-check, and says on which
// line of that file the block's first line is. A block with a package
// clause is a file as it is. Any other block is a fragment: its
// declarations of functions and methods stay at the top level, the rest
// is the body of a function returning error; either way "…" stands for
// code left out, and every known package is imported.
func goSource(b fence, paths map[string]string) (string, int) {
	if regexp.MustCompile(`(?m)^package \w+`).MatchString(b.code) {
		return b.code, 1
	}
	code := strings.ReplaceAll(b.code, "{ … }", "{ panic(0) }")
	code = regexp.MustCompile(`(?m)^\s*…\s*$`).ReplaceAllString(code, "")
	code = strings.ReplaceAll(code, "…", "nil")

	var head strings.Builder
	head.WriteString("package fragment\n\nimport (\n")
	names := make([]string, 0, len(paths))
	for name := range paths {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&head, "\t%s %q\n", name, paths[name])
	}
	head.WriteString(")\n\nvar ctx = context.Background()\n\n")
	head.WriteString(b.prelude)
	head.WriteString("\n")
	if regexp.MustCompile(`(?m)^func `).MatchString(code) && !strings.Contains(code, ":=") {
		// Top-level declarations: functions, types, variables.
		return head.String() + code, strings.Count(head.String(), "\n") + 1
	}
	head.WriteString("func _() error {\n")
	return head.String() + code + "\treturn nil\n}\n", strings.Count(head.String(), "\n") + 1
}

// TestDocsGoBlocks type-checks every Go block of README.md and docs/*.md
// against this module, so that what they show still compiles as the API
// changes. Unused variables and imports are allowed: a fragment shows a
// part of a program.
func TestDocsGoBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the packages with the go command")
	}
	blocks := docFences(t, "go")
	if len(blocks) < 5 {
		t.Fatalf("found %d Go blocks in the docs; the reader is wrong", len(blocks))
	}
	paths, exports := importable(t)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %q: add it to knownImports", path)
		}
		return os.Open(file)
	})
	for _, b := range blocks {
		if slices.Contains(b.tags, "durable") {
			continue // the durable module checks its own (durable/docs_test.go)
		}
		src, first := goSource(b, paths)
		where := func(pos token.Position) string {
			return fmt.Sprintf("%s:%d", b.file, b.line+pos.Line-first)
		}
		f, err := parser.ParseFile(fset, b.file, src, parser.SkipObjectResolution)
		if err != nil {
			var list scanner.ErrorList
			if errors.As(err, &list) {
				for _, e := range list {
					t.Errorf("%s: %s", where(e.Pos), e.Msg)
				}
			} else {
				t.Errorf("%s:%d: %v", b.file, b.line, err)
			}
			continue
		}
		conf := types.Config{Importer: imp, Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				if te.Soft && (strings.Contains(te.Msg, "declared and not used") || strings.Contains(te.Msg, "and not used") && strings.Contains(te.Msg, "imported")) {
					return
				}
				t.Errorf("%s: %s", where(fset.Position(te.Pos)), te.Msg)
				return
			}
			t.Errorf("%s: %v", b.file, err)
		}}
		conf.Check("fragment", fset, []*ast.File{f}, nil)
	}
}

// TestDocsShellBlocks runs every shell block marked "offline" (```sh
// offline) in README.md and docs/*.md, in this checkout, with a home, a
// GOBIN and a PATH of its own, so that the commands the docs promise work
// with no network and no key do. Other shell blocks (with keys, servers,
// other programs) are shown, not run.
func TestDocsShellBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var marked []fence
	for _, b := range docFences(t, "sh", "bash", "console") {
		if slices.Contains(b.tags, "offline") {
			marked = append(marked, b)
		}
	}
	if len(marked) == 0 {
		t.Fatal("no shell block is marked offline; the README's set-up commands at least should be")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	for _, b := range marked {
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			defer cancel()
			home := t.TempDir()
			cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", b.code)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"HOME="+home, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local",
				"GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"),
				"ANTHROPIC_API_KEY=", "OPENAI_API_KEY=", "AGENT_PROVIDER=", "AGENT_BASE_URL=", "BRIDLE_DOCS_CHECK=1")
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s:%d: the shell block failed: %v\n%s", b.file, b.line, err, out)
			}
		})
	}
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// TestFencesReader checks the reader the two tests above rely on.
func TestFencesReader(t *testing.T) {
	text := "intro\n<!-- check: var x int -->\n```go\nx = 1\n```\n\n```sh offline\necho hi\n```\n<!-- check:\nvar y int\n-->\ntext between\n```go\ny = 2\n```\n" +
		"````markdown\n```go\nnested\n```\n````\n"
	got := fences("t.md", text)
	if len(got) != 4 {
		t.Fatalf("got %d fences, want 3: %+v", len(got), got)
	}
	if got[0].line != 4 || got[0].lang != "go" || got[0].prelude != " var x int \n" || got[0].code != "x = 1\n" {
		t.Errorf("first fence = %+v", got[0])
	}
	if got[1].lang != "sh" || !slices.Contains(got[1].tags, "offline") || got[1].prelude != "" {
		t.Errorf("second fence = %+v", got[1])
	}
	if got[2].prelude != "" {
		t.Errorf("a prelude followed by text must not reach the next fence: %+v", got[2])
	}
	if got[3].lang != "markdown" || got[3].code != "```go\nnested\n```\n" {
		t.Errorf("a fence of four backticks holds one of three: %+v", got[3])
	}
}

// TestNoMergeMarkers checks that no tracked text file holds the markers a
// merge leaves where it could not decide: prose is not compiled, so nothing
// else would notice them.
func TestNoMergeMarkers(t *testing.T) {
	out, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a checkout)", err)
	}
	marker := regexp.MustCompile(`(?m)^(<<<<<<<|>>>>>>>) `) // not "=======": a Markdown heading may use it
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		switch filepath.Ext(f) {
		case ".go", ".md", ".txt", ".mod", ".sh", ".yml", ".yaml", ".json":
		default:
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue // deleted in the working tree
		}
		if loc := marker.FindIndex(data); loc != nil {
			t.Errorf("%s:%d: a merge marker is left in the file", f, bytes.Count(data[:loc[0]], []byte("\n"))+1)
		}
	}
}
