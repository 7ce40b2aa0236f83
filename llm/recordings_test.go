package llm_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
)

// The recordings of real provider traffic that other projects published
// live outside the repository, beside it (see SOURCES.md there). Tests
// that replay them run only when they are present: BRIDLE_REALSTREAMS
// names the folder, else ../shared/realstreams/fixtures from the module
// root.
func recordings(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("BRIDLE_REALSTREAMS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "realstreams", "fixtures")
	}
	if _, err := os.Stat(filepath.Join(dir, "SOURCES.md")); err != nil {
		t.Skipf("no recordings of provider traffic at %s (set BRIDLE_REALSTREAMS)", dir)
	}
	return dir
}

// recorded is what replaying one recording gave.
type recorded struct {
	events []llm.Event
	resp   *llm.Response
	err    error
	client llm.Client
}

// replayRecording sends a request whose answer is the recording: a stream
// for *.sse and *.chunks.txt (one event per line, framed here as the
// provider frames it), a whole reply for *.json.
func replayRecording(t *testing.T, path string) recorded {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	d := llm.OpenAI
	if strings.HasPrefix(name, "anthropic-") && !strings.Contains(name, "openai-compat") {
		d = llm.Anthropic
	}
	whole := strings.HasSuffix(name, ".json")
	switch {
	case strings.HasSuffix(name, ".chunks.txt"):
		data = frame(d, data)
	case !whole && !bytes.HasSuffix(data, []byte("\n\n")):
		// Some stored streams lost the line ends after their last event,
		// which a live stream always has.
		data = append(bytes.TrimRight(data, "\n"), "\n\n"...)
	}
	ctype := "text/event-stream"
	if whole {
		ctype = "application/json"
	}
	rt := roundTrip(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ctype}},
			Body: io.NopCloser(bytes.NewReader(data)), Request: r}, nil
	})
	c, err := llm.New(llm.Config{Dialect: d, Model: "m", BaseURL: "https://recorded.example/v1",
		MaxRetries: -1, HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	out := recorded{client: c}
	if whole {
		out.resp, out.err = c.Send(context.Background(), ask("q"))
		return out
	}
	for ev, err := range c.Stream(context.Background(), ask("q")) {
		if err != nil {
			out.err = err
			break
		}
		if ev.Type == llm.EventDone {
			out.resp = ev.Response
			break
		}
		out.events = append(out.events, ev)
	}
	return out
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// frame turns one JSON event per line into server-sent events.
func frame(d llm.Dialect, lines []byte) []byte {
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(lines))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if d == llm.Anthropic {
			var head struct{ Type string }
			json.Unmarshal(line, &head)
			b.WriteString("event: " + head.Type + "\n")
		}
		b.WriteString("data: ")
		b.Write(line)
		b.WriteString("\n\n")
	}
	return b.Bytes()
}

// recordedText joins the reply text a recording holds, read here on its
// own: Anthropic text blocks and text_delta events, the content of OpenAI's
// first choice (a string, or Mistral's list of text parts).
func recordedText(t *testing.T, path string) string {
	data, _ := os.ReadFile(path)
	var b strings.Builder
	text := func(raw json.RawMessage) {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			b.WriteString(s)
			return
		}
		var parts []struct{ Type, Text string }
		json.Unmarshal(raw, &parts)
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
	}
	var events [][]byte
	if strings.HasSuffix(path, ".json") {
		events = [][]byte{data}
	} else {
		for _, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte("data:")))
			if len(line) > 0 && line[0] == '{' {
				events = append(events, line)
			}
		}
	}
	for _, ev := range events {
		var e struct {
			Type         string
			ContentBlock *struct{ Type, Text string } `json:"content_block"`
			Delta        *struct {
				Type    string
				Text    string
				Content json.RawMessage
			}
			Content []struct{ Type, Text string }
			Choices []struct {
				Index   int
				Delta   *struct{ Content, Refusal json.RawMessage }
				Message *struct{ Content, Refusal json.RawMessage }
			}
		}
		if err := json.Unmarshal(ev, &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch {
		case e.Type == "content_block_start" && e.ContentBlock.Type == "text":
			b.WriteString(e.ContentBlock.Text)
		case e.Type == "content_block_delta" && e.Delta.Type == "text_delta":
			b.WriteString(e.Delta.Text)
		case e.Type == "message" || strings.HasPrefix(filepath.Base(path), "anthropic-") && e.Type == "":
			for _, c := range e.Content {
				if c.Type == "text" {
					b.WriteString(c.Text)
				}
			}
		}
		for _, c := range e.Choices {
			switch {
			case c.Index != 0:
			case c.Delta != nil:
				text(c.Delta.Content)
				text(c.Delta.Refusal) // a refusal reads as the reply's text
			case c.Message != nil:
				text(c.Message.Content)
				text(c.Message.Refusal)
			}
		}
	}
	return b.String()
}

// check is a fact a recording holds about its reply.
type check func(t *testing.T, r recorded)

func wantStop(stop llm.StopReason) check {
	return func(t *testing.T, r recorded) {
		if r.resp.Stop != stop {
			t.Errorf("stop %q (%q), want %q", r.resp.Stop, r.resp.RawStop, stop)
		}
	}
}

func wantUsage(u llm.Usage) check {
	return func(t *testing.T, r recorded) {
		if r.resp.Usage != u {
			t.Errorf("usage %+v, want %+v", r.resp.Usage, u)
		}
	}
}

// recordingErrors are the recordings that end in an error, and what it
// says.
var recordingErrors = map[string]string{
	"anthropic-midstream-api-error.sse":          "stream error api_error: Internal server error",
	"anthropic-overloaded-first-event.sse":       "stream error overloaded_error: Overloaded",
	"openai-first-chunk-error.sse":               "stream error server_error: The server had an error",
	"openrouter-processing-comments-excerpt.sse": "no finish_reason and no [DONE]", // the excerpt is cut short
}

// wantParts checks the reply's parts kind by kind: "text", "thinking",
// "call:NAME", "provider:TYPE".
func wantParts(kinds ...string) check {
	return func(t *testing.T, r recorded) {
		var got []string
		for _, p := range r.resp.Parts {
			switch p.Type {
			case llm.PartToolCall:
				got = append(got, "call:"+p.Name)
			case llm.PartProvider:
				var head struct{ Type string }
				json.Unmarshal(p.Raw, &head)
				got = append(got, "provider:"+head.Type)
			default:
				got = append(got, string(p.Type))
			}
		}
		if strings.Join(got, " ") != strings.Join(kinds, " ") {
			t.Errorf("parts %v, want %v", got, kinds)
		}
	}
}

func wantCitations(n int, url string) check {
	return func(t *testing.T, r recorded) {
		var all []llm.Citation
		for _, p := range r.resp.Parts {
			all = append(all, p.Citations...)
		}
		if len(all) != n || (n > 0 && all[0].URL != url) || (n > 0 && all[0].Raw == nil) {
			t.Errorf("%d citations, the first %+v; want %d from %s", len(all), all, n, url)
		}
	}
}

func wantCall(name, raw, args string) check {
	return func(t *testing.T, r recorded) {
		for _, p := range r.resp.ToolCalls() {
			if p.Name == name && strings.Contains(string(p.Raw), raw) && strings.HasPrefix(string(p.Args)+p.Text, args) {
				return
			}
		}
		t.Errorf("no call of %s with %q in its provider data and arguments starting %q: %+v", name, raw, args, r.resp.ToolCalls())
	}
}

var recordingFacts = map[string][]check{
	"anthropic-sdk-incomplete_partial_json_response.sse": {wantStop(llm.StopMaxTokens),
		wantParts("text", "call:make_file"), wantCall("make_file", "", `{"filename": "taxes.txt", "lines_of_text": [`),
		func(t *testing.T, r recorded) {
			if c := r.resp.ToolCalls()[0]; !c.Malformed() {
				t.Errorf("the cut call %+v is not marked malformed", c)
			}
		}},
	"xai-tool-call.chunks.txt":            {wantUsage(llm.Usage{Input: 291, Output: 26 + 196, CacheRead: 290, Reasoning: 196})},
	"xai-tool-call.json":                  {wantUsage(llm.Usage{Input: 291, Output: 26 + 189, CacheRead: 244, Reasoning: 189})},
	"xai-text.chunks.txt":                 {wantUsage(llm.Usage{Input: 12, Output: 1 + 290, CacheRead: 11, Reasoning: 290})},
	"azure-model-router.chunks.txt":       {wantUsage(llm.Usage{Input: 15, Output: 78, Reasoning: 64})},
	"gemini3-openai-compat-tool-call.sse": {wantStop(llm.StopToolUse), wantCall("task", `"thought_signature":"Eo4GCosG==="`, "{}")},
	"anthropic-web-search.chunks.txt": {wantCitations(14, "https://www.apple.com/newsroom/2025/09/the-all-new-apple-ginza-opens-this-friday-september-26-in-tokyo/"),
		func(t *testing.T, r recorded) {
			wantParts(append([]string{"provider:server_tool_use", "provider:web_search_tool_result"}, repeat("text", 19)...)...)(t, r)
		}},
	"anthropic-web-search.json": {wantParts(append([]string{"provider:server_tool_use", "provider:web_search_tool_result", "text", "provider:server_tool_use", "provider:web_search_tool_result"}, repeat("text", 7)...)...)},
	"anthropic-code-execution.chunks.txt": {wantParts("text", "provider:server_tool_use", "provider:text_editor_code_execution_tool_result", "text", "provider:server_tool_use", "provider:bash_code_execution_tool_result", "text"), func(t *testing.T, r recorded) {
		if r.resp.Container != "container_011CU6pTr2hLT47seQ5Xs4yj" {
			t.Errorf("container %q", r.resp.Container)
		}
	}},
	"anthropic-compaction.chunks.txt": {wantParts("provider:compaction", "text"), func(t *testing.T, r recorded) {
		var c struct{ Content string }
		json.Unmarshal(r.resp.Parts[0].Raw, &c)
		if !strings.HasPrefix(c.Content, "## Summary of Conversation") {
			t.Errorf("compaction content %.80q", c.Content)
		}
	}},
	"anthropic-mcp.chunks.txt": {wantParts("provider:mcp_tool_use", "provider:mcp_tool_result", "text"), func(t *testing.T, r recorded) {
		if !strings.Contains(string(r.resp.Parts[0].Raw), `"input":{"message":"hello world"}`) {
			t.Errorf("mcp_tool_use %s lacks its streamed input", r.resp.Parts[0].Raw)
		}
	}},
	"anthropic-tool-search-step1.chunks.txt":       {wantCall("readNoteTree", `"caller"`, `{"noteId"`)},
	"anthropic-tool-search-step2.chunks.txt":       {wantParts("provider:tool_search_tool_result", "text", "call:executeEditorOperation")},
	"perplexity-citations.chunks.txt":              {wantCitations(7, "https://populationstat.com/united-states/san-francisco")},
	"perplexity-citations.json":                    {wantCitations(7, "https://populationstat.com/united-states/san-francisco")},
	"openai-parallel-tool-calls.sse":               {wantParts("call:GetWeatherArgs", "call:get_stock_price")},
	"openai-refusal.sse":                           {wantStop(llm.StopRefusal)},
	"openai-length.sse":                            {wantStop(llm.StopMaxTokens)},
	"deepseek-text.chunks.txt":                     {wantStop(llm.StopMaxTokens)},
	"deepseek-tool-call.chunks.txt":                {wantParts("thinking", "call:weather"), wantUsage(llm.Usage{Input: 339, Output: 83, CacheRead: 320, Reasoning: 39})},
	"ollama-tool-call-log.sse":                     {wantCall("run_command", "", `{"command":"ls -a"}`)},
	"mistral-glm-incremental-tool-call.chunks.txt": {wantCall("webSearchTool", "", `{"query": "current Berlin weather"}`)},
	"anthropic-openai-compat-tool-call.sse":        {wantParts("text", "call:read_file")},
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestRecordedProviderTrafficReplays(t *testing.T) {
	dir := recordings(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	seen := 0
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasSuffix(name, ".md") {
			continue
		}
		seen++
		t.Run(name, func(t *testing.T) {
			r := replayRecording(t, f)
			facts := recordingFacts[name]
			if want, ok := recordingErrors[name]; ok || r.err != nil {
				if r.err == nil || !strings.Contains(r.err.Error(), want) || !ok {
					t.Fatalf("err %v, want one saying %q", r.err, want)
				}
				return
			}
			for _, c := range facts {
				c(t, r)
			}
			if got, want := r.resp.Text(), recordedText(t, f); got != want {
				t.Errorf("text %.200q\nwant %.200q", got, want)
			}
			if !strings.HasSuffix(name, ".json") {
				var calls []string
				var text strings.Builder
				for _, ev := range r.events {
					switch ev.Type {
					case llm.EventToolCall:
						calls = append(calls, ev.Part.ID)
					case llm.EventText:
						text.WriteString(ev.Text)
					}
				}
				var want []string
				for _, c := range r.resp.ToolCalls() {
					want = append(want, c.ID)
				}
				if strings.Join(calls, " ") != strings.Join(want, " ") {
					t.Errorf("tool call events for %v, the reply has %v", calls, want)
				}
				if text.String() != r.resp.Text() {
					t.Errorf("text events %.100q differ from the reply %.100q", text.String(), r.resp.Text())
				}
			}
			sendBack(t, r)
		})
	}
	if seen < 50 {
		t.Fatalf("%d recordings in %s; SOURCES.md lists more", seen, dir)
	}
}

// sendBack sends the reply back to the same client, as the next turn does,
// and checks that every provider block and citation goes with it.
func sendBack(t *testing.T, r recorded) {
	var provider []json.RawMessage
	for _, p := range r.resp.Parts {
		if p.Type == llm.PartProvider {
			provider = append(provider, p.Raw)
		}
		for _, c := range p.Citations {
			provider = append(provider, c.Raw)
		}
	}
	if len(provider) == 0 || !strings.HasPrefix(r.resp.Parts[0].Origin+r.resp.Parts[len(r.resp.Parts)-1].Origin, "anthropic:") {
		return // only Anthropic takes provider data back as it came
	}
	var body []byte
	capture := roundTrip(func(req *http.Request) (*http.Response, error) {
		body, _ = io.ReadAll(req.Body)
		return &http.Response{StatusCode: 400, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{}`)), Request: req}, nil
	})
	c, _ := llm.New(llm.Config{Dialect: llm.Anthropic, Model: "m", BaseURL: "https://recorded.example/v1",
		MaxRetries: -1, HTTPClient: &http.Client{Transport: capture}})
	req := ask("q")
	msg := r.resp.Message()
	msg.Parts = slicesDeleteCalls(msg.Parts)
	req.Messages = append(req.Messages, msg, llm.UserText("go on"))
	c.Send(context.Background(), req)
	var sent struct {
		Messages []struct{ Content []json.RawMessage }
	}
	json.Unmarshal(body, &sent)
	var all []any
	for _, b := range sent.Messages[1].Content {
		var m map[string]json.RawMessage
		json.Unmarshal(b, &m)
		all = append(all, mustJSON(json.RawMessage(b)))
		var cites []json.RawMessage
		json.Unmarshal(m["citations"], &cites)
		for _, c := range cites {
			all = append(all, mustJSON(c))
		}
	}
	for _, raw := range provider {
		found := false
		for _, a := range all {
			if jsonEqual(json.RawMessage(a.(string)), string(raw)) {
				found = true
			}
		}
		if !found {
			t.Errorf("%.120s did not go back", raw)
		}
	}
}

// slicesDeleteCalls leaves out tool calls, which would need results.
func slicesDeleteCalls(parts []llm.Part) []llm.Part {
	var out []llm.Part
	for _, p := range parts {
		if p.Type != llm.PartToolCall {
			out = append(out, p)
		}
	}
	return out
}
