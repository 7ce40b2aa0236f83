package llm

import (
	"errors"
	"fmt"
	"time"
)

// ErrStreamEnded reports a stream that closed before the reply was complete.
var ErrStreamEnded = errors.New("llm: stream ended before the reply was complete")

// APIError is a provider's refusal that was not retried, or still failed
// after the last retry.
type APIError struct {
	// Status is the HTTP status; 0 for an error event inside a stream.
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

// Retry describes one retry or repair of a request, for a progress display.
type Retry struct {
	// Attempt is the number of the attempt about to be made, from 2.
	Attempt int
	// Wait is how long the client waits before it.
	Wait time.Duration
	// Reason is short and readable: "rate limited", "overloaded",
	// "status 503", "connection dropped", "repair: max_tokens → max_completion_tokens".
	Reason string
	// Err is the failure being retried.
	Err error
}
