package main

import (
	"fmt"
	"strings"
)

// inertText makes text from a server safe to print on a terminal: control
// characters (escape sequences, carriage returns, C1 codes) and the
// characters that reorder text (bidirectional overrides and isolates)
// are shown as escapes instead of acting on the terminal. Line breaks stay.
func inertText(s string) string {
	if !strings.ContainsFunc(s, active) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if active(r) {
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// active reports whether r acts on a terminal or on the order of text.
func active(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0xfffd:
		return false
	}
	return false
}
