package llmtest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// event is one server-sent event as a client sees it.
type event struct {
	name string
	data string
}

// readSSE parses a server-sent event stream, returning the events read and
// the error that ended it, if any.
func readSSE(r io.Reader) ([]event, error) {
	var evs []event
	var cur event
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" {
				evs = append(evs, cur)
			}
			cur = event{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return evs, sc.Err()
}

// path returns the route of a dialect.
func path(d llm.Dialect) string {
	if d == llm.Anthropic {
		return "/v1/messages"
	}
	return "/v1/chat/completions"
}

// post sends body to the dialect's route of srv.
func post(t *testing.T, srv *llmtest.Server, d llm.Dialect, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path(d), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// simple returns a minimal valid request body of the dialect.
func simple(d llm.Dialect, stream bool) string {
	s := "false"
	if stream {
		s = "true"
	}
	if d == llm.Anthropic {
		return `{"model":"claude-test","max_tokens":100,"stream":` + s + `,"messages":[{"role":"user","content":"hi"}]}`
	}
	return `{"model":"gpt-test","stream":` + s + `,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
}

// decode reads a whole JSON answer into a generic value.
func decode(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	var v map[string]any
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("the body is not JSON: %v\n%s", err, b)
	}
	return v
}

// get walks a decoded JSON value by keys and indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// jsonOf decodes one event's data.
func jsonOf(t *testing.T, data string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.NewDecoder(bytes.NewReader([]byte(data))).Decode(&v); err != nil {
		t.Fatalf("event data is not JSON: %v\n%s", err, data)
	}
	return v
}

// srvClient returns a client that reaches srv in memory.
func srvClient(srv *llmtest.Server) *http.Client {
	return &http.Client{Transport: srv.Transport()}
}
