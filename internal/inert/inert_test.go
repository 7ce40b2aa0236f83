package inert

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text is kept", "go build ./...\n\tok", "go build ./...\n\tok"},
		{"an erase-line and carriage return are shown", "ls\x1b[2K\rrm -rf ~", `ls\x1b[2K\rrm -rf ~`},
		{"a window title is shown", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"C1 CSI is shown", "a\u009b2Jb", `a\u009b2Jb`},
		{"a raw CSI byte is shown", "a\x9b2Jb", `a\x9b2Jb`},
		{"DEL is shown", "a\x7fb", `a\x7fb`},
		{"bidi overrides are shown", "x\u202egnp.exe\u202c", `x\u202egnp.exe\u202c`},
		{"bidi isolates are shown", "\u2066a\u2069", `\u2066a\u2069`},
		{"other Unicode is kept", "héllo — 世界 ✓", "héllo — 世界 ✓"},
		{"backslashes are kept", `C:\path \x1b`, `C:\path \x1b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if Safe(tt.in) != (tt.in == tt.want) {
				t.Errorf("Safe(%q) = %v", tt.in, Safe(tt.in))
			}
		})
	}
}

func TestLineEscapesNewlineAndTab(t *testing.T) {
	if got, want := Line("a\nb\tc\x1b"), `a\nb\tc\x1b`; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

func TestStreamHoldsASplitCharacter(t *testing.T) {
	var st Stream
	word := "世界\x1b[2K"
	var got strings.Builder
	for i := 0; i < len(word); i++ {
		got.WriteString(st.Next(word[i : i+1]))
	}
	got.WriteString(st.Flush())
	if want := `世界\x1b[2K`; got.String() != want {
		t.Errorf("pieces gave %q, want %q", got.String(), want)
	}
	if got := st.Next("\xe4\xb8"); got != "" {
		t.Errorf("half a character gave %q, want it held", got)
	}
	if got := st.Flush(); got != `\xe4\xb8` {
		t.Errorf("Flush of a broken character = %q", got)
	}
}

// FuzzString shows that no output of String, Line or Stream holds a
// character a terminal acts on: no C0 control but newline and tab, no ESC
// (so no CSI or OSC sequence), no DEL, no C1 control (U+009B is CSI,
// U+009D is OSC) whether encoded or as a raw byte, no bidi override or
// isolate; and that safe text comes back unchanged.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2K\rdecoy", "\x1b]0;title\x07", "\u009b31m", "\x9b", "\u202e", "\u2067x\u2069", "a\tb\nc", "\xff\xfe", "世界"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(name, out string, oneLine bool) {
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q is not UTF-8", name, s, out)
			}
			for _, r := range out {
				if active(r, oneLine) {
					t.Fatalf("%s(%q) = %q holds %U", name, s, out, r)
				}
			}
		}
		out := String(s)
		check("String", out, false)
		check("Line", Line(s), true)
		if Safe(s) && out != s {
			t.Fatalf("String changed safe text %q to %q", s, out)
		}
		if String(out) != out {
			t.Fatalf("String(%q) = %q is not itself inert", s, out)
		}
		var st Stream
		var b strings.Builder
		for i := 0; i < len(s); i += 3 {
			b.WriteString(st.Next(s[i:min(i+3, len(s))]))
		}
		b.WriteString(st.Flush())
		check("Stream", b.String(), false)
	})
}
