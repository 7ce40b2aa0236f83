// Package keychain keeps small secrets, such as API keys and OAuth tokens,
// in the system keychain: the macOS Keychain, the Secret Service on Linux (GNOME Keyring,
// KWallet) and the Windows Credential Manager.
//
// A secret is stored under a service (the program, "agent-cli") and an
// account (what the secret is for, "anthropic"). Errors never contain the
// secret. When the machine has no keychain service, or it does not answer,
// errors wrap [ErrUnavailable] so a caller can point at another way to
// supply the secret, such as an environment variable.
//
// Tests use the in-memory keychain of github.com/zalando/go-keyring: call
// its MockInit before the first use.
package keychain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zalando/go-keyring"
)

// ErrNotFound reports that the keychain holds no secret for the service and
// account.
var ErrNotFound = errors.New("no such entry in the keychain")

// ErrUnavailable is wrapped by every error that comes from the keychain
// service itself: there is none on this machine, it is not running, or it
// refused to open.
var ErrUnavailable = errors.New("no keychain service is available")

// Get returns the secret stored for service and account. It returns an
// error wrapping [ErrNotFound] when there is none, and one wrapping
// [ErrUnavailable] when the keychain cannot be reached.
func Get(service, account string) (string, error) {
	if err := check(service, account); err != nil {
		return "", err
	}
	secret, err := keyring.Get(service, account)
	if err != nil {
		return "", wrap(err, service, account)
	}
	return secret, nil
}

// Set stores secret for service and account, replacing any secret stored
// there before. An empty secret is refused.
func Set(service, account, secret string) error {
	if err := check(service, account); err != nil {
		return err
	}
	if strings.TrimSpace(secret) == "" {
		return errors.New("keychain: the secret is empty: nothing to store")
	}
	if err := keyring.Set(service, account, secret); err != nil {
		return wrap(err, service, account)
	}
	return nil
}

// Delete removes the secret stored for service and account. It returns an
// error wrapping [ErrNotFound] when there is none.
func Delete(service, account string) error {
	if err := check(service, account); err != nil {
		return err
	}
	if err := keyring.Delete(service, account); err != nil {
		return wrap(err, service, account)
	}
	return nil
}

func check(service, account string) error {
	if service == "" || account == "" {
		return fmt.Errorf("keychain: service %q and account %q must both be set", service, account)
	}
	return nil
}

// wrap names the entry and sorts go-keyring's errors into ours. Its errors
// come from D-Bus, the security tool or the Windows API; none contains the
// secret, so their text is kept as the cause.
func wrap(err error, service, account string) error {
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return fmt.Errorf("keychain: %s/%s: %w", service, account, ErrNotFound)
	case errors.Is(err, keyring.ErrSetDataTooBig):
		return fmt.Errorf("keychain: %s/%s: the secret is too large for the keychain", service, account)
	}
	return &unavailableError{cause: err}
}

type unavailableError struct{ cause error }

func (e *unavailableError) Error() string {
	return fmt.Sprintf("keychain: %v (%v)", ErrUnavailable, e.cause)
}

func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.cause} }
