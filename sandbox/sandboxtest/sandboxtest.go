// Package sandboxtest helps tests of code that runs things in the
// [sandbox]: it skips where the sandbox does not work, and lays out what a
// confined program must not reach.
package sandboxtest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/bridle-dev/bridle/sandbox"
)

// Need skips t where the sandbox does not work ([sandbox.Check] fails),
// unless the environment sets BRIDLE_REQUIRE_SANDBOX=1, which makes that a
// failure.
func Need(t testing.TB) {
	t.Helper()
	if err := sandbox.Check(); err != nil {
		if os.Getenv("BRIDLE_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("BRIDLE_REQUIRE_SANDBOX=1 and %v", err)
		}
		t.Skip(err)
	}
}

// Escapes makes three ways out of a sandbox and returns them: the address
// of a loopback listener that accepts connections, a file path in a
// folder of its own (not yet written), and a private key in a home folder.
// All go away when t ends.
func Escapes(t testing.TB) (addr, outside, key string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	home := t.TempDir()
	key = filepath.Join(home, ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	return ln.Addr().String(), filepath.Join(t.TempDir(), "escaped.txt"), key
}
