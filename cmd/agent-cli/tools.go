package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/bridle-dev/bridle/tool"
)

const (
	maxReadBytes = 1 << 20 // read_file refuses larger files
)

type readFileArgs struct {
	Path string `json:"path" jsonschema:"the file's path, relative to the working folder, for example cmd/app/main.go"`
}

type listFilesArgs struct {
	Path string `json:"path,omitempty" jsonschema:"the folder to list, relative to the working folder; empty for the working folder itself"`
}

type writeFileArgs struct {
	Path    string `json:"path" jsonschema:"the file's path, relative to the working folder; missing folders are created"`
	Content string `json:"content" jsonschema:"the whole new content of the file"`
}

type editFileArgs struct {
	Path string `json:"path" jsonschema:"the file's path, relative to the working folder"`
	Old  string `json:"old" jsonschema:"the exact text to replace, copied from the file with its spaces and indentation; it must occur exactly once"`
	New  string `json:"new" jsonschema:"the text to put in its place"`
}

// fileTools returns the four file tools, confined to w.
func fileTools(w *workdir) []tool.Tool {
	return []tool.Tool{
		tool.New("read_file", "Read a text file in the working folder and return its content.", tool.Read, w.readFile),
		tool.New("list_files", listFilesDescription, tool.Read, w.listFiles),
		tool.New("write_file", "Write a whole file in the working folder, replacing it if it exists and creating missing folders. Prefer edit_file for small changes to an existing file.", tool.Write, w.writeFileTool),
		tool.New("edit_file", "Replace one exact, unique piece of text in a file of the working folder. Read the file first and copy the old text exactly.", tool.Write, w.editFile),
	}
}

func (w *workdir) readFile(_ context.Context, in readFileArgs) (string, error) {
	rel, err := w.resolve(in.Path)
	if err != nil {
		return "", err
	}
	// Look before opening: opening a named pipe waits for a writer.
	fi, err := w.root.Stat(rel)
	if err != nil {
		return "", fileError(rel, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("%s is a folder: use list_files to see what it holds", rel)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file (a named pipe, socket or device): read_file reads only regular files", rel)
	}
	f, err := w.root.Open(rel)
	if err != nil {
		return "", fileError(rel, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxReadBytes+1))
	if err != nil {
		return "", fileError(rel, err)
	}
	if len(data) > maxReadBytes {
		return "", fmt.Errorf("%s is larger than %d bytes: too large to read whole", rel, maxReadBytes)
	}
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return "", fmt.Errorf("%s looks like a binary file (it contains NUL bytes): not shown", rel)
	}
	if len(data) == 0 {
		return "(" + rel + " is empty)", nil
	}
	return string(data), nil
}

func (w *workdir) writeFileTool(_ context.Context, in writeFileArgs) (string, error) {
	rel, err := w.resolve(in.Path)
	if err != nil {
		return "", err
	}
	_, statErr := w.root.Stat(rel)
	if err := w.writeFile(rel, []byte(in.Content)); err != nil {
		return "", err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		return fmt.Sprintf("created %s (%d bytes)", rel, len(in.Content)), nil
	}
	return fmt.Sprintf("wrote %s (%d bytes)", rel, len(in.Content)), nil
}

func (w *workdir) editFile(_ context.Context, in editFileArgs) (string, error) {
	rel, err := w.resolve(in.Path)
	if err != nil {
		return "", err
	}
	if in.Old == "" {
		return "", errors.New("old is empty: copy the text to replace from the file, or use write_file to write a whole file")
	}
	data, err := w.root.ReadFile(rel)
	if err != nil {
		return "", fileError(rel, err)
	}
	text := string(data)
	switch n := strings.Count(text, in.Old); n {
	case 0:
		return "", fmt.Errorf("old text was not found in %s: read the file and copy the text exactly, with its spaces and indentation", rel)
	case 1:
	default:
		return "", fmt.Errorf("old text occurs %d times in %s: include more of the surrounding lines so that it occurs once", n, rel)
	}
	if err := w.writeFile(rel, []byte(strings.Replace(text, in.Old, in.New, 1))); err != nil {
		return "", err
	}
	return fmt.Sprintf("edited %s: replaced %d lines with %d", rel, lineCount(in.Old), lineCount(in.New)), nil
}

// writeFile replaces rel atomically: the content goes to a temporary file
// in the same folder, which is then renamed over rel, so a reader never
// sees half a file and a failed write leaves the old one.
func (w *workdir) writeFile(rel string, data []byte) error {
	if rel == "." {
		return errors.New("the path names the working folder itself: give a file name")
	}
	dir := path.Dir(rel)
	if err := w.root.MkdirAll(dir, 0o755); err != nil {
		return fileError(dir, err)
	}
	mode := fs.FileMode(0o644)
	if fi, err := w.root.Stat(rel); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%s is a folder: give a file name", rel)
		}
		mode = fi.Mode().Perm()
	}
	var suffix [6]byte
	rand.Read(suffix[:])
	tmp := path.Join(dir, "."+path.Base(rel)+".tmp-"+hex.EncodeToString(suffix[:]))
	f, err := w.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fileError(rel, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.root.Rename(tmp, rel)
	}
	if err != nil {
		w.root.Remove(tmp)
		return fileError(rel, err)
	}
	return nil
}

// fileError says what went wrong with rel without the absolute path, which
// the model does not need.
func fileError(rel string, err error) error {
	switch err := unwrapPathError(err); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist: use list_files to see what is there", rel)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", rel)
	default:
		return fmt.Errorf("%s: %v", rel, err)
	}
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}
