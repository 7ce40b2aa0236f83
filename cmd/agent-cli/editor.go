package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/term"
)

// The line editor of the conversation is golang.org/x/term's Terminal: the
// Go project's own, already a dependency, maintained with the toolchain,
// and it shares the input with the approval prompts, which read whole
// lines. It gives cursor keys, Home and End, Alt-Left and Alt-Right by
// word, Ctrl-U, Ctrl-K, Ctrl-W, Ctrl-L, history on Up and Down, and
// bracketed paste. It has no reverse search (Ctrl-R).

// errDropped reports a line the person dropped with Ctrl-C.
var errDropped = errors.New("line dropped")

// maxHistory bounds the history kept across runs.
const maxHistory = 1000

// editor reads the person's messages in the conversation.
type editor struct {
	in      *lineReader
	fd      int       // the terminal's descriptor, raw while reading
	out     io.Writer // where the editor draws: stderr
	history *history

	ctx         context.Context // of the read in progress
	interrupted bool            // Ctrl-C was pressed during it
}

func newEditor(in *lineReader, stdin *os.File, out io.Writer) *editor {
	return &editor{in: in, fd: int(stdin.Fd()), out: out, history: loadHistory()}
}

// editorIO is the editor's terminal: input from the shared reader, with a
// Ctrl-C noted and ending what is read, and output to stderr.
type editorIO struct{ e *editor }

func (x editorIO) Read(p []byte) (int, error) {
	n, err := x.e.in.readBytes(x.e.ctx, p)
	if i := bytes.IndexByte(p[:n], 3); i >= 0 {
		x.e.interrupted = true
		n = i + 1
	}
	return n, err
}

func (x editorIO) Write(p []byte) (int, error) { return x.e.out.Write(p) }

// read reads one message. A pasted block is one message, whatever lines it
// has, sent when Enter is pressed after it; a line ending in a backslash
// goes on on the next line. It returns errDropped for Ctrl-C, io.EOF for
// Ctrl-D on an empty line, and ctx's error when ctx ends.
func (e *editor) read(ctx context.Context, prompt string) (string, error) {
	old, err := term.MakeRaw(e.fd)
	if err != nil {
		return "", err
	}
	defer term.Restore(e.fd, old)
	t := term.NewTerminal(editorIO{e}, prompt)
	if w, h, err := term.GetSize(e.fd); err == nil && w > 0 {
		t.SetSize(w, h)
	}
	t.History = e.history
	t.SetBracketedPasteMode(true)
	defer t.SetBracketedPasteMode(false)
	e.ctx, e.interrupted = ctx, false
	e.history.fresh = e.history.fresh[:0]

	var lines []string
	pasted := false
	for {
		line, err := t.ReadLine()
		wasPasted := errors.Is(err, term.ErrPasteIndicator)
		switch {
		case e.interrupted:
			io.WriteString(e.out, "^C\r\n")
			e.history.forget()
			return "", errDropped
		case err != nil && !wasPasted:
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			e.history.forget()
			return "", err
		}
		more := wasPasted
		pasted = pasted || wasPasted
		if !wasPasted && strings.HasSuffix(line, `\`) {
			line, more = strings.TrimSuffix(line, `\`), true
		}
		lines = append(lines, line)
		if !more {
			break
		}
		t.SetPrompt("… ")
	}
	if pasted {
		// A pasted block is not one line to recall.
		e.history.forget()
	} else {
		e.history.keep()
	}
	return strings.Join(lines, "\n"), nil
}

// history is the editor's history: the lines typed, the newest last, kept
// across runs in the user's state folder, one JSON string a line.
type history struct {
	entries []string
	fresh   []string // added during the read in progress
	path    string   // "" when there is no state folder
}

// Add adds a line typed; the editor calls it.
func (h *history) Add(s string) {
	if strings.TrimSpace(s) == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == s) {
		return
	}
	h.entries = append(h.entries, s)
	h.fresh = append(h.fresh, s)
}

// Len returns the number of lines.
func (h *history) Len() int { return len(h.entries) }

// At returns a line, 0 being the newest.
func (h *history) At(i int) string { return h.entries[len(h.entries)-1-i] }

// forget drops the lines added during the read in progress.
func (h *history) forget() {
	h.entries = h.entries[:len(h.entries)-len(h.fresh)]
	h.fresh = h.fresh[:0]
}

// keep saves the lines added during the read in progress.
func (h *history) keep() {
	if h.path == "" || len(h.fresh) == 0 {
		h.fresh = h.fresh[:0]
		return
	}
	var b bytes.Buffer
	for _, s := range h.fresh {
		data, _ := json.Marshal(s)
		b.Write(append(data, '\n'))
	}
	h.fresh = h.fresh[:0]
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	f.Write(b.Bytes())
	f.Close()
}

// loadHistory reads the history of earlier runs; a missing or unreadable
// file means none. A file grown past twice the limit is cut back.
func loadHistory() *history {
	h := &history{}
	dir, err := stateDir()
	if err != nil {
		return h
	}
	h.path = filepath.Join(dir, "history")
	f, err := os.Open(h.path)
	if err != nil {
		return h
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			h.entries = append(h.entries, s)
		}
	}
	f.Close()
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	if n > 2*maxHistory {
		h.fresh = append([]string(nil), h.entries...)
		os.Remove(h.path)
		h.keep()
		h.fresh = nil
	}
	return h
}

// stateDir is agent-cli's folder of the user's state: $XDG_STATE_HOME, else
// ~/.local/state on Unix, else the user's configuration folder.
func stateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agent-cli"), nil
	}
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, ".local", "state", "agent-cli"), nil
		}
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "agent-cli"), nil
}
