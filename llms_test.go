package bridle_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	bridle "github.com/bridle-dev/bridle"
)

func Example() {
	first, _, _ := strings.Cut(bridle.LLMsTxt(), "\n")
	fmt.Println(first)
	// Output: # Bridle
}

// TestLLMsTxtNamesExist checks that every qualified name llms.txt writes,
// in prose or code, such as agent.StopDone or mcp.HintsTrusted, is declared
// by its package, so that a renamed identifier cannot linger in the prose.
func TestLLMsTxtNamesExist(t *testing.T) {
	dirs := map[string]string{"llm": "llm", "llmtest": "llm/llmtest", "tool": "tool", "mcp": "mcp", "agent": "agent", "keychain": "keychain"}
	declared := map[string]bool{}
	for pkg, dir := range dirs {
		fset := token.NewFileSet()
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					// Methods too: error messages name them ("agent.Add: ...").
					declared[pkg+"."+d.Name.Name] = true
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch spec := spec.(type) {
						case *ast.TypeSpec:
							declared[pkg+"."+spec.Name.Name] = true
						case *ast.ValueSpec:
							for _, n := range spec.Names {
								declared[pkg+"."+n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	used := regexp.MustCompile(`\b(llm|llmtest|tool|mcp|agent|keychain)\.([A-Z]\w*)`)
	for i, line := range strings.Split(bridle.LLMsTxt(), "\n") {
		for _, m := range used.FindAllStringSubmatch(line, -1) {
			if !declared[m[1]+"."+m[2]] {
				t.Errorf("llms.txt:%d: %s.%s is not declared in package %s", i+1, m[1], m[2], dirs[m[1]])
			}
		}
	}
}

func TestLLMsTxtIsShort(t *testing.T) {
	if n := strings.Count(bridle.LLMsTxt(), "\n"); n > 900 {
		t.Errorf("llms.txt has %d lines; keep it under 900 (it is read whole by a coding assistant)", n)
	}
}

// TestLLMsTxtExamples builds every Go example of llms.txt against this
// module, and runs those that are tests, so that what it shows is true.
// A block whose package ends in _test is a test file; any other is a
// program, built but not run. Errors are reported at llms.txt's lines.
func TestLLMsTxtExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the examples with the go command")
	}
	var blocks []fence
	for _, b := range fences("llms.txt", bridle.LLMsTxt()) {
		if b.lang == "go" {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) < 5 {
		t.Fatalf("llms.txt has %d Go examples; want the canonical forms at least", len(blocks))
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	write("go.mod", "module llmstxt.example\n\ngo 1.25.0\n\nrequire github.com/bridle-dev/bridle v0.0.0\n\nreplace github.com/bridle-dev/bridle => "+root+"\n")
	starts := map[string]int{}
	pkgClause := regexp.MustCompile(`(?m)^package (\w+)`)
	for i, b := range blocks {
		m := pkgClause.FindStringSubmatch(b.code)
		if m == nil {
			t.Errorf("llms.txt:%d: the example has no package clause; every example is a whole file", b.line)
			continue
		}
		name := "main.go"
		if strings.HasSuffix(m[1], "_test") {
			name = "example_test.go"
		}
		file := fmt.Sprintf("ex%02d/%s", i+1, name)
		write(file, b.code)
		starts[file] = b.line
	}

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	// Point at llms.txt: "ex03/main.go:12:5: msg" becomes "llms.txt:57:5: msg".
	pos := regexp.MustCompile(`(?m)^(?:\s*)(?:\./)?(ex\d\d/\w+\.go):(\d+)`)
	text := pos.ReplaceAllStringFunc(string(out), func(s string) string {
		m := pos.FindStringSubmatch(s)
		n, _ := strconv.Atoi(m[2])
		return fmt.Sprintf("llms.txt:%d", starts[m[1]]+n-1)
	})
	t.Errorf("the examples of llms.txt do not build or their tests fail: %v\n%s", err, text)
}
