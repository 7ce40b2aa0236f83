// Package clip shortens text for messages without splitting a character.
package clip

import "unicode/utf8"

// Boundary returns the largest index i <= max at which s can be cut
// without splitting a UTF-8 character; max must be less than len(s).
func Boundary(s string, max int) int {
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return max
}

// String returns s when it has at most max bytes, and otherwise its first
// max bytes or fewer, cut at a character boundary, followed by "…".
func String(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return s[:Boundary(s, max)] + "…"
}
