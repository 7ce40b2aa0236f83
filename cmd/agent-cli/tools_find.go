package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/internal/inert"
	"github.com/bridle-dev/bridle/tool"
)

const (
	maxListed     = 1000    // list_files shows at most this many entries
	maxWalked     = 200_000 // a listing or search looks at no more entries
	maxGlobbed    = 500     // glob shows at most this many paths
	maxGrepLines  = 200     // grep shows at most this many lines
	maxGrepFile   = 4 << 20 // grep skips larger files
	maxLineShown  = 300     // grep shows this many bytes of a long line
	binarySniffed = 8000    // bytes looked at for a NUL, as git does
)

const listFilesDescription = "List the files and folders under a folder of the working folder, recursively; folders end with a slash. " +
	"What .gitignore files name is left out, and so are .git, node_modules and .cache. A large tree is shown to a depth that fits, with a note of what is left out: list a subfolder to see more."

const globDescription = "Find files and folders of the working folder whose paths match a pattern, such as **/*.go or cmd/*/main.go. " +
	"* and ? match within one path segment, ** any number of folders, [abc] a class. Patterns are relative to the working folder: *.go matches only at the top. " +
	"What .gitignore files name is left out."

const grepDescription = "Search the text files of the working folder for lines matching a regular expression (Go syntax, RE2: (?i) for any case, \\b for word ends; no look-around). " +
	"Results are file:line: text. What .gitignore files name, binary files, and .git, node_modules and .cache are left out."

type globArgs struct {
	Pattern string `json:"pattern" jsonschema:"the pattern, relative to the working folder, such as **/*_test.go or internal/*/doc.go"`
}

type grepArgs struct {
	Pattern string `json:"pattern" jsonschema:"a Go regular expression, such as func \\w+Handler or (?i)todo"`
	Path    string `json:"path,omitempty" jsonschema:"a file or folder to search, relative to the working folder; empty for the whole folder"`
	Include string `json:"include,omitempty" jsonschema:"only files whose name matches this pattern, such as *.go; with a slash it matches the path, such as cmd/**/*.go"`
}

// findTools returns glob and grep, confined to w.
func findTools(w *workdir) []tool.Tool {
	return []tool.Tool{
		tool.New("glob", globDescription, tool.Read, w.glob),
		tool.New("grep", grepDescription, tool.Read, w.grep),
	}
}

func (w *workdir) listFiles(ctx context.Context, in listFilesArgs) (string, error) {
	rel, fi, err := w.statArg(in.Path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is a file, not a folder: use read_file to read it", rel)
	}
	// Every entry is counted; the shallowest maxListed are shown, in path
	// order, so that a deep folder cannot hide its neighbours.
	type entry struct {
		name  string
		depth int
	}
	var all []entry
	truncated := false
	stats, err := w.walk(ctx, rel, func(name string, d fs.DirEntry) error {
		if len(all) >= maxWalked {
			truncated = true
			return fs.SkipAll
		}
		if d.IsDir() {
			name += "/"
		}
		all = append(all, entry{name, strings.Count(name, "/")})
		return nil
	})
	if err != nil {
		return "", fileError(rel, err)
	}
	note := stats.note()
	if len(all) == 0 {
		if note != "" {
			return "(" + rel + " holds nothing to list; " + note + ")", nil
		}
		return "(" + rel + " is empty)", nil
	}
	shown := all
	if len(all) > maxListed {
		shown = slices.Clone(all)
		slices.SortStableFunc(shown, func(a, b entry) int { return a.depth - b.depth })
		shown = shown[:maxListed]
		slices.SortFunc(shown, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	}
	var b strings.Builder
	for _, e := range shown {
		b.WriteString(e.name)
		b.WriteByte('\n')
	}
	if n := len(all) - len(shown); n > 0 {
		more := plural(n, "more entry")
		if n > 1 {
			more = fmt.Sprintf("%d more entries", n)
		}
		if truncated {
			more = "more than " + more
		}
		fmt.Fprintf(&b, "… and %s deeper down: list a subfolder to see them\n", more)
	}
	if note != "" {
		b.WriteString("(" + note + ")\n")
	}
	return b.String(), nil
}

// checkGlob checks a pattern written by the model as form input: relative,
// no "..", valid syntax. It returns the pattern's segments, "[!" made
// "[^" as path.Match spells it.
func checkGlob(pattern, what string) ([]string, error) {
	p := strings.TrimSpace(pattern)
	switch {
	case p == "":
		return nil, fmt.Errorf("the %s is empty: give one such as **/*.go", what)
	case strings.HasPrefix(p, "/"):
		return nil, fmt.Errorf("%s %q is absolute: give it relative to the working folder", what, pattern)
	case strings.ContainsRune(p, 0):
		return nil, fmt.Errorf("%s %q contains a NUL byte", what, pattern)
	}
	p = strings.TrimPrefix(p, "./")
	segs := strings.Split(strings.ReplaceAll(p, "[!", "[^"), "/")
	for _, s := range segs {
		if s == ".." {
			return nil, fmt.Errorf("%s %q contains \"..\": give one inside the working folder", what, pattern)
		}
		if s == "**" {
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, fmt.Errorf("%s %q is malformed (%v): check its brackets and backslashes", what, pattern, err)
		}
	}
	return collapseStars(slices.DeleteFunc(segs, func(s string) bool { return s == "" || s == "." })), nil
}

// literalPrefix is the folder a pattern's leading segments name without
// wildcards: the walk can start there.
func literalPrefix(segs []string) string {
	dir := "."
	for _, s := range segs[:len(segs)-1] {
		if s == "**" || strings.ContainsAny(s, `*?[\`) {
			break
		}
		dir = path.Join(dir, s)
	}
	return dir
}

func (w *workdir) glob(ctx context.Context, in globArgs) (string, error) {
	segs, err := checkGlob(in.Pattern, "pattern")
	if err != nil {
		return "", err
	}
	if len(segs) == 0 {
		return "", fmt.Errorf("pattern %q names the working folder itself: use list_files", in.Pattern)
	}
	start := literalPrefix(segs)
	if start != "." {
		rel, err := w.resolve(start)
		if err != nil {
			return "", err
		}
		if fi, err := w.root.Stat(rel); err != nil || !fi.IsDir() {
			return fmt.Sprintf("no path matches %s (%s is not a folder)", in.Pattern, start), nil
		}
		// The walk reports paths from the working folder, so the pattern is
		// matched whole even where start came through a symlink.
		if rel != start {
			return "", fmt.Errorf("pattern %q leads through a symlink (%s is %s): give the real path", in.Pattern, start, rel)
		}
	}
	var matches []string
	n := 0
	stats, err := w.walk(ctx, start, func(name string, d fs.DirEntry) error {
		if n >= maxWalked {
			return fs.SkipAll
		}
		if matchSegments(segs, strings.Split(name, "/")) {
			n++
			if len(matches) < maxGlobbed {
				if d.IsDir() {
					name += "/"
				}
				matches = append(matches, name)
			}
		}
		return nil
	})
	if err != nil {
		return "", fileError(start, err)
	}
	var b strings.Builder
	if n == 0 {
		fmt.Fprintf(&b, "no path matches %s", in.Pattern)
		if !strings.Contains(in.Pattern, "/") {
			fmt.Fprintf(&b, " at the top of the working folder (try **/%s)", in.Pattern)
		}
		b.WriteByte('\n')
	}
	for _, m := range matches {
		b.WriteString(m)
		b.WriteByte('\n')
	}
	if n > len(matches) {
		fmt.Fprintf(&b, "… and %d more: narrow the pattern to see them\n", n-len(matches))
	}
	if note := stats.note(); note != "" {
		b.WriteString("(" + note + ")\n")
	}
	return b.String(), nil
}

func (w *workdir) grep(ctx context.Context, in grepArgs) (string, error) {
	if in.Pattern == "" {
		return "", errors.New("the pattern is empty: give a regular expression")
	}
	re, err := regexp.Compile(in.Pattern)
	if err != nil {
		return "", fmt.Errorf("pattern %q is not a Go regular expression: %v", in.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	var include []string
	if in.Include != "" {
		if include, err = checkGlob(in.Include, "include pattern"); err != nil {
			return "", err
		}
	}
	includes := func(name string) bool {
		switch {
		case include == nil:
			return true
		case len(include) == 1:
			return matchSegments(include, []string{path.Base(name)})
		}
		return matchSegments(include, strings.Split(name, "/"))
	}
	rel, fi, err := w.statArg(in.Path)
	if err != nil {
		return "", err
	}

	g := &grepper{w: w, re: re, multi: multiLine(in.Pattern)}
	var stats walkStats
	if fi.IsDir() {
		stats, err = w.walk(ctx, rel, func(name string, d fs.DirEntry) error {
			if d.IsDir() || !includes(name) {
				return nil
			}
			g.file(name)
			if g.files >= maxWalked {
				return fs.SkipAll
			}
			return ctx.Err()
		})
		if err != nil {
			return "", fileError(rel, err)
		}
	} else if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file (a named pipe, socket or device): grep reads only regular files", rel)
	} else {
		g.file(rel)
	}
	return g.report(in.Pattern, rel, stats), nil
}

// multiLine compiles pattern with ^ and $ matching at line ends, or
// returns nil where a whole-file search could miss a line that matches on
// its own: \A and \z, or flags turned off inside ("(?-m)").
func multiLine(pattern string) *regexp.Regexp {
	if strings.Contains(pattern, `\A`) || strings.Contains(pattern, `\z`) || (strings.Contains(pattern, "(?") && strings.Contains(pattern, "-")) {
		return nil
	}
	re, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		return nil
	}
	return re
}

// grepper gathers the matching lines of a search.
type grepper struct {
	w      *workdir
	re     *regexp.Regexp
	multi  *regexp.Regexp // re in multi-line mode, for whole files; nil: line by line
	buf    []byte
	out    strings.Builder
	shown  int // lines written to out
	lines  int // matching lines, shown or not
	files  int // files searched
	inFile int // files with a match
	binary int // files skipped as binary
	large  int // files skipped as too large
}

// file searches one file. Symlinks are followed inside the working folder
// only (the os.Root refuses the rest); what is not a regular file is left
// alone, unopened.
func (g *grepper) file(name string) {
	fi, err := g.w.root.Stat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	if fi.Size() > maxGrepFile {
		g.large++
		return
	}
	f, err := g.w.root.Open(name)
	if err != nil {
		return
	}
	defer f.Close()
	// One buffer serves every file: lines shown are copied out of it.
	buf := bytes.NewBuffer(g.buf[:0])
	_, err = buf.ReadFrom(io.LimitReader(f, maxGrepFile))
	data := buf.Bytes()
	g.buf = data[:0]
	if err != nil {
		return
	}
	g.files++
	if bytes.IndexByte(data[:min(len(data), binarySniffed)], 0) >= 0 {
		g.binary++
		return
	}
	if g.multi != nil && bytes.IndexByte(data, '\r') < 0 {
		g.search(name, data)
		return
	}
	found := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxGrepFile+1)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if g.re.Match(line) {
			g.hit(name, n, line, &found)
		}
	}
}

// search finds the matching lines of data by searching it whole with the
// multi-line form of the expression, and checking each line a match
// starts on with the line's own: a whole search skips the lines that
// cannot match in one pass, where matching line by line pays the
// expression's set-up on each. After each match the search goes on from
// the next line, so a match spanning lines hides none. It needs data
// without \r (where $ would not match before "\r\n").
func (g *grepper) search(name string, data []byte) {
	found := false
	line, pos := 1, 0
	for pos < len(data) {
		loc := g.multi.FindIndex(data[pos:])
		if loc == nil {
			return
		}
		start := pos + loc[0]
		if start == len(data) && data[start-1] == '\n' {
			return // an empty match after the last newline: no line there
		}
		line += bytes.Count(data[pos:start], []byte{'\n'})
		ls := bytes.LastIndexByte(data[:start], '\n') + 1
		le := bytes.IndexByte(data[start:], '\n')
		if le < 0 {
			le = len(data)
		} else {
			le += start
		}
		if g.re.Match(data[ls:le]) {
			g.hit(name, line, data[ls:le], &found)
		}
		pos = le + 1
		line++
	}
}

// hit records one matching line.
func (g *grepper) hit(name string, n int, line []byte, found *bool) {
	g.lines++
	if !*found {
		*found = true
		g.inFile++
	}
	if g.shown < maxGrepLines {
		g.shown++
		fmt.Fprintf(&g.out, "%s:%d: %s\n", name, n, clipLine(line))
	}
}

// clipLine shows at most maxLineShown bytes of a line, cut at a rune.
func clipLine(line []byte) string {
	if len(line) <= maxLineShown {
		return string(line)
	}
	cut := maxLineShown
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return string(line[:cut]) + fmt.Sprintf("… (%d more bytes)", len(line)-cut)
}

func (g *grepper) report(pattern, rel string, stats walkStats) string {
	var b strings.Builder
	if g.lines == 0 {
		where := rel
		if where == "." {
			where = "the working folder"
		}
		fmt.Fprintf(&b, "no line matches %s in %s (%s searched)\n", pattern, where, plural(g.files, "file"))
	}
	b.WriteString(g.out.String())
	if n := g.lines - g.shown; n > 0 {
		fmt.Fprintf(&b, "… and %s more (%d in all, in %s): narrow the pattern, path or include to see them\n", plural(n, "matching line"), g.lines, plural(g.inFile, "file"))
	}
	var left []string
	if g.binary > 0 {
		left = append(left, plural(g.binary, "binary file"))
	}
	if g.large > 0 {
		left = append(left, fmt.Sprintf("%s over %d MB", plural(g.large, "file"), maxGrepFile>>20))
	}
	if note := stats.note(); note != "" {
		left = append(left, strings.TrimPrefix(note, "left out: "))
	}
	if len(left) > 0 {
		b.WriteString("(left out: " + strings.Join(left, "; ") + ")\n")
	}
	return b.String()
}

// codingSummary is the short view of a glob, grep or bash call on its
// "[tool] NAME" line: the pattern or the command's first line, made inert
// and cut to fit.
func codingSummary(c agent.Call) string {
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
		Command string `json:"command"`
	}
	if json.Unmarshal(c.Args, &a) != nil {
		return ""
	}
	s := a.Pattern
	if c.Name == "bash" {
		s = a.Command
	}
	first, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	if first == "" {
		return ""
	}
	first = clip.String(first, 120)
	if more {
		first += " …"
	}
	if a.Path != "" {
		first += " in " + a.Path
	}
	return " " + inert.Line(first)
}

// statArg resolves a path argument of a tool, empty meaning the working
// folder, and says what is there.
func (w *workdir) statArg(p string) (string, fs.FileInfo, error) {
	if strings.TrimSpace(p) == "" {
		p = "."
	}
	rel, err := w.resolve(p)
	if err != nil {
		return "", nil, err
	}
	fi, err := w.root.Stat(rel)
	if err != nil {
		return "", nil, fileError(rel, err)
	}
	return rel, fi, nil
}
