package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// tempPrefix starts the name of every file a write is building. The dot
// keeps it hidden and out of the list of notes: a title cannot have one.
const tempPrefix = ".notes-mcp-"

// write stores body in the file name of the folder r as the note titled
// title, atomically: the new text goes to a temporary file in the same
// folder, is flushed to disk, and is renamed over the old file, so a crash
// at any moment leaves either the old note or the new one, never a torn
// file. The caller holds the locks of [store.change].
func (s *store) write(r *os.Root, name, title, body string) (err error) {
	perm := fs.FileMode(0o600)
	if fi, err := r.Lstat(name); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm() // keep what the person chose for an existing note
	}
	tmp, f, err := createTemp(r, perm)
	if err != nil {
		return fmt.Errorf("cannot write note %q: %w", title, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			r.Remove(tmp)
		}
	}()
	if _, err := f.WriteString(body); err != nil {
		return fmt.Errorf("cannot write note %q: %w", title, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cannot write note %q: %w", title, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot write note %q: %w", title, err)
	}
	if s.beforeRename != nil {
		if err := s.beforeRename(); err != nil {
			return fmt.Errorf("cannot write note %q: %w", title, err)
		}
	}
	if err := r.Rename(tmp, name); err != nil {
		return fmt.Errorf("cannot write note %q: %w", title, err)
	}
	return syncDir(r)
}

// createTemp creates a new, empty, uniquely named file in the folder.
func createTemp(r *os.Root, perm fs.FileMode) (string, *os.File, error) {
	for range 100 {
		name := tempPrefix + rand.Text()[:12] + ".tmp"
		f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		// The umask may have narrowed perm; the note keeps its mode.
		if err := f.Chmod(perm); err != nil && runtime.GOOS != "windows" {
			f.Close()
			r.Remove(name)
			return "", nil, err
		}
		return name, f, nil
	}
	return "", nil, errors.New("cannot find a free temporary file name")
}

// syncDir flushes the folder itself, so a rename or removal survives a
// crash. Windows cannot flush a folder; its renames are journaled.
func syncDir(r *os.Root) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := r.Open(".")
	if err != nil {
		return fmt.Errorf("cannot flush the notes folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("cannot flush the notes folder: %w", err)
	}
	return nil
}
