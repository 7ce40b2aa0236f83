package main

import (
	"strings"
	"testing"
)

func TestIgnorePatterns(t *testing.T) {
	tests := []struct {
		name    string
		lines   string
		path    string
		isDir   bool
		ignored bool
	}{
		{"a name matches at any depth", "*.log", "a/b/c.log", false, true},
		{"a name does not match a longer name", "*.log", "a/c.logs", false, false},
		{"a trailing slash matches folders only", "build/", "build", false, false},
		{"a trailing slash matches a folder", "build/", "x/build", true, true},
		{"a leading slash anchors", "/todo.txt", "sub/todo.txt", false, false},
		{"a leading slash matches at the top", "/todo.txt", "todo.txt", false, true},
		{"a middle slash anchors", "doc/*.txt", "x/doc/a.txt", false, false},
		{"a middle slash matches from the top", "doc/*.txt", "doc/a.txt", false, true},
		{"* does not cross a slash", "doc/*.txt", "doc/x/a.txt", false, false},
		{"**/ matches at any depth", "**/gen/*.go", "a/b/gen/x.go", false, true},
		{"**/ matches at the top", "**/gen/*.go", "gen/x.go", false, true},
		{"/** matches everything inside", "vendor/**", "vendor/a/b", false, true},
		{"a/**/b matches through folders", "a/**/b", "a/x/y/b", false, true},
		{"a/**/b matches with none between", "a/**/b", "a/b", false, true},
		{"a later negation re-includes", "*.log\n!keep.log", "keep.log", false, false},
		{"a negation before does not", "!keep.log\n*.log", "keep.log", false, true},
		{"comments and blank lines are nothing", "# *.go\n\n", "a.go", false, false},
		{"an escaped # is a name", `\#x`, "#x", false, true},
		{"an escaped ! is a name", `\!x`, "!x", false, true},
		{"trailing spaces are dropped", "a.txt   ", "a.txt", false, true},
		{"a class matches", "file[0-9].txt", "file3.txt", false, true},
		{"a negated class is written [!...]", "file[!0-9].txt", "file3.txt", false, false},
		{"a negated class matches others", "file[!0-9].txt", "filex.txt", false, true},
		{"? matches one character", "?.c", "ab.c", false, false},
		{"CRLF line ends are read", "*.tmp\r\n", "x.tmp", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ig := ignores{{patterns: parseIgnore(strings.NewReader(tc.lines))}}
			if got := ig.ignored(tc.path, tc.isDir); got != tc.ignored {
				t.Fatalf("%q against %q (folder %v): ignored %v, want %v", tc.lines, tc.path, tc.isDir, got, tc.ignored)
			}
		})
	}
}

func TestDeeperIgnoreFilesWin(t *testing.T) {
	ig := ignores{
		{patterns: parseIgnore(strings.NewReader("*.gen"))},
		{base: "keep", patterns: parseIgnore(strings.NewReader("!*.gen"))},
	}
	if !ig.ignored("a/x.gen", false) {
		t.Error("a/x.gen is not ignored by the top .gitignore")
	}
	if ig.ignored("keep/x.gen", false) {
		t.Error("keep/x.gen is ignored, though keep/.gitignore re-includes it")
	}
	if (ignores{{base: "sub", patterns: parseIgnore(strings.NewReader("/a"))}}).ignored("a", false) {
		t.Error("sub/.gitignore's /a ignores the top's a")
	}
}

func FuzzIgnorePattern(f *testing.F) {
	for _, s := range []string{"*.go", "a/**/b", "[!x]", `\`, "[", "**", "!/", "/**/"} {
		f.Add(s, "a/b/c")
	}
	f.Fuzz(func(t *testing.T, line, path string) {
		ig := ignores{{patterns: parseIgnore(strings.NewReader(line))}}
		ig.ignored(path, false)
		ig.ignored(path, true)
	})
}
