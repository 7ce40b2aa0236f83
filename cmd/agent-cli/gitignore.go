package main

import (
	"bufio"
	"bytes"
	"io"
	"path"
	"strings"
)

// A small matcher for gitignore patterns, written here rather than taken
// from a module: the maintained one (go-git's plumbing/format/gitignore)
// brings the whole of go-git with it, and the small standalone ones are
// unmaintained and get anchoring or "**" wrong. The rules are git's
// (gitignore(5)):
//
//   - blank lines and lines starting with # are nothing; "\#" and "\!"
//     start a pattern with those characters; trailing spaces are dropped
//     unless escaped with a backslash;
//   - "!" negates: a matching path is not ignored after all, unless a
//     folder above it is ignored (git never looks inside one);
//   - a trailing "/" matches folders only;
//   - a pattern with a "/" at its start or middle is anchored to the
//     folder of its .gitignore; without one it matches a name at any depth;
//   - "*" and "?" do not cross "/", "[...]" is a class ("[!...]" negated),
//     "**" as a whole segment matches any number of folders;
//   - a later pattern wins over an earlier one, and a deeper .gitignore
//     over a shallower one.

// ignorePattern is one line of a .gitignore.
type ignorePattern struct {
	segs    []string // the pattern split at "/"; "**" segments kept whole
	negate  bool
	dirOnly bool
	anchor  bool // matched from the .gitignore's folder, not at any depth
}

// ignoreFile is the patterns of one .gitignore, and the folder holding it,
// relative to the top of the walk ("" for the top itself).
type ignoreFile struct {
	base     string
	patterns []ignorePattern
}

// parseIgnore reads the patterns of a .gitignore file.
func parseIgnore(r io.Reader) []ignorePattern {
	var out []ignorePattern
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if p, ok := parseIgnoreLine(string(bytes.TrimSuffix(sc.Bytes(), []byte("\r")))); ok {
			out = append(out, p)
		}
	}
	return out
}

func parseIgnoreLine(line string) (ignorePattern, bool) {
	// Trailing spaces go, unless the last one is escaped.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return ignorePattern{}, false
	}
	var p ignorePattern
	switch {
	case line[0] == '!':
		p.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignorePattern{}, false
	}
	if strings.HasPrefix(line, "/") {
		p.anchor = true
		line = strings.TrimLeft(line, "/")
	} else if strings.Contains(line, "/") {
		p.anchor = true
	}
	line = strings.ReplaceAll(line, "[!", "[^")
	p.segs = strings.Split(line, "/")
	if !p.anchor {
		p.segs = append([]string{"**"}, p.segs...)
	}
	p.segs = collapseStars(p.segs)
	return p, true
}

// collapseStars makes runs of "**" one, which means the same and keeps
// matching from growing with each.
func collapseStars(segs []string) []string {
	out := segs[:0:0]
	for _, s := range segs {
		if s == "**" && len(out) > 0 && out[len(out)-1] == "**" {
			continue
		}
		out = append(out, s)
	}
	return out
}

// match reports whether rel (slash-separated, relative to the pattern's
// .gitignore folder) matches. A pattern matching a folder also covers what
// is inside it, but walks never reach that far: they skip the folder.
func (p ignorePattern) match(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	return matchSegments(p.segs, strings.Split(rel, "/"))
}

// matchSegments matches path segments against pattern segments, "**"
// standing for any number of segments (none too).
func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return true
			}
			for i := range len(name) + 1 {
				if matchSegments(rest, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// ignores is the .gitignore files that apply at one place of a walk,
// shallowest first.
type ignores []ignoreFile

// ignored reports whether rel (relative to the top of the walk) is
// ignored: the last pattern that matches decides, deeper files after
// shallower ones.
func (ig ignores) ignored(rel string, isDir bool) bool {
	ignored := false
	for _, f := range ig {
		sub := rel
		if f.base != "" {
			var ok bool
			if sub, ok = strings.CutPrefix(rel, f.base+"/"); !ok {
				continue
			}
		}
		for _, p := range f.patterns {
			if p.match(sub, isDir) {
				ignored = !p.negate
			}
		}
	}
	return ignored
}
