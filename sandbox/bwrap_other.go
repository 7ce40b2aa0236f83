//go:build !linux

package sandbox

import (
	"fmt"
	"runtime"
)

// Check reports whether commands can be confined here: nil, or an error
// wrapping [ErrUnavailable] that says why not. Only Linux has a sandbox
// so far; macOS's sandbox-exec is a later port.
func Check() error {
	return fmt.Errorf("%w: confinement is only written for Linux (bubblewrap), not yet for %s", ErrUnavailable, runtime.GOOS)
}

func wrapper(p Policy, dir string) ([]string, error) {
	return nil, Check()
}
