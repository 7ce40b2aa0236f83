// Package inert makes text from outside the program (a model, a tool, an
// MCP server, a project file) safe to print on a terminal: control
// characters and bidirectional overrides are shown escaped, so they cannot
// move the cursor, erase a line, set the window title or reorder what the
// person reads, and the person sees that they were there.
package inert

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// String returns s with every character a terminal would act on shown as
// an escape: C0 controls but newline and tab (ESC as \x1b, CR as \r), DEL,
// C1 controls (\u009b), the bidirectional embeddings, overrides and
// isolates U+202A–U+202E and U+2066–U+2069 (\u202e), and bytes that are
// not UTF-8 (\xff). Everything else, and s when it holds none of these,
// comes back as it was.
func String(s string) string { return escape(s, false) }

// Line is [String] for text that must stay on one line, such as a file
// name in an activity line: newline and tab are escaped too (\n, \t).
func Line(s string) string { return escape(s, true) }

// Safe reports whether s prints as itself: [String](s) == s.
func Safe(s string) bool { return clean(s, false) }

func clean(s string, oneLine bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if active(rune(c), oneLine) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || active(r, oneLine) {
			return false
		}
		i += n
	}
	return true
}

func escape(s string, oneLine bool) string {
	if clean(s, oneLine) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !active(r, oneLine):
			b.WriteString(s[i : i+n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

// active reports whether a terminal acts on r instead of showing it, or
// r reorders the text around it.
func active(r rune, oneLine bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return oneLine
	case r < 0x20, r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Stream makes a text that arrives in pieces inert, piece by piece: a
// character split between two pieces is held until its end arrives,
// instead of being shown as broken bytes. The zero value is ready to use.
type Stream struct {
	held []byte
}

// Next returns piece made inert, with what was held from the previous
// piece in front, holding back an unfinished character at its end.
func (st *Stream) Next(piece string) string {
	s := piece
	if len(st.held) > 0 {
		s = string(st.held) + piece
		st.held = st.held[:0]
	}
	if cut := unfinished(s); cut < len(s) {
		st.held = append(st.held, s[cut:]...)
		s = s[:cut]
	}
	return String(s)
}

// Flush returns what is held, made inert: the stream ended in the middle
// of a character.
func (st *Stream) Flush() string {
	s := string(st.held)
	st.held = st.held[:0]
	return String(s)
}

// unfinished returns where an unfinished UTF-8 character at the end of s
// begins, or len(s) when s ends with a whole one.
func unfinished(s string) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if !utf8.FullRuneInString(s[i:]) {
			return i
		}
		break
	}
	return len(s)
}
