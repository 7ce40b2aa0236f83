package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestDoc(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, testdataRoot(t))
	runCases(t, s, "go_doc", []toolCase{
		{"a standard library symbol is documented", map[string]any{"symbol": "strings.Cut"},
			expect{has: []string{"func Cut(s, sep string) (before, after string, found bool)"}}},
		{"a standard library package is documented", map[string]any{"symbol": "net/http"},
			expect{has: []string{"package http // import \"net/http\""}}},
		{"a package and a symbol may be given as two words", map[string]any{"symbol": "encoding/json Decoder.Decode"},
			expect{has: []string{"func (dec *Decoder) Decode(v any) error"}}},
		{"a symbol of the package at path is documented", map[string]any{"symbol": "Hello", "path": "clean/greet"},
			expect{has: []string{"func Hello(name string) string", "Hello greets name."}}},
		{"a package of the project is found by its import path", map[string]any{"symbol": "example.com/clean/greet", "path": "clean"},
			expect{has: []string{"package greet // import \"example.com/clean/greet\""}}},
		{"an unknown symbol is a readable error", map[string]any{"symbol": "strings.NoSuchThing", "path": "clean"},
			expect{fails: true, has: []string{"go doc strings.NoSuchThing: doc: no symbol NoSuchThing in package strings"}}},
		{"an unknown symbol outside a package is a readable error", map[string]any{"symbol": "strings.NoSuchThing"},
			expect{fails: true, has: []string{"go doc strings.NoSuchThing: no package or symbol by that name in the standard library, or in the module at the project root"}}},
		{"a flag is refused", map[string]any{"symbol": "-http"},
			expect{fails: true, has: []string{`symbol "-http" starts with '-'`}}},
		{"an empty symbol is refused", map[string]any{"symbol": " "},
			expect{fails: true, has: []string{"symbol is empty"}}},
		{"a path outside the root is refused", map[string]any{"symbol": "strings", "path": "/tmp"},
			expect{fails: true, has: []string{"outside the project root"}}},
	})
}

func TestDocOfADependencyInTheModuleCache(t *testing.T) {
	t.Parallel()
	root := testdataRoot(t)
	// go doc lists the module graph, which offline needs every module's
	// metadata in the cache, test-only dependencies included; test.sh
	// fetches it.
	list := exec.Command("go", "list", "-m", "all")
	list.Dir = filepath.Join(root, "withdep")
	list.Env = goEnv()
	if out, err := list.CombinedOutput(); err != nil {
		msg := "the modules of testdata/withdep are not all in the module cache (run `go list -m all` in cmd/gotools-mcp/testdata/withdep with network access, as test.sh does): " + string(out)
		if os.Getenv("BRIDLE_REQUIRE_PEERS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	s := newTestServer(t, root)
	runCases(t, s, "go_doc", []toolCase{
		{"a dependency in the module cache is documented", map[string]any{"symbol": "jsonschema.For", "path": "withdep"},
			expect{has: []string{"func For[T any](opts *ForOptions) (*Schema, error)"}}},
	})
}

func TestDocStaysInsideTheRoot(t *testing.T) {
	t.Parallel()
	// A project beside a private package that holds a secret.
	base := t.TempDir()
	root := filepath.Join(base, "project")
	private := filepath.Join(base, "private")
	for dir, files := range map[string]map[string]string{
		root: {
			"go.mod":         "module example.com/project\n\ngo 1.25\n",
			"project.go":     "// Package project is the project.\npackage project\n\n// Hello greets.\nfunc Hello() {}\n",
			"sub/sub.go":     "// Package sub is inside.\npackage sub\n\n// Inner is inside.\nconst Inner = 1\n",
			"away/README.md": "a folder the symlink below sits in",
		},
		private: {
			"go.mod":     "module example.com/private\n\ngo 1.25\n",
			"private.go": "// Package private is not the model's to read.\npackage private\n\n// APIKey is a secret.\nconst APIKey = \"sk-secret-0123\"\n",
		},
	} {
		for name, text := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	symlinked := os.Symlink(private, filepath.Join(root, "away", "link")) == nil
	s := newTestServer(t, root)
	refused := func(symbol string) toolCase {
		return toolCase{"symbol " + symbol + " is refused", map[string]any{"symbol": symbol},
			expect{fails: true, has: []string{"names a folder outside the project root"}, hasNot: []string{"sk-secret", "APIKey is a secret"}}}
	}
	cases := []toolCase{
		refused("../private"),
		refused("../private.APIKey"),
		refused(private),
		refused(private + ".APIKey"),
		refused("./../private"),
		refused("sub/../../private"),
		refused(".."),
		refused("~/private"),
		{"a folder inside the root is documented", map[string]any{"symbol": "./sub"},
			expect{has: []string{"Package sub is inside."}}},
		{"the package at path is documented", map[string]any{"symbol": "."},
			expect{has: []string{"Package project is the project."}}},
		{"a package of the module is documented by its import path", map[string]any{"symbol": "example.com/project/sub.Inner"},
			expect{has: []string{"const Inner = 1"}}},
		{"a second word that is not a Go name is refused", map[string]any{"symbol": "strings ../x"},
			expect{fails: true, has: []string{`"../x" is not a Go identifier or Type.Method`}}},
		{"a word that is neither a package nor a name is refused", map[string]any{"symbol": "net/http$x"},
			expect{fails: true, has: []string{`symbol "net/http$x" is not a package or a Go name`}}},
	}
	if symlinked {
		cases = append(cases, refused("./away/link"))
	}
	runCases(t, s, "go_doc", cases)
}
