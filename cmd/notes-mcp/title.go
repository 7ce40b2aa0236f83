package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A note's title is also its file name, "<title>.md", so a title is checked
// like form input before it touches the disk: only letters, digits, spaces,
// dashes and underscores, which can never spell a path, a drive or a hidden
// file on any system.
const (
	// maxTitleChars is the longest title, in characters.
	maxTitleChars = 80
	// maxTitleBytes keeps "<title>.md" under the 255-byte file name limit
	// of common file systems, whatever the script.
	maxTitleBytes = 240
	// noteExt is the extension every note file has.
	noteExt = ".md"
)

const titleRule = "use 1 to 80 letters, digits, spaces, dashes and underscores"

// reservedNames are names Windows keeps for devices, whatever the extension.
var reservedNames = []string{
	"CON", "PRN", "AUX", "NUL",
	"COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
	"LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
}

// checkTitle reports why title cannot name a note, or nil if it can. The
// error names the problem and says what to do.
func checkTitle(title string) error {
	switch {
	case title == "":
		return fmt.Errorf("title is empty: %s", titleRule)
	case !utf8.ValidString(title):
		return fmt.Errorf("title %q is not valid UTF-8: %s", title, titleRule)
	case strings.ContainsRune(title, 0):
		return fmt.Errorf("title %q contains a NUL character: %s", title, titleRule)
	case strings.ContainsAny(title, `/\`):
		return fmt.Errorf("title %q contains a slash: a title is a name, not a path; %s", title, titleRule)
	case strings.Contains(title, ".."):
		return fmt.Errorf("title %q contains \"..\": a title is a name, not a path; %s", title, titleRule)
	case len(title) >= 2 && title[1] == ':' && title[0] < utf8.RuneSelf && unicode.IsLetter(rune(title[0])):
		return fmt.Errorf("title %q starts with a drive letter: a title is a name, not a path; %s", title, titleRule)
	}
	if n := utf8.RuneCountInString(title); n > maxTitleChars {
		return fmt.Errorf("title is %d characters long; the limit is %d: shorten it", n, maxTitleChars)
	}
	if len(title) > maxTitleBytes {
		return fmt.Errorf("title is %d bytes long in UTF-8; the limit is %d: shorten it", len(title), maxTitleBytes)
	}
	if strings.HasPrefix(title, " ") {
		return fmt.Errorf("title %q starts with a space: remove it", title)
	}
	if strings.HasSuffix(title, " ") {
		return fmt.Errorf("title %q ends with a space: remove it", title)
	}
	prev := rune(-1)
	for _, r := range title {
		if !titleRune(prev, r) {
			return fmt.Errorf("title %q contains %s, which a title cannot have: %s", title, describeRune(r), titleRule)
		}
		prev = r
	}
	for _, name := range reservedNames {
		if strings.EqualFold(title, name) {
			return fmt.Errorf("title %q is a device name reserved by Windows: choose another title", title)
		}
	}
	return nil
}

// titleRune reports whether r may follow prev (-1 at the start) in a title.
func titleRune(prev, r rune) bool {
	switch {
	case r == ' ' || r == '-' || r == '_':
		return true
	case invisible(r):
		// Such letters and marks print as nothing, so two titles that look
		// the same could name different notes.
		return false
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return true
	case unicode.IsMark(r):
		// Combining marks belong to scripts such as Devanagari and Thai;
		// they must sit on a letter.
		return prev >= 0 && (unicode.IsLetter(prev) || unicode.IsMark(prev))
	}
	return false
}

func invisible(r rune) bool {
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r) ||
		r == '\u034f' // combining grapheme joiner
}

// describeRune names r for an error message: '.' for a printable
// character, U+00A0 for one that prints as nothing or as blank.
func describeRune(r rune) string {
	if r == '.' {
		return `"." (the file name adds .md by itself)`
	}
	if unicode.IsGraphic(r) && !unicode.IsSpace(r) && !unicode.IsMark(r) && !invisible(r) {
		return fmt.Sprintf("%q", r)
	}
	return fmt.Sprintf("%U", r)
}

// fileName is the name of the file that holds the note titled title, which
// must have passed checkTitle.
func fileName(title string) string { return title + noteExt }

// titleOf returns the title of the note stored in the file named name, and
// false when name is not a note's file (a hidden or temporary file, another
// extension, a name that is not a valid title).
func titleOf(name string) (string, bool) {
	title, ok := strings.CutSuffix(name, noteExt)
	if !ok || checkTitle(title) != nil {
		return "", false
	}
	return title, true
}

// nfc returns s in Unicode normalisation form C. Titles are compared in
// it: "Café" saved decomposed (as macOS and sync tools write names) is the
// same note as "Café" typed composed, and a new note's name is stored so.
func nfc(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return norm.NFC.String(s)
		}
	}
	return s // ASCII is in every normal form
}
