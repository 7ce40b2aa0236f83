package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// workdir is the folder the file tools are confined to. Paths from the model
// are checked twice: first as text ([cleanPath]), then against the disk
// ([workdir.resolve]) so that no symlink leads out; the files are then
// opened through an [os.Root], which refuses to leave the folder even if
// the tree changes between the check and the use.
type workdir struct {
	abs  string // absolute, symlinks resolved
	root *os.Root
}

func openWorkdir(dir string) (*workdir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("working folder %q: %v", dir, err)
	}
	abs, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("working folder %q does not exist: give an existing folder with --dir", dir)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("working folder %q: %v", dir, err)
	}
	return &workdir{abs: abs, root: root}, nil
}

func (w *workdir) Close() error { return w.root.Close() }

// cleanPath checks a path written by the model as form input and returns it
// cleaned, slash-separated and relative ("." for the folder itself). It
// touches no disk.
func cleanPath(p string) (string, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return "", errors.New("the path is empty: give a path relative to the working folder, such as \"main.go\"")
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	case strings.ContainsRune(p, '\\'):
		return "", fmt.Errorf("path %q contains a backslash: use forward slashes, relative to the working folder", p)
	case len(p) >= 2 && p[1] == ':' && isLetter(p[0]):
		return "", fmt.Errorf("path %q starts with a drive letter: give a path relative to the working folder", p)
	case strings.HasPrefix(p, "/"):
		return "", fmt.Errorf("path %q is absolute: give a path relative to the working folder", p)
	}
	for _, elem := range strings.Split(p, "/") {
		if elem == ".." {
			return "", fmt.Errorf("path %q contains \"..\": give a path inside the working folder", p)
		}
	}
	return path.Clean(p), nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// resolve checks p and returns it relative to the working folder with every
// symlink on the way resolved. The deepest part of the path that exists is
// resolved with [filepath.EvalSymlinks]; the rest does not exist yet, so it
// cannot hold a symlink.
func (w *workdir) resolve(p string) (string, error) {
	rel, err := cleanPath(p)
	if err != nil {
		return "", err
	}
	existing := filepath.Join(w.abs, filepath.FromSlash(rel))
	var rest []string
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("path %q: %v", p, unwrapPathError(err))
		}
		rest = append(rest, filepath.Base(existing))
		existing = filepath.Dir(existing)
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", fmt.Errorf("path %q leads through a symlink that cannot be followed: %v", p, unwrapPathError(err))
	}
	inside, err := filepath.Rel(w.abs, real)
	if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) || filepath.IsAbs(inside) {
		return "", fmt.Errorf("path %q leads outside the working folder through a symlink", p)
	}
	for i := len(rest) - 1; i >= 0; i-- {
		inside = filepath.Join(inside, rest[i])
	}
	return filepath.ToSlash(inside), nil
}

// unwrapPathError drops the absolute path an *fs.PathError carries, so that
// messages for the model speak of paths relative to the working folder.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writePrivate replaces the file at path with data as one step: it writes a
// temporary file named by pattern in the same folder (made 0700 if need be),
// which os.CreateTemp makes 0600 so no one else can read it, then renames it
// over path. A failure leaves the old file as it was.
func writePrivate(path, pattern string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
