package main

import (
	"fmt"
	"os"
)

// lockName is the file in the notes folder whose lock every change holds,
// so that several notes-mcp processes over one folder (Claude Code and
// Claude Desktop each start their own) make their changes one at a time.
// The dot keeps it hidden and out of the list of notes.
const lockName = ".notes-mcp.lock"

// lockFolder takes the folder's lock, waiting for another process that
// holds it, and returns the function that releases it.
func lockFolder(r *os.Root) (unlock func(), err error) {
	f, err := r.OpenFile(lockName, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the lock file %s in the notes folder: %w", lockName, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot lock the notes folder (%s): %w", lockName, err)
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}
