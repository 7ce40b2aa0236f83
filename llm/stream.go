package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strings"

	"github.com/bridle-dev/bridle/internal/sse"
)

// A streamDecoder assembles a reply from the events of one dialect.
type streamDecoder interface {
	// event handles one server-sent event, passing what the caller should
	// see to emit. It returns errStopped when emit returned false.
	event(ev sse.Event, emit func(Event) bool) error
	// complete reports whether the final event has arrived, so that
	// reading can stop.
	complete() bool
	// finish returns the whole reply once the events are over, or an error
	// wrapping ErrStreamEnded that names what never arrived.
	finish() (*Response, error)
}

// droppedError is a failure to read a reply: the connection broke. It
// matches ErrStreamEnded as well as the read error.
type droppedError struct{ err error }

func (e *droppedError) Error() string {
	return "llm: connection lost before the reply was complete: " + e.err.Error()
}
func (e *droppedError) Unwrap() []error { return []error{ErrStreamEnded, e.err} }

// decodeStream reads server-sent events from r into d until the reply is
// complete, the input ends, or an error.
func decodeStream(r io.Reader, d streamDecoder, emit func(Event) bool) (*Response, error) {
	rd := sse.NewReader(r)
	for !d.complete() {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &droppedError{err}
		}
		if err := d.event(ev, emit); err != nil {
			return nil, err
		}
	}
	return d.finish()
}

// send asks for a whole reply.
func (t *transport) send(ctx context.Context, req *Request) (out *Response, err error) {
	c, err := t.prepare(req, false)
	if err != nil {
		return nil, err
	}
	ctx, span := t.startChat(ctx, req, c)
	defer func() { endChat(span, out, err) }()
	err = t.run(ctx, c, func(resp *http.Response) error {
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return &retryable{err: &droppedError{err}, reason: "connection dropped"}
		}
		out, err = t.d.decode(data)
		return err
	})
	if err != nil {
		return nil, err
	}
	unwrapOutput(req, out)
	return out, nil
}

// stream asks for a reply piece by piece.
func (t *transport) stream(ctx context.Context, req *Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		c, err := t.prepare(req, true)
		if err != nil {
			yield(Event{}, err)
			return
		}
		ctx, span := t.startChat(ctx, req, c)
		var done *Response
		emit := func(ev Event) bool {
			switch {
			case !outputAsTool(req, ev.Part):
			case ev.Type == EventToolStart:
				return true
			case ev.Type == EventToolCall:
				ev = Event{Type: EventText, Text: cmp.Or(string(ev.Part.Args), ev.Part.Text)}
			}
			if ev.Type == EventDone {
				unwrapOutput(req, ev.Response)
				done = ev.Response
			}
			return yield(ev, nil)
		}
		err = t.run(ctx, c, func(resp *http.Response) error {
			return t.consumeStream(resp, emit)
		})
		if err == errStopped {
			endChat(span, done, nil)
			return
		}
		endChat(span, done, err)
		if err != nil {
			yield(Event{}, err)
		}
	}
}

// consumeStream decodes one streamed response. A failure before anything
// reached the caller may be retried; after, it is final.
func (t *transport) consumeStream(resp *http.Response, emit func(Event) bool) error {
	yielded := false
	track := func(ev Event) bool {
		yielded = true
		return emit(ev)
	}
	var out *Response
	var err error
	if isHTML(resp.Header) {
		// A proxy's login or error page, sent with a success status.
		data, _ := readLimited(resp.Body, 1<<20)
		return fmt.Errorf("llm: the reply is not a stream: %s", describeBody(resp.StatusCode, resp.Header, data))
	}
	if isJSON(resp.Header) {
		out, err = t.replayWhole(resp.Body, track)
	} else {
		out, err = decodeStream(resp.Body, t.d.decoder(), track)
	}
	if err == nil {
		if !emit(Event{Type: EventDone, Response: out}) {
			return errStopped
		}
		return nil
	}
	if err == errStopped || yielded {
		return err
	}
	if reason := streamRetryReason(err); reason != "" {
		return &retryable{err: err, reason: reason}
	}
	return err
}

// streamRetryReason says why a stream that failed before yielding anything
// is worth trying again, or "" when it is not.
func streamRetryReason(err error) string {
	var dropped *droppedError
	var apiErr *APIError
	switch {
	case errors.As(err, &dropped), errors.Is(err, ErrStreamEnded):
		return "connection dropped"
	case errors.As(err, &apiErr) && retryableType(apiErr):
		return statusReason(apiErr)
	}
	return ""
}

// retryableType reports whether an error event inside a stream is one the
// server would have answered with a retryable status.
func retryableType(e *APIError) bool {
	s := strings.ToLower(e.Type + " " + e.Code)
	return containsAny(s, []string{"overloaded", "rate_limit", "api_error", "server_error", "timeout", "internal"})
}

func isHTML(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/html"
}

func isJSON(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "application/json"
}

// replayWhole handles a server that answered a stream request with a whole
// reply: the reply's parts are passed on as events.
func (t *transport) replayWhole(r io.Reader, emit func(Event) bool) (*Response, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &droppedError{err}
	}
	out, err := t.d.decode(data)
	if err != nil {
		return nil, err
	}
	for _, p := range out.Parts {
		if ev, ok := partEvent(p); ok && !emit(ev) {
			return nil, errStopped
		}
	}
	return out, nil
}

// partEvent is the event that carries a whole part.
func partEvent(p Part) (Event, bool) {
	switch p.Type {
	case PartText:
		return Event{Type: EventText, Text: p.Text}, true
	case PartThinking:
		return Event{Type: EventThinking, Text: p.Text}, true
	case PartToolCall:
		return Event{Type: EventToolCall, Part: p}, true
	}
	return Event{}, false
}

func readLimited(r io.Reader, n int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, n))
}

// streamEnded wraps ErrStreamEnded with what never arrived.
func streamEnded(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrStreamEnded, fmt.Sprintf(format, args...))
}
