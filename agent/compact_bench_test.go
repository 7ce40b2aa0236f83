package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
)

// sessionOf returns a conversation of n steps shaped like
// BenchmarkHistoryMemory's: each a sentence and a tool call with a path,
// answered by a two-line result.
func sessionOf(n int) []llm.Message {
	h := make([]llm.Message, 0, 2*n+2)
	h = append(h, llm.UserText("read every file"))
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("toolu_%06d", i)
		args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("src/file-%d.go", i)})
		h = append(h,
			llm.Message{Role: llm.Assistant, Parts: []llm.Part{llm.Text(fmt.Sprintf("Let me read file %d.", i)), llm.ToolCall(id, "read_file", args)}},
			llm.Message{Role: llm.User, Parts: []llm.Part{llm.ToolResult(id, fmt.Sprintf("package main\n// src/file-%d.go\n", i), false)}})
	}
	return append(h, llm.Message{Role: llm.Assistant, Parts: []llm.Part{llm.Text("All files read.")}})
}

// summariser is an Anthropic client whose server answers every request,
// from memory, with a summary of about 1,500 bytes: a compaction's request
// is encoded, sent and its reply decoded as with a real provider.
func summariser(b *testing.B) llm.Client {
	summary := strings.Repeat("Files src/file-N.go were read; each is a main package. ", 27)
	body := fmt.Sprintf(`{"id":"msg","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":%q}],"stop_reason":"end_turn","usage":{"input_tokens":30000,"output_tokens":400}}`, summary)
	rt := roundTripper(func(r *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	client, err := llm.New(llm.Config{Dialect: llm.Anthropic, BaseURL: "http://model.invalid", Model: "m", APIKey: "k", HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		b.Fatal(err)
	}
	return client
}

// BenchmarkCompaction measures compacting a 1,000-step session: the agent
// choosing the cut, the summary request encoded and its reply decoded by
// the real Anthropic client (the model's answer comes from memory), and
// the history replaced. B/before and B/after are the heap the agent holds
// for the session before and after one compaction.
func BenchmarkCompaction(b *testing.B) {
	const steps = 1000
	h := sessionOf(steps)
	client := summariser(b)
	read := Options{ContextWindow: 200_000, MaxTokens: 8192}

	b.Run("step", func(b *testing.B) {
		b.ReportAllocs()
		a := New(client, &read)
		for b.Loop() {
			b.StopTimer()
			if err := a.SetHistory(h); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			c, err := a.Compact(context.Background())
			if err != nil || c.Messages < steps {
				b.Fatalf("Compact = %+v, %v", c, err)
			}
		}
	})

	b.Run("memory", func(b *testing.B) {
		var before, after uint64
		var kept int
		for b.Loop() {
			var m0, m1, m2 runtime.MemStats
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&m0)
			a := New(client, &read)
			if err := a.SetHistory(h); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&m1)
			if _, err := a.Compact(context.Background()); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			runtime.GC() // a second time empties the pools the request's encoding used
			runtime.ReadMemStats(&m2)
			before, after = m1.HeapAlloc-m0.HeapAlloc, m2.HeapAlloc-m0.HeapAlloc
			kept = len(a.History())
			runtime.KeepAlive(a)
		}
		b.ReportMetric(float64(before), "B/before")
		b.ReportMetric(float64(after), "B/after")
		b.ReportMetric(float64(kept), "messages/after")
	})
}
