package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/internal/inert"
	"golang.org/x/term"
)

// approver asks the person on the terminal about each call the autonomy
// does not let run on its own, showing the whole call:
//
//	  write_file hello.go: creates it (230 bytes, 12 lines)
//	  │ package main
//	  │ …
//	? run write_file (write)? [y]es / [a]lways / [N]o
//
// What does not fit the screen is shortened with a note of how much was
// left out, and the prompt then offers [v]iew to see all of it. Anything
// but y, yes, a or always is no, and so is the end of input.
func (u *ui) approver(lines *lineReader, w *workdir) agent.Approver {
	return func(ctx context.Context, c agent.Call) agent.Decision {
		return u.ask(ctx, lines, callView(w, c), fmt.Sprintf("run %s (%s)?", u.paint(bold, inert.Line(c.Name)), c.Risk))
	}
}

// ask shows v, indented, then the question and the choices, and reads the
// answer from lines. question is made inert by the caller.
func (u *ui) ask(ctx context.Context, lines *lineReader, v *view, question string) agent.Decision {
	rows, cols := u.size()
	short, cut := v.render(u, max(6, rows-6), cols)
	u.mu.Lock()
	u.stopSpinLocked()
	u.breakLineLocked()
	for _, l := range short {
		fmt.Fprintf(u.err, "  %s\n", l)
	}
	u.mu.Unlock()
	for {
		choices := "[y]es / [a]lways / [N]o "
		if cut {
			choices = "[y]es / [a]lways / [v]iew / [N]o "
		}
		u.mu.Lock()
		fmt.Fprintf(u.err, "%s %s %s", u.paint(bold+";"+yellow, "?"), question, choices)
		u.mu.Unlock()

		answer, err := lines.next(ctx)
		if err != nil {
			u.line("")
			return agent.No
		}
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes":
			u.resume()
			return agent.Yes
		case "a", "always":
			u.resume()
			return agent.Always
		case "v", "view":
			if cut {
				u.page(ctx, v)
				continue
			}
		}
		u.resume()
		return agent.No
	}
}

// resume starts the spinner again after a prompt was answered.
func (u *ui) resume() {
	u.mu.Lock()
	u.startSpinLocked()
	u.mu.Unlock()
}

// page shows all of v: in $PAGER when it is set and stderr is a terminal,
// else on stderr.
func (u *ui) page(ctx context.Context, v *view) {
	full, _ := v.render(nil, 0, 0)
	text := strings.Join(full, "\n") + "\n"
	if pager := u.getenv("PAGER"); pager != "" && u.errTTY && runtime.GOOS != "windows" {
		if f, ok := u.err.(*os.File); ok {
			cmd := exec.CommandContext(ctx, "sh", "-c", pager)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(text), f, f
			if cmd.Run() == nil {
				return
			}
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, l := range full {
		fmt.Fprintf(u.err, "  %s\n", l)
	}
}

// size is the terminal's size on stderr, or 24 by 80.
func (u *ui) size() (rows, cols int) {
	if f, ok := u.err.(*os.File); ok && u.errTTY {
		if c, r, err := term.GetSize(int(f.Fd())); err == nil && r > 0 && c > 0 {
			return r, c
		}
	}
	return 24, 80
}

// view is what the person sees of a call before answering: sections, each
// a heading line and a body of lines from outside, all made inert.
type view struct {
	sections []section
	// alt, when set, is shown instead when the sections do not fit: a
	// diff in place of a whole file. [v]iew still shows the sections.
	alt *view
}

type section struct {
	head string
	body []vline
	code bool // the code or command of the call: shortened last
}

// vline is a line of a section's body: a mark ("│ ", "- ", "+ "), the text
// and its colour.
type vline struct {
	mark, text, color string
}

// textLines splits text into lines made inert (tabs are kept).
func textLines(mark, color, text string) []vline {
	var out []vline
	for _, l := range splitLines(text) {
		out = append(out, vline{mark, inert.String(l), color})
	}
	return out
}

// render returns the lines of v. With limit > 0 they fit in about limit
// rows of cols columns: the longest bodies are shortened, each with a note
// of how many lines were left out, and cut reports that something was.
// With limit 0 everything is shown. u paints the lines; nil leaves them
// plain.
func (v *view) render(u *ui, limit, cols int) (lines []string, cut bool) {
	if limit > 0 && v.alt != nil {
		if whole, cut := v.render1(u, limit, cols, false); !cut {
			return whole, false
		}
		lines, _ := v.alt.render(u, limit, cols)
		return lines, true
	}
	return v.render1(u, limit, cols, true)
}

func (v *view) render1(u *ui, limit, cols int, shorten bool) (lines []string, cut bool) {
	paint := func(color, s string) string {
		if u == nil || color == "" {
			return s
		}
		return u.paint(color, s)
	}
	rows := func(l vline) int {
		n := utf8.RuneCountInString(l.mark) + utf8.RuneCountInString(l.text) + 7*strings.Count(l.text, "\t") + 2
		if cols <= 0 {
			return 1
		}
		return max(1, (n+cols-1)/cols)
	}
	// shown[i] is how many lines of section i's body are shown.
	shown := make([]int, len(v.sections))
	for i, s := range v.sections {
		shown[i] = len(s.body)
	}
	if limit > 0 {
		total := 0
		for _, s := range v.sections {
			if s.head != "" {
				total++
			}
			for _, l := range s.body {
				total += rows(l)
			}
		}
		if total > limit && !shorten {
			return nil, true
		}
		if total > limit {
			// Share what the headings leave among the bodies, smallest
			// first, so that a short body is never cut for a long one.
			left := limit
			var order []int
			for i, s := range v.sections {
				if s.head != "" {
					left--
				}
				if len(s.body) > 0 {
					order = append(order, i)
				}
			}
			bodyRows := func(i, n int) int {
				r := 0
				for _, l := range v.sections[i].body[:n] {
					r += rows(l)
				}
				return r
			}
			// The code of a call comes last, and so gets what the
			// others leave, which is at most a quarter of the screen each.
			sort.SliceStable(order, func(a, b int) bool {
				sa, sb := v.sections[order[a]], v.sections[order[b]]
				if sa.code != sb.code {
					return sb.code
				}
				return bodyRows(order[a], len(sa.body)) < bodyRows(order[b], len(sb.body))
			})
			for k, i := range order {
				share := max(3, left/(len(order)-k))
				if !v.sections[i].code && k < len(order)-1 && v.sections[order[len(order)-1]].code {
					share = min(share, max(3, limit/4))
				}
				body := v.sections[i].body
				n, r := 0, 0
				for n < len(body) && r+rows(body[n]) <= share {
					r += rows(body[n])
					n++
				}
				if n < len(body) {
					// Room for the note of what was left out.
					if n > 0 && r+1 > share {
						r -= rows(body[n-1])
						n--
					}
					r++
				}
				shown[i] = n
				left -= r
			}
		}
	}
	maxChars := 0
	if limit > 0 {
		maxChars = max(200, cols*max(2, limit/4))
	}
	for i, s := range v.sections {
		if s.head != "" {
			lines = append(lines, s.head)
		}
		for _, l := range s.body[:shown[i]] {
			text := l.text
			if maxChars > 0 && len(text) > maxChars {
				k := clip.Boundary(text, maxChars)
				more := utf8.RuneCountInString(text[k:])
				text = text[:k] + paint(dim, fmt.Sprintf(" … %s more", plural(more, "character")))
				cut = true
			}
			lines = append(lines, paint(l.color, l.mark+text))
		}
		if n := len(s.body) - shown[i]; n > 0 {
			mark := "│ "
			if len(s.body) > 0 {
				mark = s.body[shown[i]].mark
			}
			lines = append(lines, paint(dim, fmt.Sprintf("%s… %s ([v]iew shows all)", mark, plural(n, "more line"))))
			cut = true
		}
	}
	return lines, cut
}

// callView builds the view of a call: the whole of it, in a form that
// suits the tool.
func callView(w *workdir, c agent.Call) *view {
	switch c.Name {
	case "write_file":
		var a writeFileArgs
		if json.Unmarshal(c.Args, &a) == nil {
			return writeView(w, a)
		}
	case "edit_file":
		var a editFileArgs
		if json.Unmarshal(c.Args, &a) == nil {
			v := &view{sections: []section{{head: "edit_file " + inert.Line(a.Path)}}}
			v.sections = append(v.sections, section{body: textLines("- ", red, a.Old)}, section{body: textLines("+ ", green, a.New)})
			return v
		}
	}
	return argsView(c)
}

// writeView shows a write_file call: the path, whether it creates the file
// or replaces one (and how big that one is), and the content: whole when
// it fits the screen, else a diff against the file it replaces, or the
// first lines of a new one.
func writeView(w *workdir, a writeFileArgs) *view {
	what := fmt.Sprintf("creates it (%s, %s)", size(len(a.Content)), plural(lineCount(a.Content), "line"))
	var old []byte
	replaces := false
	if w != nil {
		if rel, err := w.resolve(a.Path); err != nil {
			what = "refused: " + err.Error()
		} else if fi, err := w.root.Stat(rel); err == nil && !fi.IsDir() {
			replaces = true
			if fi.Size() <= maxReadBytes {
				old, _ = w.root.ReadFile(rel)
			}
			oldSize := size(int(fi.Size()))
			if old != nil {
				oldSize += ", " + plural(lineCount(string(old)), "line")
			}
			what = fmt.Sprintf("replaces it (%s) with %s, %s", oldSize, size(len(a.Content)), plural(lineCount(a.Content), "line"))
			if rel != a.Path {
				what = "the file " + rel + ", " + what
			}
		}
	}
	head := "write_file " + inert.Line(a.Path) + ": " + inert.Line(what)
	v := &view{sections: []section{{head: head, body: textLines("│ ", "", a.Content)}}}
	if replaces && old != nil {
		d := section{head: head + "; the changes:"}
		for _, l := range unifiedDiff(splitLines(string(old)), splitLines(a.Content), 3) {
			switch l.kind {
			case '@':
				d.body = append(d.body, vline{"", inert.Line(l.text), cyan})
			case '-':
				d.body = append(d.body, vline{"- ", inert.Line(l.text), red})
			case '+':
				d.body = append(d.body, vline{"+ ", inert.Line(l.text), green})
			default:
				d.body = append(d.body, vline{"  ", inert.Line(l.text), ""})
			}
		}
		if len(d.body) == 0 {
			d.head = head + "; the content is the same"
		}
		v.alt = &view{sections: []section{d}}
	}
	return v
}

// codeKeys are the arguments that hold code or a command, shown first and
// as code, in this order.
var codeKeys = []string{"command", "cmd", "code", "script", "program", "source", "content", "query", "sql"}

// argsView shows every argument of a call, one per line: the code or
// command first, as code, then the others in the order of their names, so
// that the order the model wrote them in cannot push one out of view. A
// value of several lines is a block of its own.
func argsView(c agent.Call) *view {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return &view{sections: []section{{head: inert.Line(c.Name), body: textLines("│ ", "", string(c.Args))}}}
	}
	if len(args) == 0 {
		return &view{sections: []section{{head: inert.Line(c.Name) + " (no arguments)"}}}
	}
	var names []string
	for _, k := range codeKeys {
		if _, ok := args[k]; ok {
			names = append(names, k)
		}
	}
	var rest []string
	for k := range args {
		if !contains(codeKeys, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	names = append(names, rest...)

	v := &view{sections: []section{{head: inert.Line(c.Name)}}}
	for _, k := range names {
		raw := args[k]
		name := inert.Line(k)
		var str string
		if json.Unmarshal(raw, &str) == nil {
			if !strings.Contains(str, "\n") && !contains(codeKeys, k) && utf8.RuneCountInString(str) <= 100 {
				v.sections = append(v.sections, section{head: name + ": " + inert.Line(str)})
				continue
			}
			if str == "" {
				v.sections = append(v.sections, section{head: name + ": (empty)"})
				continue
			}
			v.sections = append(v.sections, section{head: name + ":", body: textLines("│ ", "", str), code: contains(codeKeys, k)})
			continue
		}
		var compact bytes.Buffer
		var list []string
		if json.Compact(&compact, raw) == nil && compact.Len() <= 100 {
			v.sections = append(v.sections, section{head: name + ": " + inert.Line(compact.String())})
			continue
		}
		if json.Unmarshal(raw, &list) == nil {
			// A list of words, such as a program's arguments: one a line,
			// quoted, so that a space or a newline in one is seen.
			s := section{head: name + ":"}
			for _, w := range list {
				q, _ := json.Marshal(w)
				s.body = append(s.body, vline{"│ ", inert.Line(string(q)), ""})
			}
			v.sections = append(v.sections, s)
			continue
		}
		var pretty bytes.Buffer
		json.Indent(&pretty, raw, "", "  ")
		v.sections = append(v.sections, section{head: name + ":", body: textLines("│ ", "", pretty.String())})
	}
	return v
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// summary is the short view of a call's arguments on its "[tool] NAME"
// line, made inert.
func summary(c agent.Call) string {
	var a struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
	}
	if json.Unmarshal(c.Args, &a) != nil || a.Path == "" {
		return codingSummary(c)
	}
	if a.Content != nil {
		return fmt.Sprintf(" %s (%s)", inert.Line(a.Path), size(len(*a.Content)))
	}
	return " " + inert.Line(a.Path)
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
