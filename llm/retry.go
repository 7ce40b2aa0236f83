package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/internal/redact"
)

type observerKey struct{}

// WithRetryObserver returns a context that reports each retry and each
// parameter repair of the requests made with it: fn is called before the
// client waits, with the attempt about to be made, the wait and the reason.
// Like net/http/httptrace, an observer already in ctx is called too, first.
// fn runs on the goroutine making the request and must not block long.
func WithRetryObserver(ctx context.Context, fn func(Retry)) context.Context {
	if prev, ok := ctx.Value(observerKey{}).(func(Retry)); ok {
		next := fn
		fn = func(r Retry) { prev(r); next(r) }
	}
	return context.WithValue(ctx, observerKey{}, fn)
}

// report tells the observer and the log about a retry or a repair.
func (t *transport) report(ctx context.Context, r Retry) {
	if fn, ok := ctx.Value(observerKey{}).(func(Retry)); ok {
		fn(r)
	}
	traceRetry(ctx, r)
	t.log.InfoContext(ctx, "llm retry", "attempt", r.Attempt, "wait", r.Wait,
		"reason", r.Reason, "err", r.Err)
}

// retryable marks an error after which sending again is safe and useful.
type retryable struct {
	err    error
	reason string
	wait   time.Duration // the provider's own request, or 0
}

func (e *retryable) Error() string { return e.err.Error() }
func (e *retryable) Unwrap() error { return e.err }

// errStopped ends a stream whose caller broke out of the loop.
var errStopped = errors.New("llm: stream stopped by the caller")

// run sends c until consume accepts a response, repairing and retrying as
// the failures allow. consume reads a 2xx response; it returns a
// *retryable error when the attempt may be made again.
func (t *transport) run(ctx context.Context, c *call, consume func(*http.Response) error) error {
	retries := 0
	tried := map[string]bool{}
	for attempt := 1; ; attempt++ {
		err := t.attempt(ctx, c, consume)
		if err == nil || err == errStopped {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("llm: request stopped: %w", context.Cause(ctx))
		}
		if t.repair(ctx, c, err, tried, attempt+1) {
			continue
		}
		var r *retryable
		if !errors.As(err, &r) {
			return err
		}
		if retries >= t.maxRetries {
			return r.err
		}
		if r.wait > t.maxWait {
			return &WaitError{Wait: r.wait, At: t.now().Add(r.wait), Max: t.maxWait, Err: r.err}
		}
		retries++
		wait := t.backoff(retries, r.wait)
		t.report(ctx, Retry{Attempt: attempt + 1, Wait: wait, Reason: r.reason, Err: r.err})
		if err := t.sleep(ctx, wait); err != nil {
			return fmt.Errorf("llm: stopped waiting to retry (%s): %w", r.reason, err)
		}
	}
}

// attempt sends c once.
func (t *transport) attempt(ctx context.Context, c *call, consume func(*http.Response) error) error {
	req, err := t.newRequest(ctx, c)
	if err != nil {
		return err
	}
	resp, err := t.http.Do(req)
	if err != nil {
		return &retryable{err: fmt.Errorf("llm: %w", redact.URLError(err)), reason: "connection failed"}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return t.refusal(resp)
	}
	return consume(resp)
}

// refusal turns an error status into an *APIError, marked retryable when
// the status or the x-should-retry header says so.
func (t *transport) refusal(resp *http.Response) error {
	data, _ := readLimited(resp.Body, 1<<20)
	e := parseAPIError(resp.StatusCode, resp.Header, data, t.now())
	e.redact(t.key)
	if !shouldRetry(resp.StatusCode, resp.Header) {
		return e
	}
	return &retryable{err: e, reason: statusReason(e), wait: e.RetryAfter}
}

// shouldRetry applies the official SDKs' rule: 408, 409, 429 and every
// status from 500, unless x-should-retry says otherwise.
func shouldRetry(status int, h http.Header) bool {
	switch strings.ToLower(h.Get("x-should-retry")) {
	case "true":
		return true
	case "false":
		return false
	}
	return status == 408 || status == 409 || status == 429 || status >= 500
}

// statusReason is the short reason shown for a retried status.
func statusReason(e *APIError) string {
	switch {
	case e.Status == 429 || strings.Contains(e.Type, "rate_limit"):
		return "rate limited"
	case e.Status == 529 || strings.Contains(e.Type, "overloaded"):
		return "overloaded"
	case e.Status == 408:
		return "request timed out"
	case e.Status == 0:
		return "server error"
	}
	return "status " + strconv.Itoa(e.Status)
}

// backoff returns the wait before retry n (from 1): the provider's wait if
// it gave one, else 0.5 s × 2ⁿ⁻¹ up to 8 s less up to 25 % jitter; never
// more than MaxRetryWait.
func (t *transport) backoff(n int, asked time.Duration) time.Duration {
	wait := asked
	if wait <= 0 {
		wait = min(500*time.Millisecond<<min(n-1, 5), 8*time.Second)
		wait -= time.Duration(float64(wait) * 0.25 * t.jitter())
	}
	return min(wait, t.maxWait)
}

// sleepCtx waits for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
