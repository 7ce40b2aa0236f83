// Package fakemodel is the model the agent benchmarks talk to: an
// OpenAI-compatible Chat Completions endpoint that answers at once from
// fixed bytes, with no script and no record of requests, so that the time
// measured is the client's and the agent's. Until a conversation holds
// Steps tool results it calls the tool read_file; then it answers "done".
package fakemodel

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
)

// Handler answers POST /v1/chat/completions, whole or streamed as the
// request's "stream" field asks.
type Handler struct {
	Steps int
}

var (
	toolRole   = []byte(`"role":"tool"`)
	streamTrue = []byte(`"stream":true`)
)

func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	results := bytes.Count(body, toolRole)
	stream := bytes.Contains(body, streamTrue)
	var out []byte
	switch {
	case results >= h.Steps && stream:
		out = streamAnswer
	case results >= h.Steps:
		out = wholeAnswer
	case stream:
		out = fmt.Appendf(nil, streamCall, results, results)
	default:
		out = fmt.Appendf(nil, wholeCall, results, results)
	}
	if stream {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.Write(out)
}

// NewServer starts a loopback server that calls the tool steps times per
// conversation; its URL plus "/v1" is the OpenAI base URL.
func NewServer(steps int) *httptest.Server {
	return httptest.NewServer(Handler{Steps: steps})
}

const usage = `"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}`

const wholeCall = `{"id":"chatcmpl-1","object":"chat.completion","created":1731000000,"model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"src/file-%d.go\"}"}}]},"finish_reason":"tool_calls"}],` + usage + `}`

var wholeAnswer = []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1731000000,"model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],` + usage + `}`)

const chunk = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1731000000,"model":"test-model","choices":[`

const streamCall = chunk + `{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}

` + chunk + `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]},"finish_reason":null}]}

` + chunk + `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"src/file-%d.go\"}"}}]},"finish_reason":null}]}

` + chunk + `{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

` + chunk + `],` + usage + `}

data: [DONE]

`

var streamAnswer = []byte(chunk + `{"index":0,"delta":{"role":"assistant","content":"do"},"finish_reason":null}]}

` + chunk + `{"index":0,"delta":{"content":"ne"},"finish_reason":null}]}

` + chunk + `{"index":0,"delta":{},"finish_reason":"stop"}]}

` + chunk + `],` + usage + `}

data: [DONE]

`)
