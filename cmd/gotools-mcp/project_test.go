package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRelocate(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"a position relative to the go command's folder reads relative to the root",
			"# example.com/m/a\na/a.go:6:17: cannot use 3\n", "mod/a/a.go:6:17: cannot use 3\n"},
		{"vet's prefix is dropped",
			"vet: a/a.go:6:17: cannot use 3\n", "mod/a/a.go:6:17: cannot use 3\n"},
		{"a position without a column is kept",
			"./b.go:3: missing return\n", "mod/b.go:3: missing return\n"},
		{"a file outside the root stays absolute",
			"/elsewhere/x.go:1:2: oops\n", "/elsewhere/x.go:1:2: oops\n"},
		{"continuation lines are kept as they are",
			"a.go:1:2: wrong\n\thave (int)\n\twant (string)\n", "mod/a.go:1:2: wrong\n\thave (int)\n\twant (string)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := relocate(tc.in, "/root/mod", "/root"); got != tc.want {
				t.Errorf("relocate(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCallTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		seconds int
		want    string
		wantErr string
	}{
		{"zero means the default", 0, "30s", ""},
		{"a value within the cap is kept", 5, "5s", ""},
		{"the cap itself is allowed", 120, "2m0s", ""},
		{"a value over the cap is refused", 121, "", "the limit is 120"},
		{"a negative value is refused", -1, "", "give a positive number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := callTimeout(tc.seconds)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || d.String() != tc.want {
				t.Errorf("callTimeout(%d) = %v, %v; want %s", tc.seconds, d, err, tc.want)
			}
		})
	}
}

// FuzzLocate checks that no path a model writes resolves outside the root.
func FuzzLocate(f *testing.F) {
	for _, s := range []string{"", ".", "a", "a/b.go", "../x", "/etc/passwd", "a/../../b", "link/x", "a\x00b", "//", "./a/./b"} {
		f.Add(s)
	}
	root := f.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		f.Fatal(err)
	}
	os.Symlink(os.TempDir(), filepath.Join(root, "link"))
	ws, err := newWorkspace(root)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p string) {
		abs, err := ws.locate(p)
		if err != nil {
			return
		}
		rel, err := filepath.Rel(ws.root, abs)
		if err != nil || !(rel == "." || filepath.IsLocal(rel)) {
			t.Errorf("locate(%q) = %s, outside %s", p, abs, ws.root)
		}
	})
}
