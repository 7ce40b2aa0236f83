//go:build unix

package main

import (
	"path/filepath"
	"syscall"
	"testing"
)

func TestFmtRefusesANamedPipe(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.go"), 0o600); err != nil {
		t.Skip("cannot make a named pipe here:", err)
	}
	s := newTestServer(t, root)
	// Opening it would wait for a writer for ever.
	text, failed := call(t, s, "go_fmt", map[string]any{"path": "pipe.go"})
	expect{has: []string{"1 files do not parse", "pipe.go: not a regular file (a named pipe, socket or device); not read"}}.check(t, text, failed)
}
