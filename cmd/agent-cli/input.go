package main

import (
	"bufio"
	"context"
	"io"
	"sync"
)

// lineReader reads lines from the person's input for the conversation
// prompt and the approval prompt alike. One goroutine reads ahead a line at
// a time, so that a wait for input can end with its context.
type lineReader struct {
	r     io.Reader
	once  sync.Once
	lines chan lineResult
}

type lineResult struct {
	text string
	err  error
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: r, lines: make(chan lineResult)}
}

// next returns the next line without its line ending; io.EOF at the end of
// input; ctx's error when ctx ends first (the line, when it comes, is kept
// for the next call).
func (l *lineReader) next(ctx context.Context) (string, error) {
	l.once.Do(func() { go l.read() })
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case res, ok := <-l.lines:
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
	for sc.Scan() {
		l.lines <- lineResult{text: trimCR(sc.Text())}
	}
	if err := sc.Err(); err != nil {
		l.lines <- lineResult{err: err}
	}
}

func trimCR(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\r' {
		return s[:n-1]
	}
	return s
}
