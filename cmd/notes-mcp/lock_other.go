//go:build !unix && !windows

package main

import "os"

// lockFile does nothing where there is no file locking (wasm, plan9): one
// process per folder is safe there, several are not.
func lockFile(f *os.File) error { return nil }

func unlockFile(f *os.File) {}
