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

// wireFor returns the dialect a transcript is in, by its name, with an
// origin so that provider data shows where it came from.
func wireFor(name string) dialect {
	if strings.HasPrefix(name, "anthropic") {
		return anthropicWire{from: "anthropic:test"}
	}
	return openaiWire{from: "openai:test"}
}

func decoderFor(name string) streamDecoder { return wireFor(name).decoder() }

func replayWhole(name string, data []byte) replay {
	var out replay
	resp, err := wireFor(name).decode(data)
	out.Response = resp
	if err != nil {
		out.Error = err.Error()
	}
	return out
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
	streams, _ := filepath.Glob("testdata/*.sse")
	wholes, _ := filepath.Glob("testdata/*.reply.json")
	if len(streams) == 0 || len(wholes) == 0 {
		t.Fatal("no transcripts in testdata")
	}
	for _, file := range append(streams, wholes...) {
		ext := ".sse"
		if strings.HasSuffix(file, ".reply.json") {
			ext = ".reply.json"
		}
		name := strings.TrimSuffix(filepath.Base(file), ext)
		t.Run(name+ext+" decodes as recorded", func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			r := replayStream(name, data)
			if ext != ".sse" {
				r = replayWhole(name, data)
			}
			got, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(file, ".sse") // name.reply.json → name.reply.golden.json
			golden = strings.TrimSuffix(golden, ".json") + ".golden.json"
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
