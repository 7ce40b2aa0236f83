// Package sse reads and writes server-sent events (the text/event-stream
// format of the WHATWG HTML standard) as model providers use them.
//
// The reader follows the standard's parsing rules: lines end in "\n", "\r\n"
// or "\r"; "event" and "data" fields are kept, "id" and "retry" fields and
// comment lines are ignored; several data lines join with "\n"; a blank line
// ends an event; an event with no data is not delivered; an event not ended
// by a blank line when the input ends is dropped, because it may be cut.
package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
)

// MaxLine bounds the length of one line of input.
const MaxLine = 32 << 20

// ErrLineTooLong reports a line longer than [MaxLine].
var ErrLineTooLong = errors.New("sse: line longer than 32 MiB")

// Event is one server-sent event.
type Event struct {
	// Event is the event type; empty when the stream gave none (the
	// standard's "message").
	Event string
	// Data is the event's data, lines joined with "\n".
	Data string
}

// Reader reads events from a stream.
type Reader struct {
	src     io.Reader
	buf     []byte
	start   int  // first unread byte of buf
	end     int  // end of the bytes read into buf
	skipLF  bool // the last line ended in "\r": a "\n" next belongs to it
	started bool
	data    []byte            // the data of the event being read, reused
	names   map[string]string // event types seen, so each is allocated once
	eof     bool
	err     error
}

// NewReader returns a Reader that reads from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{src: r, buf: make([]byte, 8<<10)}
}

// Next returns the next event. At the end of the input it returns io.EOF;
// a read error is returned as it is. After an error every call returns it
// again.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	var ev Event
	data := r.data[:0]
	hasData := false
	for {
		line, err := r.readLine()
		if err != nil {
			r.err = err
			return Event{}, err
		}
		if len(line) == 0 {
			if hasData {
				ev.Data = string(data)
				r.data = data
				return ev, nil
			}
			ev = Event{}
			continue
		}
		name, value := splitField(line)
		switch string(name) {
		case "event":
			ev.Event = r.intern(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		}
	}
}

// intern returns name as a string, allocating each distinct name once.
func (r *Reader) intern(name []byte) string {
	if s, ok := r.names[string(name)]; ok {
		return s
	}
	s := string(name)
	if r.names == nil {
		r.names = map[string]string{}
	}
	if len(r.names) < 64 {
		r.names[s] = s
	}
	return s
}

// splitField splits "name: value" into its parts; the value loses one
// leading space. A comment line (":...") has an empty name.
func splitField(line []byte) (name, value []byte) {
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return line, nil
	}
	name, value = line[:i], line[i+1:]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return name, value
}

// readLine returns the next line without its ending. The slice is valid
// until the next call.
func (r *Reader) readLine() ([]byte, error) {
	scanned := 0 // bytes after start known to hold no line ending
	for {
		if r.skipLF && r.start < r.end {
			r.skipLF = false
			if r.buf[r.start] == '\n' {
				r.start++
			}
		}
		window := r.buf[r.start+scanned : r.end]
		if i := bytes.IndexAny(window, "\r\n"); i >= 0 {
			i += r.start + scanned
			line := r.buf[r.start:i]
			r.skipLF = r.buf[i] == '\r'
			r.start = i + 1
			return r.stripBOM(line), nil
		}
		scanned = r.end - r.start
		if scanned > MaxLine {
			return nil, ErrLineTooLong
		}
		if r.eof {
			// A last line with no ending is not followed by the blank
			// line that would deliver its event, so it is dropped.
			return nil, io.EOF
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
}

// fill reads more input, making room first.
func (r *Reader) fill() error {
	if r.start > 0 {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.start, r.end = 0, n
	}
	if r.end == len(r.buf) {
		r.buf = append(r.buf, make([]byte, len(r.buf))...)
	}
	n, err := r.src.Read(r.buf[r.end:])
	r.end += n
	switch {
	case err == io.EOF:
		r.eof = true
	case err != nil && n == 0:
		return err
	}
	return nil
}

// stripBOM removes a byte order mark before the first line.
func (r *Reader) stripBOM(line []byte) []byte {
	if !r.started {
		r.started = true
		line = bytes.TrimPrefix(line, []byte("\uFEFF"))
	}
	return line
}

// Write writes ev to w in the event-stream format, ending it with a blank
// line. Data holding several lines is written as several data fields.
func Write(w io.Writer, ev Event) error {
	var b strings.Builder
	if ev.Event != "" {
		b.WriteString("event: ")
		b.WriteString(ev.Event)
		b.WriteByte('\n')
	}
	for line := range strings.Lines(ev.Data) {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\n"))
		b.WriteByte('\n')
	}
	if ev.Data == "" || strings.HasSuffix(ev.Data, "\n") {
		b.WriteString("data: \n")
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}
