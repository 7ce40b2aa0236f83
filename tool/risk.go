package tool

import (
	"fmt"
	"strings"
)

// Risk says what running a tool can do to the world.
type Risk int

// The risks, from least to most. The zero value is no risk at all: a tool
// whose Risk was left unset is refused by [Tool.Prepare], so forgetting it
// never lets a tool run unasked.
const (
	// Read only looks: files, notes, documentation, searches.
	Read Risk = iota + 1
	// Write changes stored data: writes or deletes files or notes.
	Write
	// Exec runs code or acts outside: commands, network calls, payments.
	// It is also the risk of a tool whose effects are not known.
	Exec
)

// String returns "read", "write" or "exec".
func (r Risk) String() string {
	switch r {
	case Read:
		return "read"
	case Write:
		return "write"
	case Exec:
		return "exec"
	}
	return fmt.Sprintf("Risk(%d)", int(r))
}

// ParseRisk reads "read", "write" or "exec".
func ParseRisk(s string) (Risk, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read":
		return Read, nil
	case "write":
		return Write, nil
	case "exec":
		return Exec, nil
	}
	return Exec, fmt.Errorf("unknown risk %q: use read, write or exec", s)
}
