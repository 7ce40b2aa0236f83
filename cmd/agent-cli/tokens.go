package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/bridle-dev/bridle/keychain"
	"github.com/bridle-dev/bridle/mcp"
)

// tokensFileVar, set to "file", keeps MCP OAuth tokens in a file of the
// user's configuration folder instead of the keychain: for machines
// without one, by the person's choice only.
const tokensFileVar = "AGENT_MCP_TOKENS"

// tokenStore keeps MCP OAuth tokens: mcp.TokenStore, and what the mcp
// subcommands need besides.
type tokenStore interface {
	mcp.TokenStore
	// DeleteToken removes the token for resource; it reports false when
	// there was none.
	DeleteToken(ctx context.Context, resource string) (bool, error)
	// where says where tokens are kept, for messages.
	where() string
}

// openTokens returns the keychain store, or the file store when the person
// chose it with AGENT_MCP_TOKENS=file.
func openTokens(getenv func(string) string) (tokenStore, error) {
	switch v := getenv(tokensFileVar); v {
	case "", "keychain":
		return keychainTokens{}, nil
	case "file":
		dir, err := os.UserConfigDir()
		if err != nil {
			return nil, fmt.Errorf("%s=file: there is no configuration folder for the token file: %v", tokensFileVar, err)
		}
		return &fileTokens{path: filepath.Join(dir, "agent-cli", "mcp-tokens.json")}, nil
	default:
		return nil, fmt.Errorf("%s is %q: use keychain (the default) or file", tokensFileVar, v)
	}
}

// keychainTokens keeps each token as JSON in the system keychain, under
// the account "mcp-oauth " followed by the server's URL.
type keychainTokens struct{}

func tokenAccount(resource string) string { return "mcp-oauth " + resource }

func (keychainTokens) where() string { return "the keychain" }

func (keychainTokens) LoadToken(_ context.Context, resource string) (*mcp.Token, error) {
	data, err := keychain.Get(keychainService, tokenAccount(resource))
	if errors.Is(err, keychain.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailableHint(err)
	}
	var t mcp.Token
	if err := json.Unmarshal([]byte(data), &t); err != nil {
		// Not ours, or damaged: as good as none; a login replaces it.
		return nil, nil
	}
	return &t, nil
}

func (keychainTokens) SaveToken(_ context.Context, t *mcp.Token) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return unavailableHint(keychain.Set(keychainService, tokenAccount(t.Resource), string(data)))
}

func (keychainTokens) DeleteToken(_ context.Context, resource string) (bool, error) {
	err := keychain.Delete(keychainService, tokenAccount(resource))
	if errors.Is(err, keychain.ErrNotFound) {
		return false, nil
	}
	return err == nil, unavailableHint(err)
}

// unavailableHint adds the way out to a keychain that cannot be reached.
func unavailableHint(err error) error {
	if errors.Is(err, keychain.ErrUnavailable) {
		return fmt.Errorf("%w; to keep MCP tokens in a file of your configuration folder instead, set %s=file", err, tokensFileVar)
	}
	return err
}

// fileTokens keeps the tokens in one JSON file, readable by the person
// only, in the user's configuration folder (never in a project).
type fileTokens struct {
	path string
	mu   sync.Mutex
}

func (f *fileTokens) where() string { return f.path }

func (f *fileTokens) read() (map[string]*mcp.Token, error) {
	m := map[string]*mcp.Token{}
	data, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s is not valid: %v (delete it to start again)", f.path, err)
	}
	return m, nil
}

func (f *fileTokens) write(m map[string]*mcp.Token) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(f.path, ".mcp-tokens-*", append(data, '\n'))
}

func (f *fileTokens) LoadToken(_ context.Context, resource string) (*mcp.Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.read()
	if err != nil {
		return nil, err
	}
	return m[resource], nil
}

func (f *fileTokens) SaveToken(_ context.Context, t *mcp.Token) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.read()
	if err != nil {
		return err
	}
	m[t.Resource] = t
	return f.write(m)
}

func (f *fileTokens) DeleteToken(_ context.Context, resource string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.read()
	if err != nil {
		return false, err
	}
	if _, ok := m[resource]; !ok {
		return false, nil
	}
	delete(m, resource)
	return true, f.write(m)
}
