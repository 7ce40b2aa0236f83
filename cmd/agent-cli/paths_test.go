package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newTree makes a working folder with symlinks that stay inside and
// symlinks that lead out, next to a folder "outside" holding a secret.
func newTree(t testing.TB) (w *workdir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "work")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{dir, outside, filepath.Join(dir, "sub", "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(dir, "a.txt"):             "a\n",
		filepath.Join(dir, "sub", "b.txt"):      "b\n",
		filepath.Join(outside, "secret.txt"):    "secret\n",
		filepath.Join(dir, "sub", "deep", "c"):  "c\n",
		filepath.Join(dir, "..dots-in-name.md"): "ok\n",
	}
	for name, content := range files {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"in":         "sub",
		"in-file":    "sub/b.txt",
		"out":        outside,
		"out-rel":    "../outside",
		"out-file":   filepath.Join(outside, "secret.txt"),
		"dangling":   filepath.Join(outside, "missing", "x"),
		"sub/up":     "..",
		"sub/upup":   "../..",
		"sub/loop":   "loop",
		"in-out-via": "sub/upup",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Skipf("symlinks are not available here: %v", err)
		}
	}
	w, err := openWorkdir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, outside
}

func TestResolve(t *testing.T) {
	w, _ := newTree(t)
	accepted := []struct {
		name, path, want string
	}{
		{"a file at the top is accepted", "a.txt", "a.txt"},
		{"a file in a subfolder is accepted", "sub/b.txt", "sub/b.txt"},
		{"a leading ./ is cleaned away", "./sub//b.txt", "sub/b.txt"},
		{"the folder itself is accepted as a dot", ".", "."},
		{"a file that does not exist yet is accepted", "new/dir/file.go", "new/dir/file.go"},
		{"a name that starts with two dots is not a parent", "..dots-in-name.md", "..dots-in-name.md"},
		{"a symlink to a folder inside is resolved", "in/b.txt", "sub/b.txt"},
		{"a symlink to a file inside is resolved", "in-file", "sub/b.txt"},
		{"a new file under a symlinked folder lands in the real folder", "in/new.txt", "sub/new.txt"},
		{"a symlink to the parent inside the folder is resolved", "sub/up/a.txt", "a.txt"},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			got, err := w.resolve(tt.path)
			if err != nil || got != tt.want {
				t.Fatalf("resolve(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
			}
		})
	}

	rejected := []struct {
		name, path, want string
	}{
		{"an empty path is refused", "", "empty"},
		{"a blank path is refused", "  ", "empty"},
		{"an absolute path is refused", "/etc/passwd", "absolute"},
		{"a parent reference is refused", "../outside/secret.txt", `".."`},
		{"a parent reference in the middle is refused", "sub/../../outside", `".."`},
		{"a parent reference that would stay inside is refused too", "sub/../a.txt", `".."`},
		{"a bare parent reference is refused", "..", `".."`},
		{"a backslash is refused", `sub\b.txt`, "backslash"},
		{"a Windows parent reference is refused", `..\outside`, "backslash"},
		{"a drive letter is refused", "C:/Windows", "drive letter"},
		{"a drive-relative path is refused", "c:secret", "drive letter"},
		{"a NUL byte is refused", "a.txt\x00.go", "NUL"},
		{"a symlink to a folder outside is refused", "out/secret.txt", "outside the working folder"},
		{"a relative symlink that leads out is refused", "out-rel/secret.txt", "outside the working folder"},
		{"a symlink to a file outside is refused", "out-file", "outside the working folder"},
		{"a new file under a symlink to outside is refused", "out/new.txt", "outside the working folder"},
		{"a symlink two levels up is refused", "sub/upup/outside/secret.txt", "outside the working folder"},
		{"a chain of symlinks that leads out is refused", "in-out-via", "outside the working folder"},
		{"a dangling symlink is refused", "dangling", "cannot be followed"},
		{"a symlink loop is refused", "sub/loop/x", "symbolic links"},
		{"a path through a file is refused", "a.txt/x", "not a directory"},
	}
	for _, tt := range rejected {
		t.Run(tt.name, func(t *testing.T) {
			got, err := w.resolve(tt.path)
			if err == nil {
				t.Fatalf("resolve(%q) = %q; want an error", tt.path, got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("resolve(%q): %v; want it to mention %s", tt.path, err, tt.want)
			}
			if strings.Contains(err.Error(), w.abs) {
				t.Fatalf("the error shows the absolute folder: %v", err)
			}
		})
	}
}

// FuzzResolve checks that no path the checks accept leads outside the
// working folder, symlinks included: the resolved path is relative and
// clean, its deepest existing part really lies inside, and writing to it
// through the file tools never changes the folder outside.
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{
		"a.txt", "sub/b.txt", ".", "in/x", "out/x", "out-rel/secret.txt", "sub/up/a.txt",
		"sub/upup/outside/secret.txt", "../x", "/x", `a\b`, "C:x", "dangling", "in-out-via/outside",
		"sub/./deep/../c", "..dots-in-name.md", "a/b/c/d", "sub/loop/x", "in/../out",
	} {
		f.Add(seed)
	}
	w, outside := newTree(f)
	before := listTree(f, outside)
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := w.resolve(p)
		if err != nil {
			return
		}
		if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.Contains(rel, `\`) {
			t.Fatalf("resolve(%q) = %q: not relative", p, rel)
		}
		for _, elem := range strings.Split(rel, "/") {
			if elem == ".." {
				t.Fatalf("resolve(%q) = %q: has a parent reference", p, rel)
			}
		}
		existing := filepath.Join(w.abs, filepath.FromSlash(rel))
		for {
			if _, err := os.Lstat(existing); err == nil {
				break
			}
			existing = filepath.Dir(existing)
		}
		real, err := filepath.EvalSymlinks(existing)
		if err != nil {
			t.Fatalf("resolve(%q) = %q, but %s does not resolve: %v", p, rel, existing, err)
		}
		if real != w.abs && !strings.HasPrefix(real, w.abs+string(filepath.Separator)) {
			t.Fatalf("resolve(%q) = %q leads to %s, outside %s", p, rel, real, w.abs)
		}
		if rel != "." && len(rel) < 100 {
			w.writeFile(rel, []byte("fuzz"))
		}
		if after := listTree(t, outside); after != before {
			t.Fatalf("writing %q (from %q) changed the folder outside:\n%s", rel, p, after)
		}
	})
}

func listTree(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		data, _ := os.ReadFile(p)
		b.WriteString(p + " " + string(data) + "\n")
		return nil
	})
	return b.String()
}
