package durable_test

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// docImports are the packages a Go block of docs/durable.md may use
// without importing them.
var docImports = map[string]string{
	"durable": "github.com/bridle-dev/bridle/durable",
	"agent":   "github.com/bridle-dev/bridle/agent",
	"llm":     "github.com/bridle-dev/bridle/llm",
	"tool":    "github.com/bridle-dev/bridle/tool",
	"context": "context",
	"fmt":     "fmt",
	"os":      "os",
	"time":    "time",
}

// TestDocsGoBlocks type-checks the Go blocks tagged "durable" in
// docs/durable.md against this module, as the repository's own test does
// for the other docs: unused variables are allowed, "…" stands for code
// left out.
func TestDocsGoBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the packages with the go command")
	}
	text, err := os.ReadFile("../docs/durable.md")
	if err != nil {
		t.Fatal(err)
	}
	// A block, and the declarations of an HTML comment "<!-- check: … -->"
	// on the line before it, which it needs but does not show.
	type block struct{ prelude, code string }
	var blocks []block
	var cur *strings.Builder
	prelude, last := "", ""
	for _, line := range strings.Split(string(text), "\n") {
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go durable":
			cur = &strings.Builder{}
			prelude = ""
			if p, ok := strings.CutPrefix(strings.TrimSpace(last), "<!-- check:"); ok {
				prelude = strings.TrimSuffix(p, "-->")
			}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, block{prelude, cur.String()})
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
		last = line
	}
	if len(blocks) == 0 {
		t.Fatal("no Go block tagged durable in docs/durable.md")
	}

	paths := make([]string, 0, len(docImports))
	for _, p := range docImports {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if p, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			exports[p] = file
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %q: add it to docImports", path)
		}
		return os.Open(file)
	})
	for i, b := range blocks {
		code := strings.ReplaceAll(b.code, "{ … }", "{ panic(0) }")
		code = strings.ReplaceAll(code, "…", "nil")
		var src strings.Builder
		src.WriteString("package fragment\n\nimport (\n")
		for name, p := range docImports {
			fmt.Fprintf(&src, "\t%s %q\n", name, p)
		}
		src.WriteString(")\n\nvar ctx = context.Background()\n\n" + b.prelude + "\n\nfunc _() error {\n" + code + "\treturn nil\n}\n")
		f, err := parser.ParseFile(fset, fmt.Sprintf("block%d.go", i+1), src.String(), parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("Go block %d of docs/durable.md: %v", i+1, err)
			continue
		}
		conf := types.Config{Importer: imp, Error: func(err error) {
			if te, ok := err.(types.Error); ok && te.Soft && strings.Contains(te.Msg, "not used") {
				return
			}
			t.Errorf("Go block %d of docs/durable.md: %v", i+1, err)
		}}
		conf.Check("fragment", fset, []*ast.File{f}, nil)
	}
}
