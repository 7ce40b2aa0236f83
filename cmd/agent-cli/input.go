package main

import (
	"bufio"
	"context"
	"io"
	"sync"
)

// lineReader reads lines from the person's input for the conversation
// prompt and the approval prompt alike. A goroutine reads one line each
// time one is wanted, so that a wait for input can end with its context,
// and so that nothing reads the terminal between prompts (a pager shown
// from a prompt has the keyboard to itself).
type lineReader struct {
	r     io.Reader
	once  sync.Once
	want  chan struct{} // one line is wanted
	lines chan lineResult

	mu      sync.Mutex
	pending bool // a line was asked for and has not been taken
}

type lineResult struct {
	text string
	err  error
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: r, want: make(chan struct{}, 1), lines: make(chan lineResult)}
}

// next returns the next line without its line ending; io.EOF at the end of
// input; ctx's error when ctx ends first (the line, when it comes, is kept
// for the next call).
func (l *lineReader) next(ctx context.Context) (string, error) {
	l.once.Do(func() { go l.read() })
	l.mu.Lock()
	if !l.pending {
		l.pending = true
		select {
		case l.want <- struct{}{}:
		default: // the reader has ended: the channel of lines is closed
		}
	}
	l.mu.Unlock()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case res, ok := <-l.lines:
		l.mu.Lock()
		l.pending = false
		l.mu.Unlock()
		if !ok {
			return "", io.EOF
		}
		return res.text, res.err
	}
}

func (l *lineReader) read() {
	defer close(l.lines)
	sc := bufio.NewScanner(l.r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for range l.want {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				l.lines <- lineResult{err: err}
			}
			return
		}
		l.lines <- lineResult{text: trimCR(sc.Text())}
	}
}

func trimCR(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\r' {
		return s[:n-1]
	}
	return s
}
