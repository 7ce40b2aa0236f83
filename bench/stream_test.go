package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/bridle-dev/bridle/llm"
	"github.com/openai/openai-go/v3"
	openaioption "github.com/openai/openai-go/v3/option"
)

// The stream benchmarks decode the same streamed answer, 1 MiB of text
// in deltas of four words, in each dialect: Bridle's llm client against
// the official SDKs, github.com/anthropics/anthropic-sdk-go/v2 and
// github.com/openai/openai-go/v3. A loopback server sends the same
// precomputed SSE bytes to each; MB/s counts those bytes. Each client
// builds the whole reply, as an agent needs it: Bridle's Stream always
// does (its EventDone carries the Response); for the SDKs that is their
// accumulator (anthropic.Message.Accumulate, openai.ChatCompletionAccumulator),
// and the "-events" rows only read the events.

const answerSize = 1 << 20

// deltas splits an answer of size bytes into deltas of four words.
func deltas(size int) []string {
	words := strings.Fields(`the quick brown fox jumps over the lazy dog while the model keeps writing, "quoted" and é`)
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

func anthropicSSE(size int) []byte {
	var b bytes.Buffer
	event := func(name, data string) { fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, data) }
	event("message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}`)
	event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	for _, d := range deltas(size) {
		text, _ := json.Marshal(d)
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(text)+`}}`)
	}
	event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":300000}}`)
	event("message_stop", `{"type":"message_stop"}`)
	return b.Bytes()
}

func openaiSSE(size int) []byte {
	var b bytes.Buffer
	const head = `{"id":"chatcmpl-01","object":"chat.completion.chunk","created":1731000000,"model":"gpt-test","choices":[`
	fmt.Fprintf(&b, "data: %s{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n", head)
	for _, d := range deltas(size) {
		text, _ := json.Marshal(d)
		fmt.Fprintf(&b, "data: %s{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", head, text)
	}
	fmt.Fprintf(&b, "data: %s{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n", head)
	fmt.Fprintf(&b, "data: %s],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":300000,\"total_tokens\":300010}}\n\n", head)
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// sseServer answers every POST with body as an event stream.
func sseServer(body []byte) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body)
	}))
}

func BenchmarkStreamDecode(b *testing.B) {
	ctx := context.Background()
	type decoder struct {
		name   string
		decode func(url string) (int, error) // the length of the text decoded
	}
	bridle := func(d llm.Dialect, base string) func(string) (int, error) {
		return func(url string) (int, error) {
			c, err := llm.New(llm.Config{Dialect: d, BaseURL: url + base, Model: "test-model", APIKey: "test-key", HTTPClient: http.DefaultClient})
			if err != nil {
				return 0, err
			}
			resp, err := llm.Collect(c.Stream(ctx, &llm.Request{Messages: []llm.Message{llm.UserText("go")}}))
			if err != nil {
				return 0, err
			}
			return len(resp.Text()), nil
		}
	}
	anthropicSDK := func(accumulate bool) func(string) (int, error) {
		return func(url string) (int, error) {
			c := anthropic.NewClient(anthropicoption.WithBaseURL(url), anthropicoption.WithAPIKey("test-key"), anthropicoption.WithHTTPClient(http.DefaultClient), anthropicoption.WithMaxRetries(0))
			stream := c.Messages.NewStreaming(ctx, anthropic.MessageNewParams{
				Model: "claude-test", MaxTokens: 4096,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("go"))},
			})
			defer stream.Close()
			var msg anthropic.Message
			n := 0
			for stream.Next() {
				ev := stream.Current()
				if accumulate {
					if err := msg.Accumulate(ev); err != nil {
						return 0, err
					}
				} else if ev.Type == "content_block_delta" {
					n += len(ev.Delta.Text)
				}
			}
			if err := stream.Err(); err != nil {
				return 0, err
			}
			if accumulate && len(msg.Content) > 0 {
				n = len(msg.Content[0].Text)
			}
			return n, nil
		}
	}
	openaiSDK := func(accumulate bool) func(string) (int, error) {
		return func(url string) (int, error) {
			c := openai.NewClient(openaioption.WithBaseURL(url+"/v1"), openaioption.WithAPIKey("test-key"), openaioption.WithHTTPClient(http.DefaultClient), openaioption.WithMaxRetries(0))
			stream := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
				Model:    "gpt-test",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("go")},
			})
			defer stream.Close()
			var acc openai.ChatCompletionAccumulator
			n := 0
			for stream.Next() {
				chunk := stream.Current()
				if accumulate {
					acc.AddChunk(chunk)
				} else if len(chunk.Choices) > 0 {
					n += len(chunk.Choices[0].Delta.Content)
				}
			}
			if err := stream.Err(); err != nil {
				return 0, err
			}
			if accumulate && len(acc.Choices) > 0 {
				n = len(acc.Choices[0].Message.Content)
			}
			return n, nil
		}
	}
	for _, dialect := range []struct {
		name     string
		body     []byte
		decoders []decoder
	}{
		{"anthropic", anthropicSSE(answerSize), []decoder{
			{"bridle", bridle(llm.Anthropic, "")},
			{"anthropic-sdk-go", anthropicSDK(true)},
			{"anthropic-sdk-go-events", anthropicSDK(false)},
		}},
		{"openai", openaiSSE(answerSize), []decoder{
			{"bridle", bridle(llm.OpenAI, "/v1")},
			{"openai-go", openaiSDK(true)},
			{"openai-go-events", openaiSDK(false)},
		}},
	} {
		srv := sseServer(dialect.body)
		want := len(strings.Join(deltas(answerSize), ""))
		for _, d := range dialect.decoders {
			b.Run(dialect.name+"/"+d.name, func(b *testing.B) {
				b.SetBytes(int64(len(dialect.body)))
				b.ReportAllocs()
				for b.Loop() {
					n, err := d.decode(srv.URL)
					if err != nil {
						b.Fatal(err)
					}
					if n != want {
						b.Fatalf("decoded %d bytes of text, want %d", n, want)
					}
				}
			})
		}
		srv.Close()
	}
}
