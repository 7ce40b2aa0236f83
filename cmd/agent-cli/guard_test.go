package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/tool"
)

func TestWritesThatRunCodeLaterAreExec(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	dir := home // the person runs agent-cli in their home folder
	os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755)
	os.MkdirAll(filepath.Join(dir, "config", "agent-cli"), 0o755)
	if err := os.Symlink(".git", filepath.Join(dir, "innocent")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	w, err := openWorkdir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tests := []struct {
		name, tool, args string
		want             tool.Risk
	}{
		{"a plain write stays a write", "write_file", `{"path":"main.go","content":"x"}`, tool.Write},
		{"git's config is exec", "write_file", `{"path":".git/config","content":"[core]\nfsmonitor = sh -c evil"}`, tool.Exec},
		{"a git hook is exec", "write_file", `{"path":".git/hooks/post-checkout","content":"#!/bin/sh"}`, tool.Exec},
		{"an edit of git's config is exec", "edit_file", `{"path":".git/config","old":"a","new":"b"}`, tool.Exec},
		{"a submodule's git folder is exec", "write_file", `{"path":"vendor/lib/.git/config","content":"x"}`, tool.Exec},
		{"case does not hide .git", "write_file", `{"path":".GIT/config","content":"x"}`, tool.Exec},
		{"an ignorable character does not hide .git", "write_file", "{\"path\":\".g\u200cit/config\",\"content\":\"x\"}", tool.Exec},
		{"a symlink to .git does not hide it", "write_file", `{"path":"innocent/hooks/pre-commit","content":"x"}`, tool.Exec},
		{"mercurial, subversion and jujutsu too", "write_file", `{"path":".hg/hgrc","content":"x"}`, tool.Exec},
		{"jujutsu", "write_file", `{"path":".jj/repo/config.toml","content":"x"}`, tool.Exec},
		{"svn", "write_file", `{"path":".svn/x","content":"x"}`, tool.Exec},
		{"the project's .mcp.json is exec", "write_file", `{"path":".mcp.json","content":"{}"}`, tool.Exec},
		{"agent-cli's approvals are exec", "write_file", `{"path":"config/agent-cli/mcp-approvals.json","content":"{}"}`, tool.Exec},
		{"a .gitignore is a write", "write_file", `{"path":".gitignore","content":"x"}`, tool.Write},
		{"a file named like git elsewhere is a write", "write_file", `{"path":"docs/git.md","content":"x"}`, tool.Write},
		{"a read stays a read", "read_file", `{"path":".git/config"}`, tool.Read},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			risk := tool.Write
			if tt.tool == "read_file" {
				risk = tool.Read
			}
			if got := w.riskOf(agent.Call{Name: tt.tool, Args: []byte(tt.args), Risk: risk}); got != tt.want {
				t.Errorf("riskOf(%s %s) = %v, want %v", tt.tool, tt.args, got, tt.want)
			}
		})
	}
}
