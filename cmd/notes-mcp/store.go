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
// one and renamed over it) and changes are made one at a time, in this
// process and across every process serving the same folder, so concurrent
// calls never lose or interleave a note.
type store struct {
	dir     string
	maxBody int

	mu sync.Mutex // held by every change, from the first read to the rename

	rootMu sync.Mutex
	root   *os.Root   // confines every file operation to dir, symlinks included
	old    []*os.Root // folders replaced by a new one at dir, closed by Close

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
func (s *store) Close() error {
	s.rootMu.Lock()
	defer s.rootMu.Unlock()
	for _, r := range s.old {
		r.Close()
	}
	s.old = nil
	return s.root.Close()
}

// folder returns the open notes folder. When the folder held open is no
// longer the one at s.dir (it was deleted, and perhaps made again), the
// path is opened again, so the server keeps working without a restart.
// Each call asks once, at its start.
func (s *store) folder() (*os.Root, error) {
	s.rootMu.Lock()
	defer s.rootMu.Unlock()
	want, err := os.Stat(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the notes folder %s does not exist (it was deleted or moved): create it again, or restart notes-mcp to have it created", s.dir)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot open the notes folder: %w", err)
	}
	if !want.IsDir() {
		return nil, fmt.Errorf("the notes folder %s is not a folder any more: move the file away, or restart notes-mcp with another --dir", s.dir)
	}
	if have, err := s.root.Stat("."); err == nil && os.SameFile(have, want) {
		return s.root, nil
	}
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, fmt.Errorf("cannot open the notes folder: %w", err)
	}
	// A call that began before may still be using the old one.
	s.old = append(s.old, s.root)
	s.root = root
	return root, nil
}

// change runs fn on the folder holding both the in-process mutex and the
// folder's lock file, which other processes serving the same folder take
// too: a read-modify-write is never interleaved with another.
func (s *store) change(fn func(r *os.Root) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.folder()
	if err != nil {
		return err
	}
	unlock, err := lockFolder(r)
	if err != nil {
		return err
	}
	defer unlock()
	return fn(r)
}

// entry is a note's file found in the folder.
type entry struct {
	title string // in NFC, as titles are compared and shown
	file  string // the file's name on disk, in whatever form it was saved
}

// entries opens the folder and returns it with every note's file in it.
func (s *store) entries() (*os.Root, []entry, error) {
	r, err := s.folder()
	if err != nil {
		return nil, nil, err
	}
	entries, err := list(r)
	if err != nil {
		return nil, nil, err
	}
	return r, entries, nil
}

// titles returns the title of every note, sorted.
func (s *store) titles() ([]string, error) {
	_, entries, err := s.entries()
	if err != nil {
		return nil, err
	}
	titles := make([]string, len(entries))
	for i, e := range entries {
		titles[i] = e.title
	}
	return titles, nil
}

// list returns every note in the folder, sorted by title.
func list(r *os.Root) ([]entry, error) {
	d, err := r.Open(".")
	if err != nil {
		return nil, fmt.Errorf("cannot list the notes folder: %w", err)
	}
	defer d.Close()
	dirents, err := d.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("cannot list the notes folder: %w", err)
	}
	var entries []entry
	for _, e := range dirents {
		if e.IsDir() {
			continue
		}
		if t, ok := titleOf(e.Name()); ok {
			entries = append(entries, entry{title: nfc(t), file: e.Name()})
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return compareTitles(a.title, b.title) })
	return entries, nil
}

// sortTitles sorts titles as a person expects, ignoring case first.
func sortTitles(titles []string) { slices.SortFunc(titles, compareTitles) }

func compareTitles(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// find looks up the note titled title, comparing titles after NFC
// normalisation, so a name saved decomposed (as macOS and sync tools do)
// matches one typed composed. When there is none, near is the title of a
// note whose name differs only in case ("" if none).
func find(r *os.Root, title string) (e entry, found bool, near string, err error) {
	entries, err := list(r)
	if err != nil {
		return entry{}, false, "", err
	}
	want := nfc(title)
	for _, c := range entries {
		if c.file == fileName(title) {
			return c, true, "", nil // the exact spelling wins
		}
	}
	for _, c := range entries {
		if c.title == want {
			return c, true, "", nil
		}
		if near == "" && strings.EqualFold(c.title, want) {
			near = c.title
		}
	}
	return entry{}, false, near, nil
}

// mustFind returns the note titled title, or a *noNoteError.
func mustFind(r *os.Root, title string) (entry, error) {
	e, found, near, err := find(r, title)
	switch {
	case err != nil:
		return entry{}, err
	case !found:
		return entry{}, &noNoteError{title: title, near: near}
	}
	return e, nil
}

// mayCreate returns an error unless a note titled title can be created
// beside the existing ones without clashing on any file system. except is
// the file of the note being renamed, which the check ignores, or "".
func mayCreate(r *os.Root, title, except string) error {
	entries, err := list(r)
	if err != nil {
		return err
	}
	want := nfc(title)
	exceptTitle := ""
	for _, e := range entries {
		if e.file == except {
			exceptTitle = e.title
			continue
		}
		if e.title == want {
			return fmt.Errorf("a note titled %q already exists: choose another title, or delete that note first", e.title)
		}
		if strings.EqualFold(e.title, want) {
			return fmt.Errorf("a note titled %q already exists, and %q differs from it only in case, which many file systems treat as the same name: use %q or choose another title", e.title, title, e.title)
		}
	}
	if except != "" && strings.EqualFold(want, exceptTitle) {
		return nil
	}
	// A file system that ignores case or Unicode normalisation may hold a
	// file under a spelling that no listed title matches.
	if _, err := r.Lstat(fileName(want)); err == nil {
		return fmt.Errorf("the notes folder already has a file this file system treats as %q (the same title spelt differently): search_notes lists the titles", title)
	}
	return nil
}

// read returns the body of the note titled title.
func (s *store) read(title string) (string, error) {
	if err := checkTitle(title); err != nil {
		return "", err
	}
	r, err := s.folder()
	if err != nil {
		return "", err
	}
	e, err := mustFind(r, title)
	if err != nil {
		return "", err
	}
	return s.readFile(r, e)
}

// readFile reads a note's file, refusing one over the size limit and
// anything that is not a regular file: opening a named pipe would wait
// for a writer forever.
func (s *store) readFile(r *os.Root, e entry) (string, error) {
	if err := regular(r, e); err != nil {
		return "", err
	}
	f, err := r.Open(e.file)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &noNoteError{title: e.title}
	}
	if err != nil {
		return "", fmt.Errorf("cannot read note %q: %w", e.title, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return "", notRegular(e.title, fi.Mode())
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(s.maxBody)+1))
	if err != nil {
		return "", fmt.Errorf("cannot read note %q: %w", e.title, err)
	}
	if len(b) > s.maxBody {
		return "", fmt.Errorf("note %q is larger than the limit of %s: open it in an editor instead", e.title, sizeLimit(s.maxBody))
	}
	return string(b), nil
}

// regular returns an error unless the note's file, after any symlink
// inside the folder, is a regular file. It looks without opening.
func regular(r *os.Root, e entry) error {
	fi, err := r.Stat(e.file)
	if errors.Is(err, fs.ErrNotExist) {
		return &noNoteError{title: e.title}
	}
	if err != nil {
		return fmt.Errorf("cannot read note %q: %w", e.title, err)
	}
	if !fi.Mode().IsRegular() {
		return notRegular(e.title, fi.Mode())
	}
	return nil
}

func notRegular(title string, mode fs.FileMode) error {
	what := "not a regular file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe, not a regular file"
	case mode&fs.ModeSocket != 0:
		what = "a socket, not a regular file"
	case mode&fs.ModeDevice != 0:
		what = "a device, not a regular file"
	case mode.IsDir():
		what = "a folder, not a regular file"
	}
	return fmt.Errorf("note %q is %s: notes-mcp only reads and writes regular files; rename or remove %q in the notes folder", title, what, fileName(title))
}

// search returns the sorted titles of the notes whose title or body
// contains text, ignoring case and Unicode normalisation; an empty text
// matches every note. Notes that cannot be read are matched by title only.
func (s *store) search(ctx context.Context, text string) ([]string, error) {
	r, entries, err := s.entries()
	if err != nil {
		return nil, err
	}
	want := strings.ToLower(nfc(text))
	var found []string
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if want == "" || strings.Contains(strings.ToLower(e.title), want) {
			found = append(found, e.title)
			continue
		}
		body, err := s.readFile(r, e)
		if err == nil && strings.Contains(strings.ToLower(nfc(body)), want) {
			found = append(found, e.title)
		}
	}
	return found, nil
}

// put creates the note titled title, or replaces the one with that title,
// and reports whether it created it. A new note's file name is in NFC.
func (s *store) put(title, body string) (created bool, err error) {
	if err := checkTitle(title); err != nil {
		return false, err
	}
	if err := s.checkBody(len(body), "body"); err != nil {
		return false, err
	}
	err = s.change(func(r *os.Root) error {
		e, found, _, err := find(r, title)
		if err != nil {
			return err
		}
		if found {
			// Whatever the file was (a link, a named pipe), the new
			// note is renamed over it without opening it.
			return s.write(r, e.file, e.title, body)
		}
		if err := mayCreate(r, title, ""); err != nil {
			return err
		}
		created = true
		return s.write(r, fileName(nfc(title)), nfc(title), body)
	})
	return created, err
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
	return s.rewrite(title, func(e entry, body string) (string, error) {
		if body != "" && !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		body += text
		if len(body) > s.maxBody {
			return "", fmt.Errorf("note %q would be %d bytes after appending; the limit is %s: start a new note", e.title, len(body), sizeLimit(s.maxBody))
		}
		return body, nil
	})
}

// rewrite replaces the body of the note titled title by what fn makes of
// it, under the folder's lock, and returns the new body's size in bytes.
func (s *store) rewrite(title string, fn func(e entry, body string) (string, error)) (int, error) {
	var n int
	err := s.change(func(r *os.Root) error {
		e, err := mustFind(r, title)
		if err != nil {
			return err
		}
		body, err := s.readFile(r, e)
		if err != nil {
			return err
		}
		if body, err = fn(e, body); err != nil {
			return err
		}
		n = len(body)
		return s.write(r, e.file, e.title, body)
	})
	return n, err
}

// edit replaces the one occurrence of old in the note titled title by repl.
func (s *store) edit(title, old, repl string) error {
	if err := checkTitle(title); err != nil {
		return err
	}
	if old == "" {
		return errors.New("old_text is empty: give the exact text to replace, as read_note shows it")
	}
	_, err := s.rewrite(title, func(e entry, body string) (string, error) {
		switch n := strings.Count(body, old); n {
		case 0:
			return "", fmt.Errorf("note %q does not contain old_text: read the note and copy the text exactly", e.title)
		case 1:
		default:
			return "", fmt.Errorf("old_text occurs %d times in note %q: include more of the surrounding text so it occurs once", n, e.title)
		}
		body = strings.Replace(body, old, repl, 1)
		if len(body) > s.maxBody {
			return "", fmt.Errorf("note %q would be %d bytes after the edit; the limit is %s", e.title, len(body), sizeLimit(s.maxBody))
		}
		return body, nil
	})
	return err
}

// remove deletes the note titled title.
func (s *store) remove(title string) error {
	if err := checkTitle(title); err != nil {
		return err
	}
	return s.change(func(r *os.Root) error {
		e, err := mustFind(r, title)
		if err != nil {
			return err
		}
		if err := r.Remove(e.file); err != nil {
			return fmt.Errorf("cannot delete note %q: %w", e.title, err)
		}
		return syncDir(r)
	})
}

// rename gives the note titled from the title to, stored in NFC.
func (s *store) rename(from, to string) error {
	if err := checkTitle(from); err != nil {
		return err
	}
	if err := checkTitle(to); err != nil {
		return fmt.Errorf("new_title: %w", err)
	}
	return s.change(func(r *os.Root) error {
		e, err := mustFind(r, from)
		if err != nil {
			return err
		}
		if e.title == nfc(to) {
			return fmt.Errorf("the note is already titled %q", to)
		}
		dest := fileName(nfc(to))
		if err := mayCreate(r, to, e.file); err != nil {
			return err
		}
		if err := r.Rename(e.file, dest); err != nil {
			return fmt.Errorf("cannot rename note %q: %w", e.title, err)
		}
		return syncDir(r)
	})
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
