package agent

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// MaxCheckpointFile is the largest file [Files] keeps a copy of.
const MaxCheckpointFile = 8 << 20

// Files is a [Checkpointer] that keeps copies of the files a Write call
// names, in the checkpoint's record, so that [Agent.Rewind] puts them back
// as they were: rewritten, or removed when the call created them. A file
// whose content is no longer what the agent's last call left is a conflict:
// the rewind restores nothing and names it.
//
// Paths are checked like any path a model wrote: relative, inside Root,
// and no symbolic link leads out.
type Files struct {
	// Root is the folder the paths are relative to. Required.
	Root string
	// Paths returns the files call c may change, relative to Root; none
	// means there is nothing to keep. An error keeps the call from running.
	Paths func(c Call) ([]string, error)
}

// fileState is a file as a checkpoint saw it.
type fileState struct {
	Path string `json:"path"`
	// Before is the content before the call; nil when the file did not
	// exist.
	Before []byte      `json:"before,omitempty"`
	Mode   fs.FileMode `json:"mode,omitempty"`
	// After is the SHA-256 of the content the call left, "" when it left no
	// file.
	After string `json:"after"`
}

// Checkpoint copies the files c names, and returns the function that notes
// what the call left.
func (f *Files) Checkpoint(ctx context.Context, c Call) (func() (json.RawMessage, error), error) {
	if f.Paths == nil {
		return func() (json.RawMessage, error) { return json.RawMessage(`[]`), nil }, nil
	}
	paths, err := f.Paths(c)
	if err != nil {
		return nil, err
	}
	root, err := f.open()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	states := make([]fileState, 0, len(paths))
	seen := map[string]bool{}
	for _, p := range paths {
		if !filepath.IsLocal(p) {
			return nil, fmt.Errorf("path %q is not inside the folder: give a relative path without ..", p)
		}
		p = filepath.Clean(p)
		if seen[p] {
			continue
		}
		seen[p] = true
		data, mode, err := readState(root, p)
		if err != nil {
			return nil, err
		}
		states = append(states, fileState{Path: p, Before: data, Mode: mode})
	}
	return func() (json.RawMessage, error) {
		root, err := f.open()
		if err != nil {
			return nil, err
		}
		defer root.Close()
		for i := range states {
			sum, err := stateSum(root, states[i].Path)
			if err != nil {
				return nil, err
			}
			states[i].After = sum
		}
		return json.Marshal(states)
	}, nil
}

func (f *Files) open() (*os.Root, error) {
	if f.Root == "" {
		return nil, errors.New("agent: Files has no Root: set the folder the paths are relative to")
	}
	return os.OpenRoot(f.Root)
}

// readState returns the content and mode of file p, nil content when it
// does not exist.
func readState(root *os.Root, p string) ([]byte, fs.FileMode, error) {
	info, err := root.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if !info.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file: no copy of it can be kept", p)
	}
	if info.Size() > MaxCheckpointFile {
		return nil, 0, fmt.Errorf("%s has %d bytes, more than the %d a checkpoint keeps", p, info.Size(), MaxCheckpointFile)
	}
	data, err := root.ReadFile(p)
	if err != nil {
		return nil, 0, err
	}
	if data == nil {
		data = []byte{}
	}
	return data, info.Mode().Perm(), nil
}

// stateSum returns the SHA-256 of file p, "" when it does not exist.
func stateSum(root *os.Root, p string) (string, error) {
	data, _, err := readState(root, p)
	if err != nil || data == nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// Restore puts the files back as the oldest record saw them, once it has
// checked that each is as the newest record left it.
func (f *Files) Restore(ctx context.Context, records []json.RawMessage) error {
	expect := map[string]string{}    // path → what the agent's last call left
	target := map[string]fileState{} // path → before the first call
	var order []string
	for i, rec := range records {
		var states []fileState
		if err := json.Unmarshal(rec, &states); err != nil {
			return fmt.Errorf("checkpoint %d of %d is not a record of files: %w", i+1, len(records), err)
		}
		for _, s := range states {
			if !filepath.IsLocal(s.Path) {
				return fmt.Errorf("checkpoint %d of %d names %q, which is not inside the folder", i+1, len(records), s.Path)
			}
			if _, ok := expect[s.Path]; !ok {
				expect[s.Path] = s.After
				order = append(order, s.Path)
			}
			target[s.Path] = s
		}
	}
	root, err := f.open()
	if err != nil {
		return err
	}
	defer root.Close()
	var changed []string
	for _, p := range order {
		sum, err := stateSum(root, p)
		if err != nil {
			return fmt.Errorf("checking %s: %w; nothing was restored", p, err)
		}
		if sum != expect[p] {
			changed = append(changed, p)
		}
	}
	if len(changed) > 0 {
		slices.Sort(changed)
		return &ConflictError{Paths: changed}
	}
	for _, p := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := put(root, target[p]); err != nil {
			return fmt.Errorf("restoring %s: %w", p, err)
		}
	}
	return nil
}

// put makes file s.Path hold s.Before, or removes it when s.Before is nil.
func put(root *os.Root, s fileState) error {
	if s.Before == nil {
		if err := root.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if dir := filepath.Dir(s.Path); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	tmp := s.Path + ".rewind-" + hex.EncodeToString(b[:])
	mode := s.Mode
	if mode == 0 {
		mode = 0o644
	}
	if err := root.WriteFile(tmp, s.Before, mode); err != nil {
		return err
	}
	if err := root.Chmod(tmp, mode); err != nil {
		root.Remove(tmp)
		return err
	}
	if err := root.Rename(tmp, s.Path); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}
