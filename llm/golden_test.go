package llm

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// replay is what decoding a transcript gives: the events the caller saw,
// then the whole reply or the error.
type replay struct {
	Events   []replayEvent `json:"events"`
	Response *Response     `json:"response,omitempty"`
	Error    string        `json:"error,omitempty"`
}

type replayEvent struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	Part *Part  `json:"part,omitempty"`
}

var eventNames = map[EventType]string{EventText: "text", EventThinking: "thinking",
	EventToolStart: "tool_start", EventToolCall: "tool_call", EventDone: "done"}

func decoderFor(name string) streamDecoder {
	if strings.HasPrefix(name, "anthropic") {
		return anthropicWire{}.decoder()
	}
	return openaiWire{}.decoder()
}

func replayStream(name string, data []byte) replay {
	var out replay
	resp, err := decodeStream(bytes.NewReader(data), decoderFor(name), func(ev Event) bool {
		re := replayEvent{Type: eventNames[ev.Type], Text: ev.Text}
		if ev.Part.Type != "" {
			p := ev.Part
			re.Part = &p
		}
		out.Events = append(out.Events, re)
		return true
	})
	out.Response = resp
	if err != nil {
		out.Error = err.Error()
	}
	return out
}

func TestGoldenTranscripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.sse")
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".sse")
		t.Run(name+" decodes as recorded", func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(replayStream(name, data), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(file, ".sse") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("decoded differently from %s:\n%s", golden, got)
			}
		})
	}
}
