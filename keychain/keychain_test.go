package keychain_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/keychain"
	"github.com/zalando/go-keyring"
)

func Example() {
	keyring.MockInit() // an in-memory keychain; leave this out in a program

	if err := keychain.Set("agent-cli", "anthropic", "sk-ant-example"); err != nil {
		fmt.Println(err)
		return
	}
	key, err := keychain.Get("agent-cli", "anthropic")
	fmt.Println(key, err)

	_, err = keychain.Get("agent-cli", "openai")
	fmt.Println(errors.Is(err, keychain.ErrNotFound))
	// Output:
	// sk-ant-example <nil>
	// true
}

func TestRoundTrip(t *testing.T) {
	keyring.MockInit()
	steps := []struct {
		name string
		do   func() error
	}{
		{"a secret that was set can be read back", func() error {
			if err := keychain.Set("svc", "acct", "s3cret"); err != nil {
				return err
			}
			got, err := keychain.Get("svc", "acct")
			if err != nil || got != "s3cret" {
				return fmt.Errorf("Get = %q, %v; want s3cret", got, err)
			}
			return nil
		}},
		{"setting again replaces the secret", func() error {
			if err := keychain.Set("svc", "acct", "other"); err != nil {
				return err
			}
			got, err := keychain.Get("svc", "acct")
			if err != nil || got != "other" {
				return fmt.Errorf("Get = %q, %v; want other", got, err)
			}
			return nil
		}},
		{"a deleted secret is not found", func() error {
			if err := keychain.Delete("svc", "acct"); err != nil {
				return err
			}
			if _, err := keychain.Get("svc", "acct"); !errors.Is(err, keychain.ErrNotFound) {
				return fmt.Errorf("Get after Delete: %v; want ErrNotFound", err)
			}
			return nil
		}},
		{"deleting what is not there says so", func() error {
			if err := keychain.Delete("svc", "acct"); !errors.Is(err, keychain.ErrNotFound) {
				return fmt.Errorf("Delete twice: %v; want ErrNotFound", err)
			}
			return nil
		}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if err := s.do(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	keyring.MockInit()
	tests := []struct {
		name             string
		service, account string
		secret           string
		want             string
	}{
		{"an empty service is refused", "", "acct", "x", "must both be set"},
		{"an empty account is refused", "svc", "", "x", "must both be set"},
		{"an empty secret is refused", "svc", "acct", "  ", "secret is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := keychain.Set(tt.service, tt.account, tt.secret)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Set: %v; want an error with %q", err, tt.want)
			}
		})
	}
}

func TestUnavailable(t *testing.T) {
	cause := errors.New("dbus: no session bus")
	keyring.MockInitWithError(cause)
	t.Cleanup(keyring.MockInit)

	ops := []struct {
		name string
		do   func() error
	}{
		{"Get says no keychain service is available", func() error { _, err := keychain.Get("svc", "acct"); return err }},
		{"Set says no keychain service is available", func() error { return keychain.Set("svc", "acct", "s3cret") }},
		{"Delete says no keychain service is available", func() error { return keychain.Delete("svc", "acct") }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			err := op.do()
			if !errors.Is(err, keychain.ErrUnavailable) || !errors.Is(err, cause) {
				t.Fatalf("err = %v; want one wrapping ErrUnavailable and the cause", err)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("the error shows the secret: %v", err)
			}
			if !strings.Contains(err.Error(), "no keychain service is available") {
				t.Fatalf("err = %v; want it to say no keychain service is available", err)
			}
		})
	}
}
