package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFmt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	messy := "package messy\nfunc  Add(a,b int)int{return a+b}\n"
	write(t, root, "go.mod", "module example.com/messy\n\ngo 1.25\n")
	write(t, root, "messy.go", messy)
	write(t, root, "tidy/tidy.go", "package tidy\n\n// One is 1.\nconst One = 1\n")
	write(t, root, "broken/broken.go", "package broken\n\nfunc {\n")
	write(t, root, "testdata/skipped.go", "package  skipped\n")
	s := newTestServer(t, root)
	for _, tc := range []struct {
		name string
		args map[string]any
		want expect
	}{
		{"code comes back formatted", map[string]any{"code": "package main\nfunc main(){println(1)}"},
			expect{exactly: "package main\n\nfunc main() { println(1) }\n"}},
		{"code that does not parse is an error", map[string]any{"code": "package main\nfunc main() {"},
			expect{fails: true, has: []string{"the code does not parse, so it cannot be formatted: 2:14: expected '}', found 'EOF'"}}},
		{"a file that differs is named and given formatted", map[string]any{"path": "messy.go"},
			expect{exactly: "1 of 1 Go files differ from gofmt (no file was changed):\n  messy.go\n\n--- messy.go (formatted)\npackage messy\n\nfunc Add(a, b int) int { return a + b }\n\n"}},
		{"a formatted file is said to be formatted", map[string]any{"path": "tidy/tidy.go"},
			expect{exactly: "all 1 Go files are formatted as gofmt would\n"}},
		{"a folder covers the files below it but not testdata", map[string]any{"path": "."},
			expect{has: []string{"1 of 3 Go files differ", "  messy.go\n", "1 files do not parse", "broken/broken.go:3:6: expected"}, hasNot: []string{"skipped.go"}}},
		{"a file that is not Go is refused", map[string]any{"path": "go.mod"},
			expect{fails: true, has: []string{"go.mod is not a Go file"}}},
		{"a path outside the root is refused", map[string]any{"path": "../"},
			expect{fails: true, has: []string{"outside the project root"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, failed := call(t, s, "go_fmt", tc.args)
			tc.want.check(t, text, failed)
		})
	}
	got, err := os.ReadFile(filepath.Join(root, "messy.go"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != messy {
		t.Errorf("go_fmt rewrote messy.go:\n%s", got)
	}
}
