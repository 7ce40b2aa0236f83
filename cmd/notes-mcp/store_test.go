package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// newStore returns a store over a new, empty folder.
func newStore(t *testing.T) *store {
	t.Helper()
	s, err := openStore(filepath.Join(t.TempDir(), "notes"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// writeByHand puts a file in the folder the way a person would.
func writeByHand(t testing.TB, s *store, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustPut(t *testing.T, s *store, title, body string) {
	t.Helper()
	if _, err := s.put(title, body); err != nil {
		t.Fatalf("put(%q): %v", title, err)
	}
}

func wantBody(t *testing.T, s *store, title, want string) {
	t.Helper()
	got, err := s.read(title)
	if err != nil {
		t.Fatalf("read(%q): %v", title, err)
	}
	if got != want {
		t.Errorf("read(%q) = %q, want %q", title, got, want)
	}
}

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
}

// wantFiles checks the folder holds exactly these file names, besides
// the lock file.
func wantFiles(t *testing.T, s *store, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.Name() != lockName {
			got = append(got, e.Name())
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("folder holds %q, want %q", got, want)
	}
}

func TestOpenStoreCreatesTheFolderPrivately(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	s, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("folder mode = %v, want it private to the user", fi.Mode().Perm())
	}
}

func TestPutCreatesThenReplaces(t *testing.T) {
	s := newStore(t)
	created, err := s.put("Ideas", "first")
	if err != nil || !created {
		t.Fatalf("put new note = %v, %v; want created", created, err)
	}
	created, err = s.put("Ideas", "second")
	if err != nil || created {
		t.Fatalf("put existing note = %v, %v; want replaced", created, err)
	}
	wantBody(t, s, "Ideas", "second")
	wantFiles(t, s, "Ideas.md")
	fi, err := os.Stat(filepath.Join(s.dir, "Ideas.md"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("new note's mode = %v, want 0600", fi.Mode().Perm())
	}
}

func TestPutKeepsTheModeOfANoteMadeByHand(t *testing.T) {
	s := newStore(t)
	writeByHand(t, s, "Shared.md", "old")
	if err := os.Chmod(filepath.Join(s.dir, "Shared.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "Shared", "new")
	fi, err := os.Stat(filepath.Join(s.dir, "Shared.md"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode after replace = %v, want 0644 kept", fi.Mode().Perm())
	}
}

func TestNotesAddedByHandShowUp(t *testing.T) {
	s := newStore(t)
	writeByHand(t, s, "By hand.md", "# Written in an editor\n")
	writeByHand(t, s, ".hidden.md", "x")
	writeByHand(t, s, "not.a.note.md", "x")
	writeByHand(t, s, "readme.txt", "x")
	writeByHand(t, s, ".notes-mcp-LEFTOVER.tmp", "half")
	if err := os.Mkdir(filepath.Join(s.dir, "Folder.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	titles, err := s.titles()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(titles, []string{"By hand"}) {
		t.Errorf("titles = %q, want only the hand-made note", titles)
	}
	wantBody(t, s, "By hand", "# Written in an editor\n")
}

func TestTitlesAreSortedIgnoringCase(t *testing.T) {
	s := newStore(t)
	for _, title := range []string{"banana", "Apple", "cherry", "apple pie"} {
		mustPut(t, s, title, "")
	}
	titles, err := s.titles()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Apple", "apple pie", "banana", "cherry"}
	if !slices.Equal(titles, want) {
		t.Errorf("titles = %q, want %q", titles, want)
	}
}

func TestSearch(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, "Groceries", "milk, EGGS, bread")
	mustPut(t, s, "Egg recipes", "omelette")
	mustPut(t, s, "Travel", "pack passport")
	cases := []struct {
		name, text string
		want       []string
	}{
		{"an empty text lists every note", "", []string{"Egg recipes", "Groceries", "Travel"}},
		{"text in a body is found ignoring case", "eggs", []string{"Groceries"}},
		{"text in a title or a body is found", "EGG", []string{"Egg recipes", "Groceries"}},
		{"text found nowhere finds nothing", "zebra", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.search(context.Background(), c.text)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("search(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func TestReadRefusesWhatIsNotAnExactNote(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, "Ideas", "x")
	t.Run("a missing note says so", func(t *testing.T) {
		_, err := s.read("Nothing here")
		wantErr(t, err, `there is no note titled "Nothing here"`)
		var nn *noNoteError
		if !errors.As(err, &nn) {
			t.Errorf("error %v is not a *noNoteError", err)
		}
	})
	t.Run("a title that differs in case suggests the right one", func(t *testing.T) {
		_, err := s.read("ideas")
		wantErr(t, err, `did you mean "Ideas"?`)
	})
	t.Run("a title that leaves the folder is refused before the disk", func(t *testing.T) {
		_, err := s.read("../../etc/passwd")
		wantErr(t, err, "a title is a name, not a path")
	})
	t.Run("a note over the size limit is refused", func(t *testing.T) {
		writeByHand(t, s, "Huge.md", strings.Repeat("x", s.maxBody+1))
		_, err := s.read("Huge")
		wantErr(t, err, "larger than the limit of 1 MiB (1048576 bytes)")
	})
}

func TestReadDoesNotFollowASymlinkOutOfTheFolder(t *testing.T) {
	s := newStore(t)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("password"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(s.dir, "Link.md")); err != nil {
		t.Skip("cannot make symlinks here:", err)
	}
	body, err := s.read("Link")
	if err == nil {
		t.Fatalf("read through a symlink out of the folder returned %q", body)
	}
	found, err := s.search(context.Background(), "password")
	if err != nil || len(found) != 0 {
		t.Errorf("search found %q, %v through a symlink out of the folder", found, err)
	}
}

func TestWritingOverASymlinkReplacesTheLinkNotItsTarget(t *testing.T) {
	s := newStore(t)
	target := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(s.dir, "Link.md")); err != nil {
		t.Skip("cannot make symlinks here:", err)
	}
	mustPut(t, s, "Link", "new")
	wantBody(t, s, "Link", "new")
	if got, err := os.ReadFile(target); err != nil || string(got) != "keep me" {
		t.Errorf("the file outside the folder is now %q, %v", got, err)
	}
	if fi, err := os.Lstat(filepath.Join(s.dir, "Link.md")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("Link.md is not a regular file after the write: %v, %v", fi, err)
	}
}

func TestPutRefusesBadInputAndWritesNothing(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, "Ideas", "x")
	cases := []struct{ name, title, body, want string }{
		{"a title that leaves the folder", "../../etc/passwd", "x", "not a path"},
		{"a body over the limit", "Big", strings.Repeat("x", maxBody+1), "body is 1048577 bytes; the limit is 1 MiB (1048576 bytes)"},
		{"a title that differs from a note only in case", "IDEAS", "y", `a note titled "Ideas" already exists`},
	}
	for _, c := range cases {
		t.Run(c.name+" is refused", func(t *testing.T) {
			_, err := s.put(c.title, c.body)
			wantErr(t, err, c.want)
			wantFiles(t, s, "Ideas.md")
			wantBody(t, s, "Ideas", "x")
		})
	}
}

func TestPutAcceptsABodyOfExactlyTheLimit(t *testing.T) {
	s := newStore(t)
	body := strings.Repeat("x", maxBody)
	mustPut(t, s, "Big", body)
	wantBody(t, s, "Big", body)
}

func TestAppend(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, "Log", "one")
	n, err := s.appendText("Log", "two\n")
	if err != nil {
		t.Fatal(err)
	}
	if n != len("one\ntwo\n") {
		t.Errorf("appendText returned size %d, want %d", n, len("one\ntwo\n"))
	}
	if _, err := s.appendText("Log", "three"); err != nil {
		t.Fatal(err)
	}
	wantBody(t, s, "Log", "one\ntwo\nthree")

	t.Run("appending to a missing note says so", func(t *testing.T) {
		_, err := s.appendText("Nope", "x")
		wantErr(t, err, `there is no note titled "Nope"`)
		wantFiles(t, s, "Log.md")
	})
	t.Run("appending past the size limit is refused", func(t *testing.T) {
		s.maxBody = 16
		defer func() { s.maxBody = maxBody }()
		_, err := s.appendText("Log", "0123456789")
		wantErr(t, err, "would be 24 bytes after appending; the limit is 16 bytes")
		wantBody(t, s, "Log", "one\ntwo\nthree")
	})
}

func TestEdit(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, "Plan", "buy milk\nbuy eggs\n")
	if err := s.edit("Plan", "milk", "oat milk"); err != nil {
		t.Fatal(err)
	}
	wantBody(t, s, "Plan", "buy oat milk\nbuy eggs\n")
	cases := []struct{ name, title, old, want string }{
		{"text that is not there", "Plan", "bread", "does not contain old_text"},
		{"text that occurs twice", "Plan", "buy", "occurs 2 times"},
		{"empty text", "Plan", "", "old_text is empty"},
		{"a missing note", "Nope", "x", `there is no note titled "Nope"`},
	}
	for _, c := range cases {
		t.Run("editing "+c.name+" is refused", func(t *testing.T) {
			wantErr(t, s.edit(c.title, c.old, "y"), c.want)
			wantBody(t, s, "Plan", "buy oat milk\nbuy eggs\n")
		})
	}
}

func TestRename(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, "Draft", "text")
	mustPut(t, s, "Other", "other")
	if err := s.rename("Draft", "Final"); err != nil {
		t.Fatal(err)
	}
	wantBody(t, s, "Final", "text")
	wantFiles(t, s, "Final.md", "Other.md")

	t.Run("a change of case only is allowed", func(t *testing.T) {
		if err := s.rename("Final", "FINAL"); err != nil {
			t.Fatal(err)
		}
		wantFiles(t, s, "FINAL.md", "Other.md")
	})
	cases := []struct{ name, from, to, want string }{
		{"onto an existing note", "FINAL", "Other", `a note titled "Other" already exists`},
		{"onto a title that differs from another note only in case", "FINAL", "other", "differs from it only in case"},
		{"out of the folder", "FINAL", "../x", "new_title: title \"../x\" contains a slash"},
		{"of a missing note", "Nope", "Yes", `there is no note titled "Nope"`},
		{"to the same title", "FINAL", "FINAL", "already titled"},
	}
	for _, c := range cases {
		t.Run("renaming "+c.name+" is refused", func(t *testing.T) {
			wantErr(t, s.rename(c.from, c.to), c.want)
			wantFiles(t, s, "FINAL.md", "Other.md")
		})
	}
}

func TestRemove(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, "Old", "x")
	mustPut(t, s, "Keep", "y")
	if err := s.remove("Old"); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, s, "Keep.md")
	wantErr(t, s.remove("Old"), `there is no note titled "Old"`)
	wantErr(t, s.remove("keep"), `did you mean "Keep"?`)
	wantFiles(t, s, "Keep.md")
}

func TestAFailedWriteLeavesTheOldNoteAndNoTemporaryFile(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, "Ideas", "old")
	s.beforeRename = func() error { return errors.New("disk on fire") }
	_, err := s.put("Ideas", "new")
	wantErr(t, err, "disk on fire")
	_, err = s.appendText("Ideas", "more")
	wantErr(t, err, "disk on fire")
	_, err = s.put("Fresh", "new")
	wantErr(t, err, "disk on fire")
	wantFiles(t, s, "Ideas.md")
	wantBody(t, s, "Ideas", "old")
}

func BenchmarkSearch(b *testing.B) {
	s, err := openStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	body := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n", 40) // about 2 KiB
	for i := range 1000 {
		writeByHand(b, s, fmt.Sprintf("Note %d.md", i), body)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.search(context.Background(), "needle"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPut(b *testing.B) {
	s, err := openStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	body := strings.Repeat("x", 4096)
	for b.Loop() {
		if _, err := s.put("Bench", body); err != nil {
			b.Fatal(err)
		}
	}
}
