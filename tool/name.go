package tool

import (
	"errors"
	"fmt"
)

// MaxNameLen is the longest tool name the model providers accept.
const MaxNameLen = 64

// CheckName reports whether name is a tool name every provider and MCP
// client accepts.
func CheckName(name string) error {
	if name == "" {
		return errors.New("tool name is empty")
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("tool name %q is %d characters long; the limit is %d", name, len(name), MaxNameLen)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("tool name %q has %q: use only letters, digits, '_' and '-'", name, c)
		}
	}
	return nil
}
