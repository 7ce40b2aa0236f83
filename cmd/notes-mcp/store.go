package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
)

// maxBody is the largest note, in bytes.
const maxBody = 1 << 20

// noNoteError is the error about a note that does not exist.
type noNoteError struct {
	title string
	near  string // a title that differs only in case, or ""
}

func (e *noNoteError) Error() string {
	if e.near != "" {
		return fmt.Sprintf("there is no note titled %q; did you mean %q? Titles must match exactly", e.title, e.near)
	}
	return fmt.Sprintf("there is no note titled %q", e.title)
}

// store keeps notes as Markdown files, one per note, directly inside one
// folder. Files added, edited or removed by hand are seen at once: nothing
// is cached. Every change is atomic (a whole file is written beside the old
// one and renamed over it) and changes are made one at a time, so
// concurrent calls never lose or interleave a note.
type store struct {
	dir     string
	root    *os.Root // confines every file operation to dir, symlinks included
	maxBody int

	mu sync.Mutex // held by every change, from the first read to the rename

	// beforeRename, when set, runs between writing a note's new file and
	// renaming it into place; tests use it to fail or crash at that moment.
	beforeRename func() error
}

// openStore opens the notes folder dir, creating it (private to the user)
// if it does not exist.
func openStore(dir string) (*store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the notes folder: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot open the notes folder: %w", err)
	}
	return &store{dir: dir, root: root, maxBody: maxBody}, nil
}

// Close releases the folder.
func (s *store) Close() error { return s.root.Close() }

// titles returns the title of every note, sorted.
func (s *store) titles() ([]string, error) {
	d, err := s.root.Open(".")
	if err != nil {
		return nil, fmt.Errorf("cannot list the notes folder: %w", err)
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("cannot list the notes folder: %w", err)
	}
	var titles []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if t, ok := titleOf(e.Name()); ok {
			titles = append(titles, t)
		}
	}
	sortTitles(titles)
	return titles, nil
}

// sortTitles sorts titles as a person expects, ignoring case first.
func sortTitles(titles []string) {
	slices.SortFunc(titles, func(a, b string) int {
		if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// lookup reports whether a note titled exactly title exists and, if not,
// the title of a note whose name differs only in case ("" if none).
func (s *store) lookup(title string) (exists bool, near string, err error) {
	titles, err := s.titles()
	if err != nil {
		return false, "", err
	}
	for _, t := range titles {
		if t == title {
			return true, "", nil
		}
		if near == "" && strings.EqualFold(t, title) {
			near = t
		}
	}
	return false, near, nil
}

// mustExist returns a *noNoteError unless a note titled exactly title
// exists.
func (s *store) mustExist(title string) error {
	exists, near, err := s.lookup(title)
	switch {
	case err != nil:
		return err
	case !exists:
		return &noNoteError{title: title, near: near}
	}
	return nil
}

// mayCreate returns an error unless a note titled title can be created
// beside the existing ones without clashing on any file system. except is
// a title the clash check ignores (the note being renamed), or "".
func (s *store) mayCreate(title, except string) error {
	titles, err := s.titles()
	if err != nil {
		return err
	}
	for _, t := range titles {
		if t == except {
			continue
		}
		if t == title {
			return fmt.Errorf("a note titled %q already exists: choose another title, or delete that note first", t)
		}
		if strings.EqualFold(t, title) {
			return fmt.Errorf("a note titled %q already exists, and %q differs from it only in case, which many file systems treat as the same name: use %q or choose another title", t, title, t)
		}
	}
	if strings.EqualFold(title, except) {
		return nil
	}
	// A file system that ignores case or Unicode normalisation may hold a
	// file under a spelling that no listed title matches.
	if _, err := s.root.Lstat(fileName(title)); err == nil {
		return fmt.Errorf("the notes folder already has a file this file system treats as %q (the same title spelt differently): search_notes lists the titles", title)
	}
	return nil
}

// read returns the body of the note titled title.
func (s *store) read(title string) (string, error) {
	if err := checkTitle(title); err != nil {
		return "", err
	}
	if err := s.mustExist(title); err != nil {
		return "", err
	}
	return s.readFile(title)
}

// readFile reads a note's file, refusing one over the size limit.
func (s *store) readFile(title string) (string, error) {
	f, err := s.root.Open(fileName(title))
	if errors.Is(err, fs.ErrNotExist) {
		return "", &noNoteError{title: title}
	}
	if err != nil {
		return "", fmt.Errorf("cannot read note %q: %w", title, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("note %q is not a regular file: open the notes folder to fix it", title)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(s.maxBody)+1))
	if err != nil {
		return "", fmt.Errorf("cannot read note %q: %w", title, err)
	}
	if len(b) > s.maxBody {
		return "", fmt.Errorf("note %q is larger than the limit of %s: open it in an editor instead", title, sizeLimit(s.maxBody))
	}
	return string(b), nil
}

// search returns the sorted titles of the notes whose title or body
// contains text, ignoring case; an empty text matches every note. Notes
// that cannot be read are matched by title only.
func (s *store) search(ctx context.Context, text string) ([]string, error) {
	titles, err := s.titles()
	if err != nil || text == "" {
		return titles, err
	}
	want := strings.ToLower(text)
	var found []string
	for _, t := range titles {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if strings.Contains(strings.ToLower(t), want) {
			found = append(found, t)
			continue
		}
		body, err := s.readFile(t)
		if err == nil && strings.Contains(strings.ToLower(body), want) {
			found = append(found, t)
		}
	}
	return found, nil
}

// put creates the note titled title, or replaces the one with exactly that
// title, and reports whether it created it.
func (s *store) put(title, body string) (created bool, err error) {
	if err := checkTitle(title); err != nil {
		return false, err
	}
	if err := s.checkBody(len(body), "body"); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exists, _, err := s.lookup(title)
	if err != nil {
		return false, err
	}
	if !exists {
		if err := s.mayCreate(title, ""); err != nil {
			return false, err
		}
	}
	return !exists, s.write(title, body)
}

// appendText adds text to the end of the note titled title, on a new line,
// and returns the note's new size.
func (s *store) appendText(title, text string) (int, error) {
	if err := checkTitle(title); err != nil {
		return 0, err
	}
	if err := s.checkBody(len(text), "text"); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.mustExist(title); err != nil {
		return 0, err
	}
	body, err := s.readFile(title)
	if err != nil {
		return 0, err
	}
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	body += text
	if len(body) > s.maxBody {
		return 0, fmt.Errorf("note %q would be %d bytes after appending; the limit is %s: start a new note", title, len(body), sizeLimit(s.maxBody))
	}
	return len(body), s.write(title, body)
}

// edit replaces the one occurrence of old in the note titled title by repl.
func (s *store) edit(title, old, repl string) error {
	if err := checkTitle(title); err != nil {
		return err
	}
	if old == "" {
		return errors.New("old_text is empty: give the exact text to replace, as read_note shows it")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.mustExist(title); err != nil {
		return err
	}
	body, err := s.readFile(title)
	if err != nil {
		return err
	}
	switch n := strings.Count(body, old); n {
	case 0:
		return fmt.Errorf("note %q does not contain old_text: read the note and copy the text exactly", title)
	case 1:
	default:
		return fmt.Errorf("old_text occurs %d times in note %q: include more of the surrounding text so it occurs once", n, title)
	}
	body = strings.Replace(body, old, repl, 1)
	if len(body) > s.maxBody {
		return fmt.Errorf("note %q would be %d bytes after the edit; the limit is %s", title, len(body), sizeLimit(s.maxBody))
	}
	return s.write(title, body)
}

// remove deletes the note titled title.
func (s *store) remove(title string) error {
	if err := checkTitle(title); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.mustExist(title); err != nil {
		return err
	}
	if err := s.root.Remove(fileName(title)); err != nil {
		return fmt.Errorf("cannot delete note %q: %w", title, err)
	}
	return s.syncDir()
}

// rename gives the note titled from the title to.
func (s *store) rename(from, to string) error {
	if err := checkTitle(from); err != nil {
		return err
	}
	if err := checkTitle(to); err != nil {
		return fmt.Errorf("new_title: %w", err)
	}
	if from == to {
		return fmt.Errorf("the note is already titled %q", to)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.mustExist(from); err != nil {
		return err
	}
	if err := s.mayCreate(to, from); err != nil {
		return err
	}
	if err := s.root.Rename(fileName(from), fileName(to)); err != nil {
		return fmt.Errorf("cannot rename note %q: %w", from, err)
	}
	return s.syncDir()
}

func (s *store) checkBody(n int, arg string) error {
	if n > s.maxBody {
		return fmt.Errorf("%s is %d bytes; the limit is %s: shorten it or split it into several notes", arg, n, sizeLimit(s.maxBody))
	}
	return nil
}

// sizeLimit spells a size limit for a message: "1 MiB (1048576 bytes)".
func sizeLimit(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	}
	return fmt.Sprintf("%d bytes", n)
}
