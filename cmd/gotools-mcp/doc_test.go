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
