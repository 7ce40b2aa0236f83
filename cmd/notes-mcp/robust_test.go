package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/mcp"
)

func TestTwoProcessesOverOneFolderLoseNoAppend(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := newStore(t)
	s.dir = dir // only to seed and read back
	writeByHand(t, s, "Log.md", "start")

	const processes, appendsEach = 2, 150
	var wg sync.WaitGroup
	errs := make(chan error, processes*appendsEach+processes)
	for p := range processes {
		sess, err := mcp.ConnectCommand(ctx, "notes", mcp.Command{
			Path: exe, Args: []string{"--dir", dir}, Env: []string{beEnv + "=main"}, Stderr: io.Discard,
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		tools := connectTools(t, sess)
		wg.Go(func() {
			for i := range appendsEach {
				args, _ := json.Marshal(map[string]string{"title": "Log", "text": fmt.Sprintf("process %d entry %d", p, i)})
				if _, err := tools["append_to_note"].Call(ctx, args); err != nil {
					errs <- fmt.Errorf("process %d append %d: %w", p, i, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	body, err := os.ReadFile(filepath.Join(dir, "Log.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(body), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	lost := 0
	for p := range processes {
		for i := range appendsEach {
			if !seen[fmt.Sprintf("process %d entry %d", p, i)] {
				lost++
			}
		}
	}
	if lost > 0 || len(lines) != 1+processes*appendsEach {
		t.Errorf("%d of %d confirmed appends were lost; the note has %d lines", lost, processes*appendsEach, len(lines))
	}
}

func TestTitlesCompareInNFC(t *testing.T) {
	const composed, decomposed = "Caf\u00e9", "Cafe\u0301"
	s := newStore(t)
	writeByHand(t, s, decomposed+".md", "croissant")

	t.Run("a note saved decomposed is listed composed", func(t *testing.T) {
		titles, err := s.titles()
		if err != nil || !slices.Equal(titles, []string{composed}) {
			t.Errorf("titles = %+q, %v; want [%+q]", titles, err, composed)
		}
	})
	t.Run("a note saved decomposed is read by its composed title", func(t *testing.T) {
		wantBody(t, s, composed, "croissant")
	})
	t.Run("search finds it whichever form the text is in", func(t *testing.T) {
		for _, text := range []string{"caf\u00e9", "cafe\u0301"} {
			found, err := s.search(context.Background(), text)
			if err != nil || !slices.Equal(found, []string{composed}) {
				t.Errorf("search(%+q) = %+q, %v", text, found, err)
			}
		}
	})
	t.Run("adding the composed title replaces the note rather than making a twin", func(t *testing.T) {
		created, err := s.put(composed, "pain au chocolat")
		if err != nil || created {
			t.Fatalf("put = %v, %v; want the note replaced", created, err)
		}
		wantFiles(t, s, decomposed+".md")
		wantBody(t, s, decomposed, "pain au chocolat")
	})
	t.Run("appending, editing and renaming find it too", func(t *testing.T) {
		if _, err := s.appendText(composed, "more"); err != nil {
			t.Fatal(err)
		}
		if err := s.edit(composed, "more", "less"); err != nil {
			t.Fatal(err)
		}
		wantBody(t, s, composed, "pain au chocolat\nless")
		wantErr(t, s.rename(decomposed, composed), "already titled")
	})
	t.Run("a title differing only in case and form is a clash", func(t *testing.T) {
		_, err := s.put("CAFE\u0301", "x")
		wantErr(t, err, "differs from it only in case")
	})
	t.Run("a new note is stored in NFC", func(t *testing.T) {
		mustPut(t, s, "Cre\u0300me", "brûlée")
		wantFiles(t, s, decomposed+".md", "Cr\u00e8me.md")
		if err := s.rename(composed, "Th\u00e9"); err != nil {
			t.Fatal(err)
		}
		wantFiles(t, s, "Th\u00e9.md", "Cr\u00e8me.md")
		wantErr(t, s.rename("Cr\u00e8me", "The\u0301"), `a note titled "Thé" already exists`)
	})
}

func TestTheFolderDeletedAndMadeAgain(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, "Before", "x")
	if err := os.RemoveAll(s.dir); err != nil {
		t.Fatal(err)
	}
	t.Run("while it is gone every call says so", func(t *testing.T) {
		_, err := s.read("Before")
		wantErr(t, err, "the notes folder "+s.dir+" does not exist")
		_, err = s.put("New", "x")
		wantErr(t, err, "does not exist")
		_, err = s.search(context.Background(), "")
		wantErr(t, err, "does not exist")
	})
	if err := os.Mkdir(s.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Run("once it is back the notes work again", func(t *testing.T) {
		writeByHand(t, s, "By hand.md", "restored")
		wantBody(t, s, "By hand", "restored")
		mustPut(t, s, "New", "y")
		if _, err := s.appendText("New", "z"); err != nil {
			t.Fatal(err)
		}
		wantBody(t, s, "New", "y\nz")
		wantFiles(t, s, "By hand.md", "New.md")
	})
}
