//go:build unix

package main

import (
	"context"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

func TestANoteThatIsNotARegularFileIsRefused(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, "Plain", "pipe dreams")
	if err := syscall.Mkfifo(filepath.Join(s.dir, "Pipe.md"), 0o600); err != nil {
		t.Skip("cannot make a named pipe here:", err)
	}
	// Each of these waited forever for a writer to the pipe, the changes
	// holding the lock that every later change needs.
	_, err := s.read("Pipe")
	wantErr(t, err, `note "Pipe" is a named pipe, not a regular file`)
	_, err = s.appendText("Pipe", "x")
	wantErr(t, err, "named pipe")
	wantErr(t, s.edit("Pipe", "x", "y"), "named pipe")
	found, err := s.search(context.Background(), "dreams")
	if err != nil || !slices.Equal(found, []string{"Plain"}) {
		t.Errorf("search = %q, %v", found, err)
	}
	mustPut(t, s, "After", "the lock is free")
	wantBody(t, s, "After", "the lock is free")
}
