package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// newProject makes a working folder that looks like a checkout after its
// tests ran: ignored build output, node_modules, nested .gitignore files.
func newProject(t *testing.T) *workdir {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".gitignore":                "*.log\n/build/\n!keep.log\n",
		"main.go":                   "package main\n\nfunc main() { println(\"hello\") }\n",
		"cmd/app/main.go":           "package main\n\n// TODO: flags\nfunc main() {}\n",
		"cmd/app/.gitignore":        "gen_*.go\n",
		"cmd/app/gen_x.go":          "package main // TODO generated\n",
		"build/out.txt":             "TODO built\n",
		"debug.log":                 "TODO log\n",
		"keep.log":                  "TODO keep\n",
		"node_modules/x/index.js":   "// TODO js\n",
		".cache/peers/a.js":         "// TODO cached\n",
		".git/config":               "TODO git\n",
		"image.bin":                 "TODO\x00\x01\x02",
		"docs/readme.md":            "Nothing to do here.\n",
		"docs/deep/deeper/notes.md": "TODO deep\n",
	}
	writeTree(t, dir, files)
	w, err := openWorkdir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func callTool(t *testing.T, w *workdir, name, args string) (string, error) {
	t.Helper()
	for _, tl := range append(fileTools(w), findTools(w)...) {
		if tl.Name == name {
			return tl.Call(context.Background(), []byte(args))
		}
	}
	t.Fatalf("no tool %s", name)
	return "", nil
}

func TestListFilesLeavesOutIgnoredFiles(t *testing.T) {
	w := newProject(t)
	out, err := callTool(t, w, "list_files", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"main.go\n", "cmd/app/main.go\n", "keep.log\n", "docs/deep/deeper/notes.md\n", ".gitignore\n",
		"left out: .cache/, .git/, node_modules/ (never walked); 3 paths that .gitignore names"} {
		if !strings.Contains(out, want) {
			t.Errorf("the listing lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"debug.log", "build/", "gen_x.go", "index.js", "peers", "config"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("the listing shows %q:\n%s", unwanted, out)
		}
	}
}

func TestListFilesShowsTheTopOfALargeTree(t *testing.T) {
	w := newProject(t)
	// A folder far larger than a listing, sorting before cmd/.
	big := filepath.Join(w.abs, "a-big")
	for i := range maxListed + 50 {
		d := filepath.Join(big, fmt.Sprintf("d%04d", i))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "f.txt"), nil, 0o644)
	}
	out, err := callTool(t, w, "list_files", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cmd/\n", "main.go\n", "a-big/\n", "a-big/d0000/\n", "more entries deeper down: list a subfolder"} {
		if !strings.Contains(out, want) {
			t.Errorf("the listing lacks %q", want)
		}
	}
	if n := strings.Count(out, "\n"); n > maxListed+3 {
		t.Errorf("the listing has %d lines; want at most %d and the notes", n, maxListed)
	}
}

func TestListFilesOfAnIgnoredFolderAskedFor(t *testing.T) {
	w := newProject(t)
	out, err := callTool(t, w, "list_files", `{"path":"build"}`)
	if err != nil || !strings.Contains(out, "build/out.txt") {
		t.Fatalf("listing build: %q, %v; want its file: it was asked for by name", out, err)
	}
	out, err = callTool(t, w, "list_files", `{"path":"cmd/app"}`)
	if err != nil || strings.Contains(out, "gen_x.go") || !strings.Contains(out, "cmd/app/main.go") {
		t.Fatalf("listing cmd/app: %q, %v; want main.go without gen_x.go", out, err)
	}
}

func TestGlob(t *testing.T) {
	w := newProject(t)
	tests := []struct {
		name, args, want, wantErr string
		not                       []string
	}{
		{name: "** finds files at any depth", args: `{"pattern":"**/*.go"}`, want: "cmd/app/main.go\nmain.go\n", not: []string{"gen_x.go"}},
		{name: "a pattern without a slash matches at the top", args: `{"pattern":"*.go"}`, want: "main.go\n", not: []string{"cmd/"}},
		{name: "a literal prefix narrows the walk", args: `{"pattern":"cmd/*/main.go"}`, want: "cmd/app/main.go\n"},
		{name: "folders end with a slash", args: `{"pattern":"docs/*"}`, want: "docs/deep/\ndocs/readme.md\n"},
		{name: "ignored files are left out", args: `{"pattern":"**/*.log"}`, want: "keep.log\n", not: []string{"debug.log"}},
		{name: "no match says so and suggests **", args: `{"pattern":"*.md"}`, want: "no path matches *.md at the top of the working folder (try **/*.md)"},
		{name: "an absolute pattern is refused", args: `{"pattern":"/etc/*"}`, wantErr: "is absolute"},
		{name: "a pattern going up is refused", args: `{"pattern":"../*"}`, wantErr: `contains ".."`},
		{name: "a malformed pattern is refused", args: `{"pattern":"[a"}`, wantErr: "is malformed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := callTool(t, w, "glob", tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %q, %v; want an error with %q", out, err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.HasPrefix(out, tc.want) {
				t.Fatalf("got %q, %v; want it to start %q", out, err, tc.want)
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("the result shows %q:\n%s", n, out)
				}
			}
		})
	}
}

func TestGrep(t *testing.T) {
	w := newProject(t)
	tests := []struct {
		name, args, want, wantErr string
		not                       []string
	}{
		{name: "matches are file:line: text", args: `{"pattern":"TODO"}`, want: "cmd/app/main.go:3: // TODO: flags\n",
			not: []string{"gen_x.go", "TODO built", "TODO log", "index.js", "TODO cached", "TODO git"}},
		{name: "binary files are skipped and said so", args: `{"pattern":"TODO"}`, want: "(left out: 1 binary file", not: []string{"image.bin:"}},
		{name: "a negated pattern in .gitignore keeps a file", args: `{"pattern":"TODO"}`, want: "keep.log:1: TODO keep\n"},
		{name: "path narrows to a folder", args: `{"pattern":"TODO","path":"docs"}`, want: "docs/deep/deeper/notes.md:1: TODO deep\n", not: []string{"cmd/"}},
		{name: "path can name a file", args: `{"pattern":"func","path":"main.go"}`, want: "main.go:3: func main()"},
		{name: "include filters by name", args: `{"pattern":"TODO","include":"*.md"}`, want: "docs/deep/deeper/notes.md:1:", not: []string{"main.go"}},
		{name: "include with a slash filters by path", args: `{"pattern":"main","include":"cmd/**/*.go"}`, want: "cmd/app/main.go:1: package main\n", not: []string{"\nmain.go"}},
		{name: "regular expressions are Go's", args: `{"pattern":"(?i)nothing\\s+to"}`, want: "docs/readme.md:1: Nothing to do here.\n"},
		{name: "no match says how many files were searched", args: `{"pattern":"zebra"}`, want: "no line matches zebra in the working folder ("},
		{name: "a bad expression is refused", args: `{"pattern":"a(b"}`, wantErr: "is not a Go regular expression: missing closing )"},
		{name: "a path outside is refused", args: `{"pattern":"x","path":"../"}`, wantErr: `contains ".."`},
		{name: "an ignored folder can be searched by name", args: `{"pattern":"TODO","path":"build"}`, want: "build/out.txt:1: TODO built\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := callTool(t, w, "grep", tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %q, %v; want an error with %q", out, err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(out, tc.want) {
				t.Fatalf("got %q, %v; want %q in it", out, err, tc.want)
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("the result shows %q:\n%s", n, out)
				}
			}
		})
	}
}

func TestGrepCapsItsOutput(t *testing.T) {
	w := newProject(t)
	long := strings.Repeat("x", 2*maxLineShown)
	os.WriteFile(filepath.Join(w.abs, "many.txt"), []byte(strings.Repeat("hit "+long+"\n", maxGrepLines+25)), 0o644)
	out, err := callTool(t, w, "grep", `{"pattern":"^hit","path":"many.txt"}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "many.txt:"); n != maxGrepLines {
		t.Errorf("%d lines shown; want %d", n, maxGrepLines)
	}
	for _, want := range []string{"… and 25 matching lines more (225 in all, in 1 file)", fmt.Sprintf("… (%d more bytes)", len("hit ")+len(long)-maxLineShown)} {
		if !strings.Contains(out, want) {
			t.Errorf("the result lacks %q", want)
		}
	}
}

func TestSearchesStayInside(t *testing.T) {
	w, _ := newTree(t) // symlinks out, and a secret outside
	for _, tc := range []struct{ tool, args string }{
		{"grep", `{"pattern":"secret"}`},
		{"glob", `{"pattern":"**/*.txt"}`},
		{"list_files", `{}`},
	} {
		out, err := callTool(t, w, tc.tool, tc.args)
		if strings.Contains(out, "secret.txt") || strings.Contains(out, "secret\n") {
			t.Errorf("%s %s reached outside the working folder:\n%s", tc.tool, tc.args, out)
		}
		if tc.tool != "grep" && err != nil {
			t.Errorf("%s: %v", tc.tool, err)
		}
	}
	if _, err := callTool(t, w, "grep", `{"pattern":"secret","path":"out-file"}`); err == nil || !strings.Contains(err.Error(), "outside the working folder") {
		t.Errorf("grep through a symlink out: %v; want a refusal", err)
	}
}

// FuzzGlobPattern feeds patterns as a model might write them: a pattern
// is refused or matched, and a refused one never walks.
func FuzzGlobPattern(f *testing.F) {
	for _, s := range []string{"**/*.go", "cmd/*/main.go", "../x", "/etc", "[!a-", `a\`, "**/**/**/x", "./a/**"} {
		f.Add(s, "cmd/app/main.go")
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		segs, err := checkGlob(pattern, "pattern")
		if err != nil {
			return
		}
		for _, s := range segs {
			if s == ".." {
				t.Fatalf("pattern %q passed with a .. segment", pattern)
			}
		}
		if len(segs) > 0 {
			literalPrefix(segs)
		}
		matchSegments(segs, strings.Split(name, "/"))
	})
}

// lineByLine is grep's plain way: each line matched on its own.
func lineByLine(re *regexp.Regexp, data []byte) string {
	var b strings.Builder
	if len(data) == 0 {
		return ""
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if re.MatchString(line) {
			fmt.Fprintf(&b, "f:%d: %s\n", i+1, clipLine([]byte(line)))
		}
	}
	return b.String()
}

func wholeFile(pattern string, data []byte) (string, bool) {
	g := &grepper{re: regexp.MustCompile(pattern), multi: multiLine(pattern)}
	if g.multi == nil {
		return "", false
	}
	g.search("f", data)
	return g.out.String(), true
}

func TestGrepWholeFileSearchFindsWhatLinesDo(t *testing.T) {
	for _, tc := range []struct{ pattern, data string }{
		{`a[^z]*b`, "a\nab\n"},
		{`^x`, "x\n x\nx"},
		{`x$`, "x\nx \nax\n"},
		{`y*`, "a\n\nb\n"},
		{`\bgo\b`, "go\ngopher\n go.\n"},
		{`\s`, "a b\nc\n\nd\te\n"},
		{`(?s)a.*b`, "a\nb\nab\n"},
	} {
		got, ok := wholeFile(tc.pattern, []byte(tc.data))
		if want := lineByLine(regexp.MustCompile(tc.pattern), []byte(tc.data)); !ok || got != want {
			t.Errorf("%q in %q: whole-file search found\n%s\nline by line\n%s", tc.pattern, tc.data, got, want)
		}
	}
}

func FuzzGrepWholeFileSearch(f *testing.F) {
	f.Add(`a[^z]*b`, "a\nab\n")
	f.Add(`^\w+$`, "one\ntwo words\n\nthree")
	f.Add(`x*`, "\n\n")
	f.Fuzz(func(t *testing.T, pattern, data string) {
		re, err := regexp.Compile(pattern)
		if err != nil || strings.ContainsRune(data, '\r') {
			return
		}
		got, ok := wholeFile(pattern, []byte(data))
		if !ok {
			return
		}
		if want := lineByLine(re, []byte(data)); got != want {
			t.Fatalf("%q in %q: whole-file search found\n%s\nline by line\n%s", pattern, data, got, want)
		}
	})
}

// writeTree writes files (slash-separated paths to contents) under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
