package llm

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sse builds a transcript from (event, data) pairs; an empty event name
// leaves the event line out, as OpenAI does.
func sseOf(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i] != "" {
			b.WriteString("event: " + pairs[i] + "\n")
		}
		b.WriteString("data: " + pairs[i+1] + "\n\n")
	}
	return b.String()
}

const (
	antStart   = `{"type":"message_start","message":{"id":"m","model":"x","usage":{"input_tokens":1}}}`
	evTool     = `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"tu_1","name":"search","input":{}}}`
	antArgs    = `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"q\": \"go"}}`
	antStopBlk = `{"type":"content_block_stop","index":0}`
	evDelta    = `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`
	antMaxTok  = `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":3}}`
	antEnd     = `{"type":"message_stop"}`
	oaiRole    = `{"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"}}]}`
	oaiCall    = `{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"search","arguments":"{\"q\":"}}]}}]}`
	oaiFinish  = `{"id":"c","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	oaiLength  = `{"id":"c","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`
)

func TestStreamBadInput(t *testing.T) {
	tests := []struct {
		name    string
		dialect string
		in      string
		want    string // in the error; "" means no error
		ended   bool   // the error wraps ErrStreamEnded
	}{
		{"an empty anthropic stream names message_start", "anthropic", "", "no message_start", true},
		{"an anthropic stream cut before the stop reason says so", "anthropic", sseOf("message_start", antStart), "no message_delta with a stop_reason", true},
		{"an anthropic tool call never stopped names the tool", "anthropic",
			sseOf("message_start", antStart, "content_block_start", evTool, "content_block_delta", antArgs, "message_delta", evDelta), `tool call "search"`, true},
		{"an anthropic event that is not JSON is an error", "anthropic", sseOf("message_start", "{oops"), `"message_start" stream event is not JSON`, false},
		{"an anthropic delta for a block never started is an error", "anthropic", sseOf("message_start", antStart, "content_block_delta", antArgs), "never started", false},
		{"a block start without a block is an error", "anthropic", sseOf("message_start", antStart, "content_block_start", `{"type":"content_block_start","index":0}`), "has no content_block", false},
		{"unknown anthropic events and fields are skipped", "anthropic",
			sseOf("message_start", antStart, "future", `{"type":"future","x":1}`, "ping", `{"type":"ping"}`, "message_delta", evDelta, "message_stop", antEnd), "", false},
		{"an anthropic stream ending after the stop reason is accepted", "anthropic", sseOf("message_start", antStart, "message_delta", evDelta), "", false},
		{"an error event without details still errs", "anthropic", sseOf("message_start", antStart, "error", `{"type":"error"}`), "without saying which", false},
		{"an empty openai stream names finish_reason and [DONE]", "openai", "", "no finish_reason and no [DONE]", true},
		{"an openai stream cut mid-reply says what is missing", "openai", sseOf("", oaiRole), "no finish_reason", true},
		{"an openai chunk that is not JSON is an error", "openai", sseOf("", "{nope"), "stream chunk is not JSON", false},
		{"an openai error given as a string is reported", "openai", sseOf("", `{"error":"model crashed"}`), "model crashed", false},
		{"an openai stream ending after finish_reason is accepted", "openai", sseOf("", oaiRole, "", oaiFinish), "", false},
		{"an openai stream with [DONE] but no finish_reason is accepted", "openai", sseOf("", oaiRole, "", "[DONE]"), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := replayStream(tt.dialect, []byte(tt.in))
			if tt.want == "" {
				if got.Error != "" || got.Response == nil {
					t.Fatalf("got error %q", got.Error)
				}
				return
			}
			if !strings.Contains(got.Error, tt.want) {
				t.Fatalf("got error %q, want %q", got.Error, tt.want)
			}
			_, err := decodeStream(strings.NewReader(tt.in), decoderFor(tt.dialect), func(Event) bool { return true })
			if errors.Is(err, ErrStreamEnded) != tt.ended {
				t.Fatalf("errors.Is(%v, ErrStreamEnded) = %v", err, !tt.ended)
			}
		})
	}
}

func TestStreamStopsWhenTheCallerDoes(t *testing.T) {
	data := sseOf("message_start", antStart, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}`,
		"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b"}}`)
	n := 0
	_, err := decodeStream(strings.NewReader(data), anthropicWire{}.decoder(), func(Event) bool { n++; return false })
	if err != errStopped || n != 1 {
		t.Fatalf("got %v after %d events", err, n)
	}
}

func TestWholeReplyBadInput(t *testing.T) {
	tests := []struct {
		name string
		d    dialect
		body string
		want string
	}{
		{"an anthropic reply that is not JSON", anthropicWire{}, "<html>502</html>", "not the JSON expected"},
		{"an openai reply that is not JSON", openaiWire{}, "Bad Gateway", `the response is not JSON: "Bad Gateway"`},
		{"an openai reply with no choices", openaiWire{}, `{"id":"x","choices":[]}`, "no choices"},
		{"an openai error sent with status 200", openaiWire{}, `{"error":{"message":"boom","type":"server_error"}}`, "server_error: boom"},
		{"an anthropic error sent with status 200", anthropicWire{}, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "overloaded_error: Overloaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a clear error", func(t *testing.T) {
			_, err := tt.d.decode([]byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestOpenAIWholeReply(t *testing.T) {
	body := `{"id":"r","model":"m","choices":[{"message":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hmm"}]},{"type":"text","text":"yes"}],
		"tool_calls":[{"id":"c","type":"function","function":{"name":"t","arguments":""}}]},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":10,"completion_tokens":4,"prompt_cache_hit_tokens":6,"completion_tokens_details":{"reasoning_tokens":2}}}`
	r, err := openaiWire{}.decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Parts) != 3 || r.Parts[0].Text != "hmm" || r.Text() != "yes" || string(r.Parts[2].Args) != "{}" {
		t.Fatalf("parts %+v", r.Parts)
	}
	if r.Stop != StopToolUse || r.RawStop != "stop" {
		t.Fatalf("stop %q raw %q", r.Stop, r.RawStop)
	}
	if (r.Usage != Usage{Input: 10, Output: 4, CacheRead: 6, Reasoning: 2}) {
		t.Fatalf("usage %+v", r.Usage)
	}
}

func TestParseAPIError(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		want   APIError
	}{
		{"anthropic's shape", 529, http.Header{"Request-Id": {"req_1"}},
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}`,
			APIError{Status: 529, Type: "overloaded_error", Message: "Overloaded", RequestID: "req_1"}},
		{"openai's shape", 400, http.Header{"X-Request-Id": {"abc"}},
			`{"error":{"message":"Unsupported parameter","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`,
			APIError{Status: 400, Type: "invalid_request_error", Message: "Unsupported parameter", Param: "max_tokens", Code: "unsupported_parameter", RequestID: "abc"}},
		{"a numeric code and null param", 429, nil, `{"error":{"message":"slow down","code":429,"param":null}}`,
			APIError{Status: 429, Message: "slow down", Code: "429"}},
		{"ollama's string error", 404, nil, `{"error":"model \"x\" not found, try pulling it first"}`,
			APIError{Status: 404, Message: `model "x" not found, try pulling it first`}},
		{"a fastapi detail", 422, nil, `{"detail":"Not Found"}`, APIError{Status: 422, Message: "Not Found"}},
		{"mistral's nested message", 422, nil, mistralBody,
			APIError{Status: 422, Type: "invalid_request_error", Message: `{"detail":[{"loc":["body","x"],"msg":"Extra inputs are not permitted"}]}`}},
		{"gemini's list", 400, nil, `[{"error":{"code":400,"message":"Invalid JSON payload","status":"INVALID_ARGUMENT"}}]`,
			APIError{Status: 400, Message: "Invalid JSON payload", Code: "400"}},
		{"an html page", 502, http.Header{"Content-Type": {"text/html"}}, "<html><body>Bad gateway</body></html>",
			APIError{Status: 502, Message: "the server answered with an HTML page, not a JSON error; check BaseURL, or a proxy or gateway in between"}},
		{"a gateway's html page says its title in one line", 502, http.Header{"Content-Type": {"text/html; charset=utf-8"}},
			"<!DOCTYPE html>\n<html><head>\n<TITLE>502 Bad Gateway\n - cloudflare &amp; co</TITLE></head><body><h1>Bad Gateway</h1>" + strings.Repeat("<p>lots of page</p>\n", 200) + "</body></html>",
			APIError{Status: 502, Message: `the server answered with an HTML page titled "502 Bad Gateway - cloudflare & co", not a JSON error; check BaseURL, or a proxy or gateway in between`}},
		{"an html page with only a heading", 504, nil, "<html><body><h1>Gateway Timeout</h1></body></html>",
			APIError{Status: 504, Message: `the server answered with an HTML page titled "Gateway Timeout", not a JSON error; check BaseURL, or a proxy or gateway in between`}},
		{"plain text", 500, nil, "upstream connect error", APIError{Status: 500, Message: `the response is not JSON: "upstream connect error"`}},
		{"an empty body", 503, nil, "", APIError{Status: 503, Message: "service unavailable (empty body)"}},
		{"retry-after-ms first", 429, http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"7"}}, `{}`,
			APIError{Status: 429, Message: "too many requests: {}", RetryAfter: 250 * time.Millisecond}},
		{"retry-after as a date", 429, http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, `{"error":{"message":"m"}}`,
			APIError{Status: 429, Message: "m", RetryAfter: 90 * time.Second}},
		{"a past date means no wait", 429, http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, `{"error":{"message":"m"}}`,
			APIError{Status: 429, Message: "m"}},
		{"a nonsense retry-after is ignored", 429, http.Header{"Retry-After": {"soon"}}, `{"error":{"message":"m"}}`,
			APIError{Status: 429, Message: "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is read", func(t *testing.T) {
			h := tt.header
			if h == nil {
				h = http.Header{}
			}
			got := parseAPIError(tt.status, h, []byte(tt.body), now)
			if *got != tt.want {
				t.Fatalf("got  %#v\nwant %#v", *got, tt.want)
			}
		})
	}
}

const mistralBody = `{"object":"error","message":{"detail":[{"loc":["body","x"],"msg":"Extra inputs are not permitted"}]},"type":"invalid_request_error","param":null,"code":null}`

func TestAPIErrorMessage(t *testing.T) {
	e := &APIError{Status: 400, Type: "invalid_request_error", Param: "max_tokens", Message: "no"}
	if got := e.Error(); got != "llm: status 400 invalid_request_error (param max_tokens): no" {
		t.Fatalf("got %q", got)
	}
}

func TestBackoffBounds(t *testing.T) {
	tr := &transport{maxWait: time.Minute}
	for _, tt := range []struct {
		jitter float64
		n      int
		want   time.Duration
	}{
		{0, 1, 500 * time.Millisecond},
		{0, 2, time.Second},
		{0, 5, 8 * time.Second},
		{0, 50, 8 * time.Second},
		{0.999999, 1, 375 * time.Millisecond},
		{0.999999, 5, 6 * time.Second},
	} {
		tr.jitter = func() float64 { return tt.jitter }
		got := tr.backoff(tt.n, 0).Round(time.Millisecond)
		if got != tt.want {
			t.Errorf("retry %d with jitter %v: %v, want %v", tt.n, tt.jitter, got, tt.want)
		}
	}
	tr.maxWait = time.Second
	if got := tr.backoff(5, 0); got != time.Second {
		t.Errorf("MaxRetryWait not applied: %v", got)
	}
	if got := tr.backoff(1, 30*time.Second); got != time.Second {
		t.Errorf("a provider's wait is not capped: %v", got)
	}
}

func TestWordIndex(t *testing.T) {
	for _, tt := range []struct {
		s, w string
		want int
	}{
		{"'max_tokens' is not supported", "max_tokens", 1},
		{"use max_completion_tokens", "max_tokens", -1},
		{"messages[0].role", "role", 12},
		{"top_p_extra top_p", "top_p", 12},
		{"", "x", -1},
	} {
		if got := wordIndex(tt.s, tt.w); got != tt.want {
			t.Errorf("wordIndex(%q, %q) = %d, want %d", tt.s, tt.w, got, tt.want)
		}
	}
}

func TestAnthropicToolInputGivenWhole(t *testing.T) {
	start := `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"tu_9","name":"read","input":{"path":"a.txt"}}}`
	got := replayStream("anthropic", []byte(sseOf("message_start", antStart, "content_block_start", start,
		"content_block_stop", antStopBlk, "message_delta", evDelta, "message_stop", antEnd)))
	if got.Error != "" || len(got.Response.Parts) != 1 || string(got.Response.Parts[0].Args) != `{"path":"a.txt"}` {
		t.Fatalf("got %+v", got)
	}
}

func TestCutOffArgumentsAreKeptAsText(t *testing.T) {
	tests := []struct {
		name    string
		dialect string
		in      string
		stop    StopReason
		text    string
	}{
		{"anthropic arguments cut off by max tokens", "anthropic",
			sseOf("message_start", antStart, "content_block_start", evTool, "content_block_delta", antArgs, "content_block_stop", antStopBlk, "message_delta", antMaxTok, "message_stop", antEnd),
			StopMaxTokens, `{"q": "go`},
		{"openai arguments cut off by max tokens", "openai", sseOf("", oaiCall, "", oaiLength, "", "[DONE]"), StopMaxTokens, `{"q":`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" are kept as text on a malformed call", func(t *testing.T) {
			resp, err := decodeStream(strings.NewReader(tt.in), decoderFor(tt.dialect), func(Event) bool { return true })
			if err != nil {
				t.Fatal(err)
			}
			calls := resp.ToolCalls()
			if resp.Stop != tt.stop || len(calls) != 1 || !calls[0].Malformed() || calls[0].Text != tt.text || calls[0].Name != "search" {
				t.Fatalf("got stop %q and calls %+v", resp.Stop, calls)
			}
		})
	}
	t.Run("a whole openai reply with arguments that are not JSON keeps them as text", func(t *testing.T) {
		resp, err := openaiWire{}.decode([]byte(`{"choices":[{"message":{"tool_calls":[{"id":"c1","type":"function","function":{"name":"run","arguments":"{\"a\":"}}]},"finish_reason":"tool_calls"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if c := resp.ToolCalls(); len(c) != 1 || !c[0].Malformed() || c[0].Text != `{"a":` {
			t.Fatalf("got %+v", c)
		}
	})
}
