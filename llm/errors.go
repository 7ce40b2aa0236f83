package llm

import (
	"errors"
	"fmt"
	"time"
)

// ErrStreamEnded reports a stream that closed before the reply was complete.
// The error wrapping it names what never arrived, or the connection error.
var ErrStreamEnded = errors.New("llm: stream ended before the reply was complete")

// APIError is a provider's refusal that was not retried, or still failed
// after the last retry.
type APIError struct {
	// Status is the HTTP status; 0 for an error event inside a stream, 200
	// for an error object sent with a success status.
	Status int
	// Type is the provider's error type ("rate_limit_error",
	// "invalid_request_error", ...).
	Type string
	// Message is the provider's message.
	Message string
	// Param names the rejected parameter when the provider says.
	Param string
	// Code is the provider's error code, when it gives one.
	Code string
	// RetryAfter is the wait the provider asked for, if any.
	RetryAfter time.Duration
	// RequestID is the provider's id of the request, when it gives one.
	RequestID string
}

func (e *APIError) Error() string {
	s := "llm: "
	if e.Status != 0 {
		s += fmt.Sprintf("status %d", e.Status)
	} else {
		s += "stream error"
	}
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Param != "" {
		s += " (param " + e.Param + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// WaitError reports a provider asking to be retried later than
// [Config.MaxRetryWait] allows: the client does not wait, and says when.
// It unwraps to the refusal, an [*APIError].
type WaitError struct {
	// Wait is how long the provider asked the client to wait; At is when
	// that ends.
	Wait time.Duration
	At   time.Time
	// Max is the longest wait the client accepts.
	Max time.Duration
	// Err is the provider's refusal.
	Err error
}

// Error says how long the provider asked to wait, until when, and why.
func (e *WaitError) Error() string {
	return fmt.Sprintf("llm: the provider asked to be retried in %v (at %s), longer than the %v the client waits (Config.MaxRetryWait); try again then: %v",
		e.Wait.Round(time.Second), e.At.UTC().Format(time.RFC3339), e.Max, e.Err)
}

// Unwrap returns the provider's refusal.
func (e *WaitError) Unwrap() error { return e.Err }

// Retry describes one retry or repair of a request, for a progress display.
type Retry struct {
	// Attempt is the number of the attempt about to be made, from 2.
	Attempt int
	// Wait is how long the client waits before it.
	Wait time.Duration
	// Reason is short and readable: "rate limited", "overloaded",
	// "request timed out", "status 503", "connection failed" (no answer),
	// "connection dropped" (an answer cut short), "server error" (an error
	// event in a stream), or for a repair "repair: " and the rule, as in
	// "repair: max_tokens → max_completion_tokens", or for a switch of
	// [Fallback] "fallback: " and the next client. Repairs and switches
	// have no Wait.
	Reason string
	// Err is the failure being retried.
	Err error
}
