package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, testdataRoot(t))
	runCases(t, s, "go_check", []toolCase{
		{"a clean project is clean", map[string]any{"path": "clean"},
			expect{prefix: "clean: go build and go vet found no problems in clean (and the folders below it)"}},
		{"a file means its package", map[string]any{"path": "clean/main.go"},
			expect{prefix: "clean"}},
		{"a type error is reported at its position relative to the root", map[string]any{"path": "typeerror"},
			expect{has: []string{"go build found problems", "typeerror/main.go:6:14: cannot use \"three\" (untyped string constant) as int value"}, hasNot: []string{"# example.com"}}},
		{"a project with a dependency in the module cache builds", map[string]any{"path": "withdep"},
			expect{prefix: "clean"}},
		{"clean code is clean", map[string]any{"code": "package main\n\nfunc main() {}\n"},
			expect{prefix: "clean: go build and go vet found no problems in the code"}},
		{"code with a vet problem is reported by vet", map[string]any{"code": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Printf(\"%d\\n\", \"x\") }\n"},
			expect{has: []string{"go vet found problems", "main.go:5:27: fmt.Printf format %d has arg \"x\" of wrong type string"}, hasNot: []string{os.TempDir()}}},
		{"code that does not parse gets a syntax error", map[string]any{"code": "package main\n\nfunc main() {\n"},
			expect{has: []string{"main.go:4:1: syntax error"}, hasNot: []string{os.TempDir()}}},
		{"code that imports a module is told to use a project", map[string]any{"code": "package main\n\nimport _ \"github.com/google/jsonschema-go/jsonschema\"\n\nfunc main() {}\n"},
			expect{has: []string{"no required module provides package github.com/google/jsonschema-go/jsonschema", "put the file in a project and pass its path"}}},
		{"code in another package is checked too", map[string]any{"code": "package shapes\n\nfunc Area(w, h int) int { return w * h }\n"},
			expect{prefix: "clean"}},
		{"a path outside the root is refused", map[string]any{"path": "../../../tool"},
			expect{fails: true, has: []string{`path "../../../tool" is outside the project root`}}},
		{"an absolute path outside the root is refused", map[string]any{"path": "/etc"},
			expect{fails: true, has: []string{"outside the project root"}}},
		{"a missing path is refused", map[string]any{"path": "nosuch"},
			expect{fails: true, has: []string{`path "nosuch" does not exist`}}},
		{"neither path nor code is refused", map[string]any{},
			expect{fails: true, has: []string{"go_check needs either path"}}},
		{"both path and code are refused", map[string]any{"path": "clean", "code": "package main"},
			expect{fails: true, has: []string{"not both"}}},
		{"a folder without packages is refused", map[string]any{"path": "."},
			expect{fails: true, has: []string{"no Go packages in . (and the folders below it)"}}},
	})
}

func TestCheckReportsAModuleMissingFromTheCache(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "go.mod", "module example.com/needs\n\ngo 1.25\n\nrequire example.com/nothere v1.0.0\n")
	write(t, root, "go.sum", "example.com/nothere v1.0.0 h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\nexample.com/nothere v1.0.0/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n")
	write(t, root, "main.go", "package main\n\nimport \"example.com/nothere\"\n\nfunc main() { nothere.Hello() }\n")
	s := newTestServer(t, root)
	text, failed := call(t, s, "go_check", map[string]any{"path": "."})
	expect{has: []string{
		"main.go:3:8: module lookup disabled by GOPROXY=off",
		"module example.com/nothere@v1.0.0 is not in the module cache",
	}, hasNot: []string{"go: downloading"}}.check(t, text, failed)
}

func TestAPathOutsideAnyModuleIsRefused(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, ok := findModule(root); ok {
		t.Skip("the temporary folder is inside a module")
	}
	write(t, root, "main.go", "package main\n\nfunc main() {}\n")
	s := newTestServer(t, root)
	text, failed := call(t, s, "go_check", map[string]any{"path": "main.go"})
	expect{fails: true, has: []string{"no go.mod in . or any folder above it", "go mod init"}}.check(t, text, failed)
}

func TestSymlinksCannotLeadOutOfTheRoot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.Symlink(testdataRoot(t), filepath.Join(root, "out")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	s := newTestServer(t, root)
	for _, name := range []string{"go_check", "go_fmt"} {
		text, failed := call(t, s, name, map[string]any{"path": "out/clean"})
		expect{fails: true, has: []string{`path "out/clean" is outside the project root`}}.check(t, text, failed)
	}
}

// write writes a file under dir, making folders as needed.
func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAnAbsolutePathUnderASymlinkedRootIsInside(t *testing.T) {
	t.Parallel()
	link := filepath.Join(t.TempDir(), "project")
	if err := os.Symlink(testdataRoot(t), link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	s := newTestServer(t, link)
	text, failed := call(t, s, "go_fmt", map[string]any{"path": filepath.Join(link, "clean", "greet")})
	expect{prefix: "all 2 Go files are formatted"}.check(t, text, failed)
}
