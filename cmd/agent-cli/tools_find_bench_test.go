package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchTree is a checkout-sized tree: 2,000 Go files of 200 lines in 100
// folders, with a .gitignore and a node_modules of 2,000 files beside.
func benchTree(b *testing.B) *workdir {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.tmp\n/dist/\n"), 0o644)
	body := strings.Repeat("\tx := compute(y) // a line of ordinary code\n", 200)
	for d := range 100 {
		for f := range 20 {
			p := filepath.Join(dir, fmt.Sprintf("pkg%03d", d), fmt.Sprintf("f%02d.go", f))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("package p\n\n// TODO: here\nfunc f() {\n"+body+"}\n"), 0o644)
			nm := filepath.Join(dir, "node_modules", fmt.Sprintf("m%03d", d), fmt.Sprintf("i%02d.js", f))
			os.MkdirAll(filepath.Dir(nm), 0o755)
			os.WriteFile(nm, []byte("// TODO\n"), 0o644)
		}
	}
	w, err := openWorkdir(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	return w
}

func BenchmarkFindTools(b *testing.B) {
	w := benchTree(b)
	for _, bc := range []struct {
		name string
		run  func() (string, error)
	}{
		{"list_files", func() (string, error) { return w.listFiles(context.Background(), listFilesArgs{}) }},
		{"glob", func() (string, error) { return w.glob(context.Background(), globArgs{Pattern: "**/f1*.go"}) }},
		{"grep", func() (string, error) { return w.grep(context.Background(), grepArgs{Pattern: `TODO: \w+`}) }},
	} {
		b.Run(bc.name+" 2000 files", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
