package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/internal/clip"
)

const (
	maxDiffLines = 8   // lines shown for each side of an edit_file diff
	maxArgsShown = 200 // bytes of other tools' arguments shown
)

// approver asks the person on the terminal about each call the autonomy
// does not let run on its own:
//
//	  write_file hello.go (230 bytes, 12 lines)
//	? run write_file (write)? [y]es / [a]lways / [N]o
//
// Anything but y, yes, a or always is no, and so is the end of input.
func (u *ui) approver(lines *lineReader) agent.Approver {
	return func(ctx context.Context, c agent.Call) agent.Decision {
		return u.ask(ctx, lines, u.view(c), fmt.Sprintf("run %s (%s)?", u.paint(bold, c.Name), c.Risk))
	}
}

// ask shows view, indented, then the question and the choices, and reads
// the answer from lines.
func (u *ui) ask(ctx context.Context, lines *lineReader, view []string, question string) agent.Decision {
	u.mu.Lock()
	u.stopSpinLocked()
	u.breakLineLocked()
	for _, l := range view {
		fmt.Fprintf(u.err, "  %s\n", l)
	}
	fmt.Fprintf(u.err, "%s %s [y]es / [a]lways / [N]o ", u.paint(bold+";"+yellow, "?"), question)
	u.mu.Unlock()

	answer, err := lines.next(ctx)
	if err != nil {
		u.line("")
		return agent.No
	}
	u.mu.Lock()
	u.startSpinLocked()
	u.mu.Unlock()
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return agent.Yes
	case "a", "always":
		return agent.Always
	}
	return agent.No
}

// summary is the short view of a call's arguments on its "[tool] NAME" line.
func summary(c agent.Call) string {
	var a struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
	}
	if json.Unmarshal(c.Args, &a) != nil || a.Path == "" {
		return ""
	}
	if a.Content != nil {
		return fmt.Sprintf(" %s (%s)", a.Path, size(len(*a.Content)))
	}
	return " " + a.Path
}

// view shows a call's arguments in short before the approval prompt: the
// path and size for write_file, a small diff for edit_file, the JSON for
// any other tool.
func (u *ui) view(c agent.Call) []string {
	switch c.Name {
	case "write_file":
		var a writeFileArgs
		if json.Unmarshal(c.Args, &a) == nil {
			return []string{fmt.Sprintf("write_file %s (%s, %s)", a.Path, size(len(a.Content)), plural(lineCount(a.Content), "line"))}
		}
	case "edit_file":
		var a editFileArgs
		if json.Unmarshal(c.Args, &a) == nil {
			out := []string{"edit_file " + a.Path}
			out = append(out, u.diffSide("-", red, a.Old)...)
			return append(out, u.diffSide("+", green, a.New)...)
		}
	}
	args := strings.TrimSpace(string(c.Args))
	if args == "" || args == "{}" {
		return []string{c.Name + " (no arguments)"}
	}
	return []string{c.Name + " " + clip.String(compact(args), maxArgsShown)}
}

func (u *ui) diffSide(mark, color, text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var out []string
	for i, l := range lines {
		if i == maxDiffLines {
			out = append(out, u.paint(dim, fmt.Sprintf("%s … %s", mark, plural(len(lines)-maxDiffLines, "more line"))))
			break
		}
		out = append(out, u.paint(color, mark+" "+clip.String(l, 160)))
	}
	return out
}

func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return s
	}
	return b.String()
}

func size(n int) string {
	switch {
	case n < 1<<10:
		return plural(n, "byte")
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
