package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/tool"
)

type searchArgs struct {
	Text string `json:"text,omitempty" jsonschema:"the text to look for in titles and bodies, ignoring case; empty lists every note"`
}

type titleArgs struct {
	Title string `json:"title" jsonschema:"the note's exact title"`
}

type addArgs struct {
	Title string `json:"title" jsonschema:"the note's title: 1 to 80 letters, digits, spaces, dashes and underscores"`
	Body  string `json:"body" jsonschema:"the whole note, in Markdown (at most 1 MiB)"`
}

type appendArgs struct {
	Title string `json:"title" jsonschema:"the exact title of an existing note"`
	Text  string `json:"text" jsonschema:"the Markdown to add at the end of the note, on a new line"`
}

type editArgs struct {
	Title   string `json:"title" jsonschema:"the exact title of an existing note"`
	OldText string `json:"old_text" jsonschema:"text that occurs exactly once in the note, copied exactly"`
	NewText string `json:"new_text" jsonschema:"the text to put in its place (empty removes it)"`
}

type renameArgs struct {
	Title    string `json:"title" jsonschema:"the exact title of an existing note"`
	NewTitle string `json:"new_title" jsonschema:"the title to give it: 1 to 80 letters, digits, spaces, dashes and underscores"`
}

// tools returns the tools that work on the notes in s.
func tools(s *store) []tool.Tool {
	return []tool.Tool{
		tool.New("search_notes",
			"Find notes: the titles of the notes whose title or body contains the text (ignoring case), one per line, sorted. An empty text lists every note.",
			tool.Read, func(ctx context.Context, in searchArgs) (string, error) {
				titles, err := s.search(ctx, in.Text)
				if err != nil {
					return "", err
				}
				switch {
				case len(titles) > 0:
					return strings.Join(titles, "\n"), nil
				case in.Text == "":
					return "There are no notes yet.", nil
				}
				return fmt.Sprintf("No note contains %q.", in.Text), nil
			}),
		tool.New("read_note",
			"Read a note: the Markdown body of the note with exactly this title.",
			tool.Read, func(ctx context.Context, in titleArgs) (string, error) {
				body, err := s.read(in.Title)
				if err != nil {
					return "", hint(err)
				}
				if body == "" {
					return fmt.Sprintf("Note %q is empty.", in.Title), nil
				}
				return body, nil
			}),
		tool.New("add_note",
			"Create a note, or replace the whole body of the note with exactly this title. Search first: to add to an existing note use append_to_note instead.",
			tool.Write, func(ctx context.Context, in addArgs) (string, error) {
				created, err := s.put(in.Title, in.Body)
				if err != nil {
					return "", err
				}
				if created {
					return fmt.Sprintf("Created note %q (%s).", in.Title, byteCount(len(in.Body))), nil
				}
				return fmt.Sprintf("Replaced note %q (now %s).", in.Title, byteCount(len(in.Body))), nil
			}),
		tool.New("append_to_note",
			"Add text to the end of an existing note, on a new line, keeping what is there.",
			tool.Write, func(ctx context.Context, in appendArgs) (string, error) {
				n, err := s.appendText(in.Title, in.Text)
				if err != nil {
					return "", hint(err)
				}
				return fmt.Sprintf("Appended %s to note %q (now %s).", byteCount(len(in.Text)), in.Title, byteCount(n)), nil
			}),
		tool.New("edit_note",
			"Change part of a note: replace old_text, which must occur exactly once in the note, by new_text.",
			tool.Write, func(ctx context.Context, in editArgs) (string, error) {
				if err := s.edit(in.Title, in.OldText, in.NewText); err != nil {
					return "", hint(err)
				}
				return fmt.Sprintf("Edited note %q.", in.Title), nil
			}),
		tool.New("rename_note",
			"Give a note a new title, keeping its body. Fails if a note with the new title exists.",
			tool.Write, func(ctx context.Context, in renameArgs) (string, error) {
				if err := s.rename(in.Title, in.NewTitle); err != nil {
					return "", hint(err)
				}
				return fmt.Sprintf("Renamed note %q to %q.", in.Title, in.NewTitle), nil
			}),
		tool.New("delete_note",
			"Delete the note with exactly this title, for good.",
			tool.Write, func(ctx context.Context, in titleArgs) (string, error) {
				if err := s.remove(in.Title); err != nil {
					return "", hint(err)
				}
				return fmt.Sprintf("Deleted note %q.", in.Title), nil
			}),
	}
}

// hint adds to an error about a missing note how to find the right title.
func hint(err error) error {
	var nn *noNoteError
	if errors.As(err, &nn) {
		return fmt.Errorf("%w; search_notes lists the titles", err)
	}
	return err
}

// byteCount spells a size for a person: "1 byte", "5 bytes".
func byteCount(n int) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
