package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/tool"
)

func toolsByName(w *workdir) map[string]tool.Tool {
	m := map[string]tool.Tool{}
	for _, t := range fileTools(w) {
		m[t.Name] = t
	}
	return m
}

func TestFileTools(t *testing.T) {
	tests := []struct {
		name    string
		tool    string
		args    string
		want    string // in the output
		wantErr string // in the error, when there is one
		file    string // then this file of the folder
		content string // holds this
	}{
		{name: "read_file returns the content", tool: "read_file", args: `{"path":"a.txt"}`, want: "a\n"},
		{name: "read_file follows a symlink inside", tool: "read_file", args: `{"path":"in/b.txt"}`, want: "b\n"},
		{name: "read_file refuses a symlink that leads out", tool: "read_file", args: `{"path":"out-file"}`, wantErr: "outside the working folder"},
		{name: "read_file says a missing file does not exist", tool: "read_file", args: `{"path":"nope.go"}`, wantErr: "nope.go does not exist"},
		{name: "read_file refuses a folder", tool: "read_file", args: `{"path":"sub"}`, wantErr: "is a folder"},
		{name: "read_file wants a path", tool: "read_file", args: `{}`, wantErr: `missing required argument "path"`},
		{name: "list_files lists the folder recursively", tool: "list_files", args: `{}`, want: "sub/\nsub/b.txt\n"},
		{name: "list_files lists a subfolder", tool: "list_files", args: `{"path":"sub/deep"}`, want: "sub/deep/c\n"},
		{name: "list_files refuses a file", tool: "list_files", args: `{"path":"a.txt"}`, wantErr: "is a file"},
		{name: "list_files refuses a parent", tool: "list_files", args: `{"path":".."}`, wantErr: `".."`},
		{name: "write_file creates a file and its folders", tool: "write_file", args: `{"path":"new/dir/x.go","content":"package x\n"}`,
			want: "created new/dir/x.go (10 bytes)", file: "new/dir/x.go", content: "package x\n"},
		{name: "write_file replaces a file", tool: "write_file", args: `{"path":"a.txt","content":"A\n"}`,
			want: "wrote a.txt (2 bytes)", file: "a.txt", content: "A\n"},
		{name: "write_file writes through a symlink inside to the real file", tool: "write_file", args: `{"path":"in-file","content":"B\n"}`,
			want: "wrote sub/b.txt", file: "sub/b.txt", content: "B\n"},
		{name: "write_file refuses a symlink to a folder outside", tool: "write_file", args: `{"path":"out/x","content":"x"}`, wantErr: "outside the working folder"},
		{name: "write_file refuses an absolute path", tool: "write_file", args: `{"path":"/tmp/x","content":"x"}`, wantErr: "absolute"},
		{name: "write_file refuses the folder itself", tool: "write_file", args: `{"path":".","content":"x"}`, wantErr: "working folder itself"},
		{name: "edit_file replaces a unique match", tool: "edit_file", args: `{"path":"sub/deep/c","old":"c","new":"see"}`,
			want: "edited sub/deep/c", file: "sub/deep/c", content: "see\n"},
		{name: "edit_file says when the old text is missing", tool: "edit_file", args: `{"path":"a.txt","old":"zzz","new":"y"}`, wantErr: "was not found in a.txt"},
		{name: "edit_file says when the old text is not unique", tool: "edit_file", args: `{"path":"twice.txt","old":"x","new":"y"}`, wantErr: "occurs 2 times"},
		{name: "edit_file wants old text", tool: "edit_file", args: `{"path":"a.txt","old":"","new":"y"}`, wantErr: "old is empty"},
		{name: "edit_file refuses a file outside", tool: "edit_file", args: `{"path":"out-file","old":"secret","new":"x"}`, wantErr: "outside the working folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, outside := newTree(t)
			if err := os.WriteFile(filepath.Join(w.abs, "twice.txt"), []byte("x x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := listTree(t, outside)
			out, err := toolsByName(w)[tt.tool].Call(context.Background(), []byte(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("%s(%s) = %q, %v; want an error with %q", tt.tool, tt.args, out, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), w.abs) {
					t.Errorf("the error shows the absolute folder: %v", err)
				}
			} else if err != nil || !strings.Contains(out, tt.want) {
				t.Fatalf("%s(%s) = %q, %v; want %q in it", tt.tool, tt.args, out, err, tt.want)
			}
			if tt.file != "" {
				got, err := os.ReadFile(filepath.Join(w.abs, filepath.FromSlash(tt.file)))
				if err != nil || string(got) != tt.content {
					t.Fatalf("%s holds %q, %v; want %q", tt.file, got, err, tt.content)
				}
			}
			if after := listTree(t, outside); after != before {
				t.Fatalf("the folder outside changed:\n%s", after)
			}
			leftovers, _ := filepath.Glob(filepath.Join(w.abs, "*", ".*.tmp-*"))
			top, _ := filepath.Glob(filepath.Join(w.abs, ".*.tmp-*"))
			if len(leftovers)+len(top) > 0 {
				t.Fatalf("temporary files were left: %v %v", leftovers, top)
			}
		})
	}
}

func TestWriteFileKeepsTheMode(t *testing.T) {
	w, _ := newTree(t)
	script := filepath.Join(w.abs, "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := w.writeFile("run.sh", []byte("#!/bin/sh\necho hi\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(script)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode after write = %v, %v; want 0755", fi.Mode(), err)
	}
}

func TestToolRisks(t *testing.T) {
	w, _ := newTree(t)
	want := map[string]tool.Risk{"read_file": tool.Read, "list_files": tool.Read, "write_file": tool.Write, "edit_file": tool.Write}
	for name, risk := range want {
		t.Run(name+" is "+risk.String(), func(t *testing.T) {
			tl, ok := toolsByName(w)[name]
			if !ok || tl.Risk != risk {
				t.Fatalf("%s: present %v, risk %v; want %v", name, ok, tl.Risk, risk)
			}
		})
	}
}

func TestReadFileRefusesBinary(t *testing.T) {
	w, _ := newTree(t)
	if err := os.WriteFile(filepath.Join(w.abs, "bin"), []byte("\x7fELF\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := toolsByName(w)["read_file"].Call(context.Background(), []byte(`{"path":"bin"}`))
	if err == nil || !strings.Contains(err.Error(), "binary") {
		t.Fatalf("err = %v; want it to say the file is binary", err)
	}
	if errors.Is(err, tool.ErrInvalidArgs) {
		t.Fatalf("a binary file is not an argument error: %v", err)
	}
}
