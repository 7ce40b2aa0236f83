package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// neverWalked are folders no listing or search goes into: the VCS's
// metadata, installed packages and caches, which hold many files and
// none the model should read unasked.
var neverWalked = []string{".git", "node_modules", ".cache"}

// maxIgnoreFile bounds a .gitignore read; a larger one is read in part.
const maxIgnoreFile = 1 << 20

// walkStats says what a walk left out, for the note under a listing.
type walkStats struct {
	skipped []string // folders of neverWalked met, relative to the working folder
	ignored int      // entries a .gitignore names
}

// note says what was left out, or "" when nothing was.
func (s walkStats) note() string {
	var parts []string
	if len(s.skipped) > 0 {
		shown := s.skipped
		if len(shown) > 5 {
			shown = shown[:5]
		}
		p := strings.Join(shown, "/, ") + "/"
		if n := len(s.skipped) - len(shown); n > 0 {
			p += " and " + plural(n, "more such folder")
		}
		parts = append(parts, p+" (never walked)")
	}
	if s.ignored > 0 {
		parts = append(parts, plural(s.ignored, "path")+" that .gitignore names")
	}
	if len(parts) == 0 {
		return ""
	}
	return "left out: " + strings.Join(parts, "; ")
}

// walk calls fn for every entry under start (a folder relative to the
// working folder, already resolved), depth first in lexical order,
// leaving out the folders of neverWalked and what .gitignore files name:
// those of the folders walked, and those of the working folder's parents
// up to the repository root. Symlinks are reported, never followed. fn may
// return fs.SkipDir for a folder, or fs.SkipAll to stop. An unreadable
// folder below start is left out.
func (w *workdir) walk(ctx context.Context, start string, fn func(rel string, d fs.DirEntry) error) (walkStats, error) {
	wk := &walker{w: w, ctx: ctx, fn: fn}
	wk.prefix, wk.outer = w.outerIgnores()
	ig := wk.outer
	// The .gitignore files between the working folder and start.
	if start != "." {
		dir := "."
		for _, elem := range strings.Split(start, "/") {
			ig = wk.load(ig, dir)
			dir = path.Join(dir, elem)
		}
	}
	err := wk.dir(start, ig, true)
	if errors.Is(err, fs.SkipAll) {
		err = nil
	}
	return wk.stats, err
}

type walker struct {
	w      *workdir
	ctx    context.Context
	fn     func(string, fs.DirEntry) error
	prefix string  // the working folder relative to the top of the ignores
	outer  ignores // the .gitignore files above the working folder
	stats  walkStats
}

// full is rel as the ignore patterns see it: relative to the top.
func (wk *walker) full(rel string) string {
	if rel == "." {
		rel = ""
	}
	switch {
	case wk.prefix == "":
		return rel
	case rel == "":
		return wk.prefix
	}
	return wk.prefix + "/" + rel
}

// load adds the .gitignore of folder dir, when it has one.
func (wk *walker) load(ig ignores, dir string) ignores {
	name := path.Join(dir, ".gitignore")
	fi, err := wk.w.root.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return ig
	}
	f, err := wk.w.root.Open(name)
	if err != nil {
		return ig
	}
	defer f.Close()
	pats := parseIgnore(io.LimitReader(f, maxIgnoreFile))
	if len(pats) == 0 {
		return ig
	}
	return append(slices.Clip(ig), ignoreFile{base: wk.full(dir), patterns: pats})
}

func (wk *walker) dir(rel string, ig ignores, first bool) error {
	if err := wk.ctx.Err(); err != nil {
		return err
	}
	entries, err := fs.ReadDir(wk.w.root.FS(), rel)
	if err != nil {
		if first {
			return err
		}
		return nil
	}
	ig = wk.load(ig, rel)
	for _, e := range entries {
		child := path.Join(rel, e.Name())
		if e.IsDir() && slices.Contains(neverWalked, e.Name()) {
			wk.stats.skipped = append(wk.stats.skipped, child)
			continue
		}
		if ig.ignored(wk.full(child), e.IsDir()) {
			wk.stats.ignored++
			continue
		}
		err := wk.fn(child, e)
		switch {
		case errors.Is(err, fs.SkipDir):
			continue
		case err != nil:
			return err
		}
		if e.IsDir() {
			if err := wk.dir(child, ig, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// outerIgnores finds the repository the working folder is in (the nearest
// folder at or above it holding .git) and reads the .gitignore files of
// the folders from there down to the working folder's parent, and the
// repository's .git/info/exclude. prefix is the working folder relative to
// that root; with no repository above, it is "" and there are none.
func (w *workdir) outerIgnores() (prefix string, ig ignores) {
	top, ok := repoRoot(w.abs)
	if !ok {
		return "", nil
	}
	if data, err := readSmall(filepath.Join(top, ".git", "info", "exclude"), maxIgnoreFile); err == nil {
		if pats := parseIgnore(strings.NewReader(string(data))); len(pats) > 0 {
			ig = append(ig, ignoreFile{patterns: pats})
		}
	}
	rel, err := filepath.Rel(top, w.abs)
	if err != nil || rel == "." {
		return "", ig
	}
	prefix = filepath.ToSlash(rel)
	dir, base := top, ""
	for _, elem := range strings.Split(prefix, "/") {
		if data, err := readSmall(filepath.Join(dir, ".gitignore"), maxIgnoreFile); err == nil {
			if pats := parseIgnore(strings.NewReader(string(data))); len(pats) > 0 {
				ig = append(ig, ignoreFile{base: base, patterns: pats})
			}
		}
		dir, base = filepath.Join(dir, elem), path.Join(base, elem)
	}
	return prefix, ig
}

// repoRoot returns the nearest folder at or above dir (absolute) that
// holds .git, a folder or, in a worktree, a file.
func repoRoot(dir string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// readSmall reads a regular file of at most limit bytes; a longer one is
// read in part. Anything but a regular file is an error, so that a named
// pipe never blocks.
func readSmall(name string, limit int64) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

var errNotRegular = errors.New("not a regular file")
