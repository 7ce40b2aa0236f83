package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckTitle(t *testing.T) {
	accepted := []struct{ name, title string }{
		{"a plain title is accepted", "Shopping list"},
		{"digits, dashes and underscores are accepted", "2026-11-30 meeting_notes"},
		{"accented letters are accepted", "Café crème"},
		{"a decomposed accent on a letter is accepted", "Cafe\u0301"},
		{"Japanese is accepted", "日本語のメモ"},
		{"Devanagari with its combining marks is accepted", "नमस्ते"},
		{"Greek capitals are accepted", "ΣΗΜΕΙΩΣΕΙΣ"},
		{"a one-letter title is accepted", "x"},
		{"a title of 80 characters is accepted", strings.Repeat("é", 80)},
		{"a name that only starts like a device name is accepted", "Console"},
		{"a leading dash is accepted", "-rf"},
		{"inner double spaces are accepted", "a  b"},
	}
	for _, c := range accepted {
		t.Run(c.name, func(t *testing.T) {
			if err := checkTitle(c.title); err != nil {
				t.Errorf("checkTitle(%q) = %v, want nil", c.title, err)
			}
		})
	}

	rejected := []struct{ name, title, want string }{
		{"an empty title is refused", "", "title is empty"},
		{"a path that leaves the folder is refused", "../../etc/passwd", "slash"},
		{"a backslash is refused", `..\windows`, "slash"},
		{"a dot-dot is refused", "..", `contains ".."`},
		{"a lone dot is refused", ".", `"."`},
		{"an extension is refused", "note.md", `"."`},
		{"a NUL character is refused", "a\x00b", "NUL"},
		{"a drive letter is refused", "C:notes", "drive letter"},
		{"a colon is refused", "see: this", `':'`},
		{"a leading space is refused", " note", "starts with a space"},
		{"a trailing space is refused", "note ", "ends with a space"},
		{"a tab is refused", "a\tb", "U+0009"},
		{"a no-break space is refused", "a\u00a0b", "U+00A0"},
		{"a newline is refused", "a\nb", "U+000A"},
		{"a title over 80 characters is refused", strings.Repeat("a", 81), "81 characters long; the limit is 80"},
		{"a title over the byte limit is refused", strings.Repeat("𠀀", 61), "244 bytes long"},
		{"a device name is refused", "CON", "reserved by Windows"},
		{"a device name in lower case is refused", "nul", "reserved by Windows"},
		{"a numbered device name is refused", "Com1", "reserved by Windows"},
		{"a superscript digit is refused", "COM¹", `'¹'`},
		{"an invisible Hangul filler is refused", "a\u3164b", "U+3164"},
		{"a variation selector is refused", "a\ufe0fb", "U+FE0F"},
		{"a combining mark at the start is refused", "\u0301a", "U+0301"},
		{"a combining mark on a digit is refused", "1\u20e3", "U+20E3"},
		{"a zero-width space is refused", "a\u200bb", "U+200B"},
		{"a right-to-left override is refused", "a\u202eb", "U+202E"},
		{"a wildcard is refused", "a*", `'*'`},
		{"invalid UTF-8 is refused", "a\xffb", "not valid UTF-8"},
	}
	for _, c := range rejected {
		t.Run(c.name, func(t *testing.T) {
			err := checkTitle(c.title)
			if err == nil {
				t.Fatalf("checkTitle(%q) = nil, want an error containing %q", c.title, c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("checkTitle(%q) = %q, want it to contain %q", c.title, err, c.want)
			}
		})
	}
}

func TestTitleOfIgnoresFilesThatAreNotNotes(t *testing.T) {
	for _, name := range []string{
		".notes-mcp-ABC.tmp", ".hidden.md", "a.b.md", "notes.txt", "Upper.MD", ".md", "CON.md",
	} {
		if title, ok := titleOf(name); ok {
			t.Errorf("titleOf(%q) = %q, true; want it ignored", name, title)
		}
	}
	if title, ok := titleOf("Café.md"); !ok || title != "Café" {
		t.Errorf(`titleOf("Café.md") = %q, %v; want "Café", true`, title, ok)
	}
}

// FuzzCheckTitle checks that no accepted title can name anything but a
// file directly inside the notes folder, on any system.
func FuzzCheckTitle(f *testing.F) {
	for _, seed := range []string{
		"Shopping list", "../../etc/passwd", "..", ".", "C:", "c:x", `a\b`, "a/b", "CON", "com1",
		"a\x00", "नमस्ते", "Cafe\u0301", " x", "x ", "~", "$HOME", "%APPDATA%", "a..b", "NUL ",
		strings.Repeat("é", 80), "\u3164", "a\u202e",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		f.Fatal(err)
	}
	defer root.Close()
	f.Fuzz(func(t *testing.T, title string) {
		if checkTitle(title) != nil {
			return
		}
		name := fileName(title)
		if !utf8.ValidString(title) || len(name) > 255 || utf8.RuneCountInString(title) > maxTitleChars {
			t.Fatalf("accepted %q, which is invalid UTF-8 or too long", title)
		}
		if strings.ContainsAny(name, "/\\:\x00") || strings.HasPrefix(name, ".") || strings.Contains(name, "..") {
			t.Fatalf("accepted %q, whose file name %q could be a path or a hidden file", title, name)
		}
		if !filepath.IsLocal(name) || filepath.Dir(filepath.Join(dir, name)) != dir || filepath.Base(name) != name {
			t.Fatalf("accepted %q, whose file %q is not directly inside the folder", title, name)
		}
		base, _, _ := strings.Cut(name, ".")
		for _, r := range reservedNames {
			if strings.EqualFold(strings.TrimRight(base, " "), r) {
				t.Fatalf("accepted %q, a device name on Windows", title)
			}
		}
		if got, ok := titleOf(name); !ok || got != title {
			t.Fatalf("titleOf(fileName(%q)) = %q, %v; want the title back", title, got, ok)
		}
		// The name works on the real file system, inside the folder.
		if err := root.WriteFile(name, []byte("x"), 0o600); err != nil {
			t.Fatalf("cannot create the file for accepted title %q: %v", title, err)
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("the file for %q is not in the folder: %v", title, err)
		}
		if err := root.Remove(name); err != nil {
			t.Fatal(err)
		}
	})
}
