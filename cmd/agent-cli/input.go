package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
)

// maxLine bounds one line of input.
const maxLine = 1 << 20

// lineReader is the person's input, shared by the conversation's line
// editor and the approval prompts. One goroutine reads the input, a chunk
// each time one is wanted, so that a wait for input can end with its
// context, and so that nothing reads the terminal between prompts (a pager
// shown from a prompt has the keyboard to itself). Bytes read and not yet
// used wait for the next reader, whichever it is.
type lineReader struct {
	r      io.Reader
	once   sync.Once
	want   chan struct{} // a chunk is wanted
	chunks chan []byte   // closed at the end of input

	mu      sync.Mutex
	pending bool   // a chunk was asked for and has not been taken
	buf     []byte // read and not yet used
	end     error  // why the input ended (io.EOF), once it has
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: r, want: make(chan struct{}, 1), chunks: make(chan []byte)}
}

func (l *lineReader) read() {
	defer close(l.chunks)
	for range l.want {
		buf := make([]byte, 4096)
		n, err := l.r.Read(buf)
		if n > 0 {
			l.chunks <- buf[:n]
		}
		if err != nil {
			l.mu.Lock()
			l.end = err
			l.mu.Unlock()
			return
		}
		if n == 0 {
			l.chunks <- nil
		}
	}
}

// fill waits for more input and adds it to buf. It returns the input's
// end (io.EOF) when there is no more, or ctx's error when ctx ends first
// (the chunk, when it comes, is kept for the next call).
func (l *lineReader) fill(ctx context.Context) error {
	l.once.Do(func() { go l.read() })
	l.mu.Lock()
	if !l.pending {
		l.pending = true
		select {
		case l.want <- struct{}{}:
		default: // the reader has ended
		}
	}
	l.mu.Unlock()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case chunk, ok := <-l.chunks:
		l.mu.Lock()
		defer l.mu.Unlock()
		l.pending = false
		if !ok {
			if l.end == nil || errors.Is(l.end, io.EOF) {
				return io.EOF
			}
			return l.end
		}
		l.buf = append(l.buf, chunk...)
		return nil
	}
}

// next returns the next line without its line ending; io.EOF at the end of
// input; ctx's error when ctx ends first.
func (l *lineReader) next(ctx context.Context) (string, error) {
	for {
		l.mu.Lock()
		if i := bytes.IndexByte(l.buf, '\n'); i >= 0 {
			line := string(l.buf[:i])
			l.buf = l.buf[i+1:]
			l.mu.Unlock()
			return trimCR(line), nil
		}
		if len(l.buf) > maxLine {
			line := string(l.buf)
			l.buf = nil
			l.mu.Unlock()
			return line, nil
		}
		l.mu.Unlock()
		if err := l.fill(ctx); err != nil {
			l.mu.Lock()
			defer l.mu.Unlock()
			if errors.Is(err, io.EOF) && len(l.buf) > 0 {
				line := string(l.buf)
				l.buf = nil
				return trimCR(line), nil
			}
			return "", err
		}
	}
}

// readBytes copies waiting input into p, waiting for some when there is
// none: the line editor's read.
func (l *lineReader) readBytes(ctx context.Context, p []byte) (int, error) {
	for {
		l.mu.Lock()
		if len(l.buf) > 0 {
			n := copy(p, l.buf)
			l.buf = l.buf[n:]
			l.mu.Unlock()
			return n, nil
		}
		l.mu.Unlock()
		if err := l.fill(ctx); err != nil {
			return 0, err
		}
	}
}

func trimCR(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\r' {
		return s[:n-1]
	}
	return s
}
