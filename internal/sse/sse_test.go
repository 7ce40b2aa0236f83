package sse

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t testing.TB, r io.Reader) ([]Event, error) {
	t.Helper()
	rd := NewReader(r)
	var out []Event
	for {
		ev, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		out = append(out, ev)
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Event
	}{
		{"an event with a type and data is read", "event: ping\ndata: {}\n\n",
			[]Event{{Event: "ping", Data: "{}"}}},
		{"data lines join with a newline", "data: a\ndata: b\n\n",
			[]Event{{Data: "a\nb"}}},
		{"crlf and lone cr end lines", "event: x\r\ndata: 1\r\rdata: 2\r\n\r\n",
			[]Event{{Event: "x", Data: "1"}, {Data: "2"}}},
		{"comments ids and retries are ignored", ": hello\nid: 7\nretry: 10\ndata: z\n\n",
			[]Event{{Data: "z"}}},
		{"only one leading space is removed", "data:  two\ndata:none\n\n",
			[]Event{{Data: " two\nnone"}}},
		{"an event without data is not delivered", "event: lonely\n\ndata: x\n\n",
			[]Event{{Data: "x"}}},
		{"a type does not leak into the next event", "event: a\n\ndata: b\n\n",
			[]Event{{Data: "b"}}},
		{"an unfinished last event is dropped", "data: 1\n\ndata: {\"cut",
			[]Event{{Data: "1"}}},
		{"an event without the final blank line is dropped", "data: 1\n\ndata: 2\n",
			[]Event{{Data: "1"}}},
		{"a byte order mark is skipped", "\uFEFFdata: 1\n\n",
			[]Event{{Data: "1"}}},
		{"a field without a colon is a name with empty value", "data\n\n",
			[]Event{{Data: ""}}},
		{"unknown fields are ignored", "foo: bar\ndata: 1\n\n",
			[]Event{{Data: "1"}}},
		{"empty input has no events", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				got, err := readAll(t, r)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("got %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestReaderLongLines(t *testing.T) {
	big := strings.Repeat("x", 100_000)
	got, err := readAll(t, strings.NewReader("data: "+big+"\r\n\r\ndata: y\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Data != big || got[1].Data != "y" {
		t.Fatalf("long line read wrongly: %d events", len(got))
	}
}

func TestReaderErrors(t *testing.T) {
	t.Run("a read error is returned and sticks", func(t *testing.T) {
		boom := errors.New("boom")
		r := NewReader(io.MultiReader(strings.NewReader("data: 1\n\n"), iotest.ErrReader(boom)))
		if ev, err := r.Next(); err != nil || ev.Data != "1" {
			t.Fatalf("first event: %v %v", ev, err)
		}
		for range 2 {
			if _, err := r.Next(); !errors.Is(err, boom) {
				t.Fatalf("got %v, want boom", err)
			}
		}
	})
}

func TestWriteReadsBack(t *testing.T) {
	events := []Event{
		{Event: "message_start", Data: `{"a":1}`},
		{Data: "two\nlines"},
		{Data: ""},
		{Event: "x", Data: "ends in newline\n"},
	}
	var buf bytes.Buffer
	for _, ev := range events {
		if err := Write(&buf, ev); err != nil {
			t.Fatal(err)
		}
	}
	got, err := readAll(t, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, events) {
		t.Fatalf("got %q, want %q", got, events)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("event: a\ndata: b\n\n"))
	f.Add([]byte("data: 1\r\n\r\ndata: 2\r\r"))
	f.Add([]byte(": c\ndata\n\nid: 1\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, err := readAll(t, bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		bytewise, err := readAll(t, iotest.OneByteReader(bytes.NewReader(in)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("reading byte by byte differs: %q vs %q", whole, bytewise)
		}
		// What was read writes back and reads again the same.
		var buf bytes.Buffer
		for _, ev := range whole {
			if strings.ContainsAny(ev.Event, "\r\n") || strings.Contains(ev.Data, "\r") {
				return
			}
			Write(&buf, ev)
		}
		again, err := readAll(t, &buf)
		if err != nil {
			t.Fatal(err)
		}
		if len(again) != len(whole) {
			t.Fatalf("round trip: %d events, want %d", len(again), len(whole))
		}
		for i := range again {
			if again[i] != whole[i] {
				t.Fatalf("round trip event %d: %q, want %q", i, again[i], whole[i])
			}
		}
	})
}
