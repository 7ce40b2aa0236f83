package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/internal/clip"
)

// errorFields is every shape of error body the providers and compatible
// servers use: {"error":{...}}, {"error":"..."}, {"message":...},
// {"detail":...}, with type, param and code at either level.
type errorFields struct {
	Error     json.RawMessage `json:"error"`
	Message   json.RawMessage `json:"message"`
	Detail    json.RawMessage `json:"detail"`
	Type      json.RawMessage `json:"type"`
	Param     json.RawMessage `json:"param"`
	Code      json.RawMessage `json:"code"`
	RequestID string          `json:"request_id"`
}

// parseAPIError builds the error for a refused request from its status,
// headers and body. It never fails: a body that is not JSON is described.
func parseAPIError(status int, h http.Header, data []byte, now time.Time) *APIError {
	e := &APIError{
		Status:     status,
		RetryAfter: retryAfter(h, now),
		RequestID:  firstHeader(h, "request-id", "x-request-id"),
	}
	fillError(e, data, 0)
	if e.Message == "" {
		e.Message = describeBody(status, h, data)
	}
	return e
}

// fillError reads an error body into e, following a nested "error" object.
func fillError(e *APIError, data []byte, depth int) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(data, &list) != nil || len(list) == 0 {
			return
		}
		data = list[0]
	}
	var f errorFields
	if json.Unmarshal(data, &f) != nil {
		return
	}
	if e.RequestID == "" {
		e.RequestID = f.RequestID
	}
	if t := jsonText(f.Type); t != "" && t != "error" {
		e.Type = t
	}
	setIfEmpty(&e.Param, jsonText(f.Param))
	setIfEmpty(&e.Code, jsonText(f.Code))
	if len(f.Error) > 0 && f.Error[0] == '{' {
		if depth < 3 {
			fillError(e, f.Error, depth+1)
		}
	} else {
		setIfEmpty(&e.Message, jsonText(f.Error))
	}
	setIfEmpty(&e.Message, jsonText(f.Message))
	setIfEmpty(&e.Message, jsonText(f.Detail))
}

func setIfEmpty(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// jsonText turns a JSON value into readable text: a string as it is, a
// number as written, an object or array as compact JSON, null as "".
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return ""
	}
	return clip.String(buf.String(), 500)
}

// describeBody says what came back when it was not an error object.
func describeBody(status int, h http.Header, data []byte) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return strings.ToLower(http.StatusText(status)) + " (empty body)"
	}
	if json.Valid(data) {
		return strings.ToLower(http.StatusText(status)) + ": " + clip.String(string(data), 200)
	}
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	if mt == "text/html" || bytes.HasPrefix(data, []byte("<")) {
		if title := htmlTitle(data); title != "" {
			return fmt.Sprintf("the server answered with an HTML page titled %q, not a JSON error; check BaseURL, or a proxy or gateway in between", title)
		}
		return "the server answered with an HTML page, not a JSON error; check BaseURL, or a proxy or gateway in between"
	}
	return fmt.Sprintf("the response is not JSON: %q", clip.String(string(data), 200))
}

func firstHeader(h http.Header, names ...string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// retryAfter reads retry-after-ms, then retry-after (seconds or an HTTP
// date). It returns 0 when neither says anything usable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("retry-after")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}

// redact removes the key from every text field of e.
func (e *APIError) redact(key string) {
	if key == "" {
		return
	}
	for _, s := range []*string{&e.Message, &e.Param, &e.Code, &e.Type} {
		*s = strings.ReplaceAll(*s, key, "[redacted]")
	}
}

// htmlTitle returns the text of an HTML page's title, or of its first
// heading, on one line; "" when it has neither.
func htmlTitle(page []byte) string {
	lower := bytes.ToLower(page)
	for _, tag := range []string{"title", "h1"} {
		start := bytes.Index(lower, []byte("<"+tag))
		if start < 0 {
			continue
		}
		open := bytes.IndexByte(lower[start:], '>')
		end := bytes.Index(lower[start:], []byte("</"+tag))
		if open < 0 || end < open {
			continue
		}
		text := html.UnescapeString(string(page[start+open+1 : start+end]))
		if text = strings.Join(strings.Fields(text), " "); text != "" {
			return clip.String(text, 120)
		}
	}
	return ""
}
