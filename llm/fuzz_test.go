package llm

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func seedTranscripts(f *testing.F, prefix string) {
	files, _ := filepath.Glob("testdata/" + prefix + "*.sse")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
}

func FuzzAnthropicStream(f *testing.F) {
	seedTranscripts(f, "anthropic")
	f.Add([]byte(sseOf("message_start", antStart, "content_block_start", evTool, "content_block_delta", antArgs)))
	f.Fuzz(func(t *testing.T, data []byte) { checkStream(t, anthropicWire{}.decoder(), data) })
}

func FuzzOpenAIStream(f *testing.F) {
	seedTranscripts(f, "openai")
	f.Add([]byte(sseOf("", oaiCall, "", oaiLength, "", "[DONE]")))
	f.Fuzz(func(t *testing.T, data []byte) { checkStream(t, openaiWire{}.decoder(), data) })
}

// checkStream decodes data and checks what any decoder promises: no panic,
// a reply or an error but not both, a reply that encodes as JSON, and text
// and thinking events that add up to the reply's parts.
func checkStream(t *testing.T, d streamDecoder, data []byte) {
	var text, thinking strings.Builder
	resp, err := decodeStream(bytes.NewReader(data), d, func(ev Event) bool {
		switch ev.Type {
		case EventText:
			text.WriteString(ev.Text)
		case EventThinking:
			thinking.WriteString(ev.Text)
		case EventToolCall:
			if !ev.Part.Malformed() && !json.Valid(ev.Part.Args) {
				t.Fatalf("a tool call event with arguments that are not JSON: %q", ev.Part.Args)
			}
		}
		return true
	})
	if (err == nil) == (resp == nil) {
		t.Fatalf("reply %v and error %v", resp, err)
	}
	if err != nil {
		return
	}
	if _, err := json.Marshal(resp); err != nil {
		t.Fatalf("the reply does not encode: %v", err)
	}
	if got := resp.Text(); got != text.String() {
		t.Fatalf("reply text %q, streamed %q", got, text.String())
	}
	var th strings.Builder
	for _, p := range resp.Parts {
		if p.Type == PartThinking {
			th.WriteString(p.Text)
		}
	}
	if th.String() != thinking.String() {
		t.Fatalf("reply thinking %q, streamed %q", th.String(), thinking.String())
	}
}
