package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/tool"
)

// vcsDirs are the folders where version control keeps its own files:
// what is written there runs later (a hook, git's core.fsmonitor or
// core.pager, a Mercurial hook in .hg/hgrc), the next time the person uses
// the tool.
var vcsDirs = []string{".git", ".hg", ".svn", ".jj"}

// ownFiles are agent-cli's configuration files in the working folder.
var ownFiles = []string{".mcp.json"}

// pathKeys are the arguments of the file tools that name a file written,
// moved or removed.
var pathKeys = []string{"path", "from", "to"}

// riskOf raises the risk of a file tool's call to Exec when it writes a
// file that makes something run later: one under a version control
// folder, or agent-cli's own configuration (.mcp.json, the approvals in
// the user's configuration folder). Such a write is asked about at every
// autonomy below auto, like running a command, and refused under
// read-only.
func (w *workdir) riskOf(c agent.Call) tool.Risk {
	if c.Risk != tool.Write || !isFileTool(c.Name) {
		return c.Risk
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(c.Args, &args) != nil {
		return c.Risk
	}
	for _, k := range pathKeys {
		var p string
		if json.Unmarshal(args[k], &p) != nil || p == "" {
			continue
		}
		if w.runsLater(p) {
			return tool.Exec
		}
	}
	return c.Risk
}

func isFileTool(name string) bool {
	switch name {
	case "write_file", "edit_file":
		return true
	}
	return false
}

// runsLater reports whether a write to p, a path from the model, would
// change what runs later. It judges the path as written and as resolved
// through symlinks, comparing names as a case-insensitive file system
// would.
func (w *workdir) runsLater(p string) bool {
	paths := []string{p}
	if rel, err := w.resolve(p); err == nil {
		paths = append(paths, rel)
	}
	for _, rel := range paths {
		elems := strings.Split(filepath.ToSlash(rel), "/")
		for _, e := range elems {
			for _, d := range vcsDirs {
				if sameName(e, d) {
					return true
				}
			}
		}
		if len(elems) == 1 || (len(elems) == 2 && elems[0] == ".") {
			for _, f := range ownFiles {
				if sameName(elems[len(elems)-1], f) {
					return true
				}
			}
		}
		if w.abs != "" && insideConfig(filepath.Join(w.abs, filepath.FromSlash(rel))) {
			return true
		}
	}
	return false
}

// sameName reports whether a file name names the same entry as want on
// the file systems people use: case folded, without the characters macOS
// ignores in names (git's own check for ".git" does the same), and without
// the trailing dots and spaces Windows drops, or as its 8.3 short name.
func sameName(name, want string) bool {
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
			return -1
		}
		return r
	}, name)
	name = strings.TrimRight(name, ". ")
	if strings.EqualFold(name, want) {
		return true
	}
	short := strings.ToUpper(strings.TrimPrefix(want, "."))
	if len(short) > 6 {
		short = short[:6]
	}
	return strings.EqualFold(name, short+"~1")
}

// insideConfig reports whether abs is in agent-cli's folder of the user's
// configuration (the .mcp.json approvals), where a write could approve a
// server.
func insideConfig(abs string) bool {
	dir, err := os.UserConfigDir()
	if err != nil {
		return false
	}
	dir = filepath.Join(dir, "agent-cli")
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rel, err := filepath.Rel(dir, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
