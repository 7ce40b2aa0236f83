package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/zalando/go-keyring"
)

func TestTokenStores(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", t.TempDir())
	tok := &mcp.Token{Resource: "https://mcp.example/mcp", AccessToken: "at-1", RefreshToken: "rt-1", Expiry: time.Now().Add(time.Hour).Round(time.Second)}

	t.Run("the file store is used only when chosen, in the configuration folder, readable by the person only", func(t *testing.T) {
		s, err := openTokens(func(k string) string { return map[string]string{tokensFileVar: "file"}[k] })
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveToken(t.Context(), tok); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(cfg, "agent-cli", "mcp-tokens.json")
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 || s.where() != path {
			t.Fatalf("token file %s: %v, mode %v", path, err, fi.Mode())
		}
		got, err := s.LoadToken(t.Context(), tok.Resource)
		if err != nil || got.AccessToken != "at-1" || !got.Expiry.Equal(tok.Expiry) {
			t.Errorf("LoadToken = %+v, %v", got, err)
		}
		if ok, err := s.DeleteToken(t.Context(), tok.Resource); !ok || err != nil {
			t.Errorf("DeleteToken = %v, %v", ok, err)
		}
		if got, _ := s.LoadToken(t.Context(), tok.Resource); got != nil {
			t.Errorf("the token is still there: %+v", got)
		}
	})

	t.Run("the keychain is the default", func(t *testing.T) {
		keyring.MockInit()
		s, err := openTokens(func(string) string { return "" })
		if err != nil || s.where() != "the keychain" {
			t.Fatalf("openTokens = %v, %v", s, err)
		}
		s.SaveToken(t.Context(), tok)
		if got, err := s.LoadToken(t.Context(), tok.Resource); err != nil || got.RefreshToken != "rt-1" {
			t.Errorf("LoadToken = %+v, %v", got, err)
		}
	})

	t.Run("a keychain that cannot be reached points at the file store", func(t *testing.T) {
		keyring.MockInitWithError(errors.New("dbus: no session bus"))
		t.Cleanup(keyring.MockInit)
		err := keychainTokens{}.SaveToken(t.Context(), tok)
		if err == nil || !strings.Contains(err.Error(), "set AGENT_MCP_TOKENS=file") {
			t.Errorf("SaveToken = %v", err)
		}
	})

	t.Run("an unknown choice is named", func(t *testing.T) {
		_, err := openTokens(func(string) string { return "disk" })
		if err == nil || !strings.Contains(err.Error(), `AGENT_MCP_TOKENS is "disk"`) {
			t.Errorf("openTokens = %v", err)
		}
	})
}
