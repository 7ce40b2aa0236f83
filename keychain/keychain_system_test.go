package keychain_test

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"testing"

	"github.com/bridle-dev/bridle/keychain"
)

// TestSystemKeychain makes a round trip through the real keychain of the
// machine. It runs only with BRIDLE_KEYCHAIN_TEST=1, which says a keychain
// service is there to be used (on Linux, for example, inside
// dbus-run-session with an unlocked gnome-keyring-daemon); it must run
// before the tests that switch to go-keyring's mock, which this file's name
// ensures.
func TestSystemKeychain(t *testing.T) {
	if os.Getenv("BRIDLE_KEYCHAIN_TEST") != "1" {
		t.Skip("set BRIDLE_KEYCHAIN_TEST=1 to use the machine's keychain")
	}
	var b [8]byte
	rand.Read(b[:])
	service, account, secret := "bridle-keychain-test", hex.EncodeToString(b[:]), "s3cret-"+hex.EncodeToString(b[:])

	if err := keychain.Set(service, account, secret); err != nil {
		t.Fatalf("Set: %v", err)
	}
	got, err := keychain.Get(service, account)
	if err != nil || got != secret {
		t.Fatalf("Get = %q, %v; want the secret", got, err)
	}
	if err := keychain.Delete(service, account); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := keychain.Get(service, account); !errors.Is(err, keychain.ErrNotFound) {
		t.Fatalf("Get after Delete: %v; want ErrNotFound", err)
	}
}
