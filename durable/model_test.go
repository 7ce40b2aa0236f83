package durable_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// model is a scripted model for runs whose text is "<tool> <key>": it
// calls tool with that key, then answers with what the call returned.
type model struct {
	srv *llmtest.Server

	mu    sync.Mutex
	seen  int            // requests the script answered
	asked map[string]int // key → requests
	held  holds          // key → the next answer after a result
}

func newModel(t *testing.T) *model {
	m := &model{asked: map[string]int{}}
	m.srv = llmtest.NewServer(m.answer)
	t.Cleanup(func() {
		m.srv.Close()
	})
	return m
}

func (m *model) answer(req *llmtest.Request) llmtest.Reply {
	first := req.Messages[0].Text()
	tool, key, _ := strings.Cut(first, " ")
	results := req.LastToolResults()
	m.mu.Lock()
	m.seen++
	m.asked[key]++
	var held <-chan struct{}
	if len(results) > 0 {
		held = m.held.take(key)
	}
	m.mu.Unlock()
	if held != nil {
		<-held
	}
	if len(results) == 0 {
		return llmtest.Reply{Text: "Let me " + tool + ".", Calls: []llmtest.Call{{ID: "call-" + key, Name: tool, Args: `{"key":"` + key + `"}`}}}
	}
	return llmtest.Reply{Text: "finished: " + results[0].Text}
}

// holdAnswer holds the model's answer after the tool result of the run
// for key, and returns a channel closed when that request arrives.
func (m *model) holdAnswer(t *testing.T, key string) (arrived <-chan struct{}, release func()) {
	return m.held.add(t, key)
}

func (m *model) requests(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.asked[key]
}

// allValid fails t unless the server refused no request: llmtest refuses
// a malformed conversation before the script sees it.
func (m *model) allValid(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	seen := m.seen
	m.mu.Unlock()
	if n := len(m.srv.Requests()); n != seen {
		t.Errorf("the model server received %d requests and refused %d of them as malformed", n, n-seen)
	}
}

// config is the client configuration for the model.
func (m *model) config() llm.Config { return m.srv.Config(llm.Anthropic) }
