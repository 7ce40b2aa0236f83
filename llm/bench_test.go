package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// answerSize is the text of the streamed answer decoded by the benchmarks.
const answerSize = 1 << 20

// pieces splits an answer into deltas of a few words, as models stream.
func pieces(size int) []string {
	words := strings.Fields("the quick brown fox jumps over the lazy dog while the model keeps writing, \"quoted\" and é")
	var out []string
	var b strings.Builder
	for n, i := 0, 0; n < size; i++ {
		b.WriteString(words[i%len(words)])
		b.WriteByte(' ')
		if i%4 == 3 {
			out = append(out, b.String())
			n += b.Len()
			b.Reset()
		}
	}
	return out
}

func anthropicTranscript(size int) ([]byte, int) {
	var b bytes.Buffer
	b.WriteString(sseOf("message_start", antStart,
		"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	ps := pieces(size)
	for _, p := range ps {
		text, _ := json.Marshal(p)
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%s}}\n\n", text)
	}
	b.WriteString(sseOf("content_block_stop", antStopBlk, "message_delta", evDelta, "message_stop", antEnd))
	return b.Bytes(), len(ps) + 5
}

func openaiTranscript(size int) ([]byte, int) {
	var b bytes.Buffer
	ps := pieces(size)
	for _, p := range ps {
		text, _ := json.Marshal(p)
		fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-AbC123\",\"object\":\"chat.completion.chunk\",\"created\":1731000000,\"model\":\"gpt-5.5\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", text)
	}
	b.WriteString(sseOf("", oaiFinish, "", `{"id":"c","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":300000}}`, "", "[DONE]"))
	return b.Bytes(), len(ps) + 3
}

func BenchmarkDecodeStream(b *testing.B) {
	for _, bc := range []struct {
		name string
		make func(int) ([]byte, int)
		dec  func() streamDecoder
	}{
		{"anthropic", anthropicTranscript, anthropicWire{}.decoder},
		{"openai", openaiTranscript, openaiWire{}.decoder},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data, events := bc.make(answerSize)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				resp, err := decodeStream(bytes.NewReader(data), bc.dec(), func(Event) bool { return true })
				if err != nil || len(resp.Text()) < answerSize {
					b.Fatalf("decoded %d bytes: %v", len(resp.Text()), err)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/float64(events), "allocs/event")
			b.ReportMetric(float64(events), "events/op")
		})
	}
}

// history is a 200-message agent conversation: questions, tool calls with
// their results, and answers.
func history() *Request {
	req := &Request{System: strings.Repeat("You are a careful assistant. ", 40)}
	for i := range 10 {
		req.Tools = append(req.Tools, ToolSpec{Name: fmt.Sprintf("tool_%d", i), Description: "Does something useful with a path.",
			Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"A relative path."}},"required":["path"]}`)})
	}
	for i := 0; len(req.Messages) < 200; i++ {
		id := fmt.Sprintf("call_%03d", i)
		req.Messages = append(req.Messages,
			UserText(fmt.Sprintf("Question %d: what does the file <src/%d.go> do? Explain \"briefly\".", i, i)),
			Message{Role: Assistant, Parts: []Part{Text("Let me read it."), ToolCall(id, "tool_1", json.RawMessage(`{"path":"src/file.go"}`))}},
			Message{Role: User, Parts: []Part{ToolResult(id, strings.Repeat("package main\n\nfunc main() {}\n", 20), false)}},
			Message{Role: Assistant, Parts: []Part{Text(strings.Repeat("It declares an empty main function. ", 5))}},
		)
	}
	return req
}

func BenchmarkBuildRequest(b *testing.B) {
	req := history()
	for _, d := range []Dialect{Anthropic, OpenAI} {
		b.Run(string(d)+"/200-messages", func(b *testing.B) {
			c, err := New(Config{Dialect: d, Model: "m"})
			if err != nil {
				b.Fatal(err)
			}
			t := transportOf(c)
			call, _ := t.prepare(req, true)
			b.SetBytes(int64(len(call.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := t.prepare(req, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// transportOf returns the transport behind a client from New.
func transportOf(c Client) *transport {
	return c.(*client).t
}
