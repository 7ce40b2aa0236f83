//go:build unix

package main

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFileRefusesANamedPipe(t *testing.T) {
	w, _ := newTree(t)
	if err := syscall.Mkfifo(filepath.Join(w.abs, "pipe"), 0o600); err != nil {
		t.Skip("cannot make a named pipe here:", err)
	}
	// Opening it would wait for a writer for ever.
	_, err := toolsByName(w)["read_file"].Call(context.Background(), []byte(`{"path":"pipe"}`))
	if err == nil || !strings.Contains(err.Error(), "pipe is not a regular file") {
		t.Fatalf("err = %v; want it to say the pipe is not a regular file", err)
	}
}
