package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/url"
	"strings"
)

// Fallback returns a [Client] that sends each request to the first of
// clients and moves to the next when one is down: overloaded (529), rate
// limited after its own retries (429, or a retry-after too long to wait,
// [*WaitError]), failing with 408, 409 or any 5xx, or unreachable (a
// connection that failed or dropped) — as long as none of its reply had
// been streamed. A refusal of the request itself (400, 401, 403, 404, 422,
// …), a cancelled context, and any failure after streamed output reached
// the caller are returned at once: another provider would not do better,
// or the caller has already shown part of a reply. When every client
// fails, the last error is returned.
//
// Each switch is reported to the retry observer of the request's context
// ([WithRetryObserver]) with Reason "fallback: " and the next client's
// name (its String method, as clients from [New] have, else its place in
// the list), and Err the failure that caused it.
//
// Request.Model is sent to every client; leave it empty so that each uses
// its own Config.Model. Fallback panics when clients is empty or holds nil.
func Fallback(clients ...Client) Client {
	if len(clients) == 0 {
		panic("llm.Fallback: no clients; pass at least one")
	}
	for i, c := range clients {
		if c == nil {
			panic(fmt.Sprintf("llm.Fallback: client %d is nil", i))
		}
	}
	return &fallback{clients: clients}
}

type fallback struct{ clients []Client }

// String names the clients in order.
func (f *fallback) String() string {
	names := make([]string, len(f.clients))
	for i := range f.clients {
		names[i] = f.name(i)
	}
	return strings.Join(names, ", then ")
}

func (f *fallback) name(i int) string {
	if s, ok := f.clients[i].(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("client %d of %d", i+1, len(f.clients))
}

// Send asks each client in turn for a whole reply.
func (f *fallback) Send(ctx context.Context, req *Request) (*Response, error) {
	for i, c := range f.clients {
		resp, err := c.Send(ctx, req)
		if err == nil || !f.next(ctx, i, err) {
			return resp, err
		}
	}
	panic("unreachable")
}

// Stream asks each client in turn for a streamed reply, until one has
// passed on an event.
func (f *fallback) Stream(ctx context.Context, req *Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for i, c := range f.clients {
			streamed := false
			for ev, err := range c.Stream(ctx, req) {
				if err != nil {
					if streamed || !f.next(ctx, i, err) {
						yield(Event{}, err)
						return
					}
					break
				}
				streamed = true
				if !yield(ev, nil) {
					return
				}
				if ev.Type == EventDone {
					return
				}
			}
			if streamed {
				return // a stream that ended without EventDone or an error
			}
		}
	}
}

// next reports whether the failure err of client i calls for the next
// client, and reports the switch when it does.
func (f *fallback) next(ctx context.Context, i int, err error) bool {
	if i == len(f.clients)-1 || ctx.Err() != nil || !worthAnother(err) {
		return false
	}
	r := Retry{Attempt: i + 2, Reason: "fallback: " + f.name(i+1), Err: err}
	if fn, ok := ctx.Value(observerKey{}).(func(Retry)); ok {
		fn(r)
	}
	return true
}

// worthAnother reports whether another provider may succeed where err
// failed: the provider was down, overloaded or rate limited, or could not
// be reached; not when it refused the request itself.
func worthAnother(err error) bool {
	var wait *WaitError
	var apiErr *APIError
	var dropped *droppedError
	var urlErr *url.Error
	var netErr net.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	case errors.As(err, &wait):
		return true
	case errors.As(err, &apiErr):
		if apiErr.Status == 0 {
			return retryableType(apiErr) // an error event in a stream
		}
		return shouldRetry(apiErr.Status, nil)
	case errors.As(err, &dropped), errors.Is(err, ErrStreamEnded),
		errors.As(err, &urlErr), errors.As(err, &netErr):
		return true
	}
	return false
}
