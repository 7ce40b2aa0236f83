package llm

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/internal/jsonobj"
	"github.com/bridle-dev/bridle/internal/sse"
)

// openaiDecoder assembles a Chat Completions stream: text, reasoning
// (reasoning_content or reasoning, as compatible servers name it), tool
// calls from fragments keyed by index, and the usage chunk. Choices other
// than the first and fields it does not know are ignored.
type openaiDecoder struct {
	origin       string
	chunk        oaiChunk // reused for each event
	id, model    string
	text         []byte
	thinking     []byte
	refused      bool
	calls        []*oaiStreamCall
	finishReason string
	usage        *oaiUsage
	done         bool // [DONE] arrived
	callsSent    bool
	annotations  []Citation
	sources      oaiSources // Perplexity's, from the last chunk with any
}

type oaiStreamCall struct {
	index   int
	id      string
	name    string
	args    []byte
	extra   json.RawMessage
	started bool
}

type (
	// oaiChunkHead is read until the stream has given its id and model,
	// which every chunk repeats.
	oaiChunkHead struct {
		ID    string `json:"id"`
		Model string `json:"model"`
	}
	oaiChunk struct {
		Choices []oaiChunkChoice `json:"choices"`
		Usage   *oaiUsage        `json:"usage"`
		Error   json.RawMessage  `json:"error"`
		oaiSources
	}
	oaiChunkChoice struct {
		Index        int           `json:"index"`
		Delta        oaiChunkDelta `json:"delta"`
		FinishReason string        `json:"finish_reason"`
	}
	oaiChunkDelta struct {
		Content          oaiContent        `json:"content"`
		ReasoningContent string            `json:"reasoning_content"`
		Reasoning        oaiContent        `json:"reasoning"`
		Refusal          string            `json:"refusal"`
		ToolCalls        []json.RawMessage `json:"tool_calls"`
		Annotations      []json.RawMessage `json:"annotations"`
	}
	oaiToolDelta struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
)

func (d *openaiDecoder) complete() bool { return d.done }

func (d *openaiDecoder) event(ev sse.Event, emit func(Event) bool) error {
	if ev.Data == "[DONE]" {
		d.done = true
		return d.sendCalls(emit) // when no finish_reason did
	}
	data := []byte(ev.Data)
	// Unmarshal decodes into kept slice elements without zeroing them.
	choices := d.chunk.Choices[:cap(d.chunk.Choices)]
	clear(choices)
	d.chunk = oaiChunk{Choices: choices[:0]}
	c := &d.chunk
	if err := json.Unmarshal(data, c); err != nil {
		return fmt.Errorf("llm: a stream chunk is not JSON: %w: %q", err, clip.String(ev.Data, 200))
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return streamError(append(append([]byte(`{"error":`), c.Error...), '}'))
	}
	if d.id == "" || d.model == "" {
		var h oaiChunkHead
		json.Unmarshal(data, &h) // valid: it was just decoded
		d.id, d.model = cmp.Or(d.id, h.ID), cmp.Or(d.model, h.Model)
	}
	if c.Usage != nil {
		d.usage = c.Usage
	}
	if len(c.Citations) > 0 || len(c.SearchResults) > 0 {
		d.sources = c.oaiSources
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if err := d.delta(ch.Delta, emit); err != nil {
			return err
		}
		if ch.FinishReason != "" {
			d.finishReason = ch.FinishReason
			if err := d.sendCalls(emit); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *openaiDecoder) delta(dl oaiChunkDelta, emit func(Event) bool) error {
	text, thinking := dl.Content.text, dl.Content.thinking
	thinking = dl.ReasoningContent + thinking + dl.Reasoning.text
	if dl.Refusal != "" {
		d.refused = true
		text += dl.Refusal
	}
	if thinking != "" {
		d.thinking = append(d.thinking, thinking...)
		if !emit(Event{Type: EventThinking, Text: thinking}) {
			return errStopped
		}
	}
	if text != "" {
		d.text = append(d.text, text...)
		if !emit(Event{Type: EventText, Text: text}) {
			return errStopped
		}
	}
	d.annotations = append(d.annotations, oaiAnnotations(dl.Annotations)...)
	for _, raw := range dl.ToolCalls {
		if err := d.toolDelta(raw, emit); err != nil {
			return err
		}
	}
	return nil
}

func (d *openaiDecoder) toolDelta(raw json.RawMessage, emit func(Event) bool) error {
	var td oaiToolDelta
	if err := json.Unmarshal(raw, &td); err != nil {
		return fmt.Errorf("llm: a streamed tool call is not the JSON expected: %w: %q", err, clip.String(string(raw), 200))
	}
	c := d.callFor(td)
	if x := jsonobj.Rest(raw, oaiToolCallFields...); x != nil {
		c.extra = x
	}
	if td.ID != "" {
		c.id = td.ID
	}
	if c.name == "" {
		c.name = td.Function.Name
	}
	c.args = append(c.args, td.Function.Arguments...)
	if c.started || c.name == "" {
		return nil
	}
	c.started = true
	return emitOrStop(emit, Event{Type: EventToolStart, Part: Part{Type: PartToolCall, ID: c.id, Name: c.name}})
}

// callFor finds the call a fragment belongs to: by index, or the last one
// when a server sends no index. A fragment with a new id starts a new call
// even at a used index, as some servers number every call 0.
func (d *openaiDecoder) callFor(td oaiToolDelta) *oaiStreamCall {
	var c *oaiStreamCall
	switch {
	case td.Index != nil:
		for _, x := range d.calls {
			if x.index == *td.Index {
				c = x
			}
		}
	case len(d.calls) > 0:
		c = d.calls[len(d.calls)-1]
	}
	if c != nil && td.ID != "" && c.id != "" && td.ID != c.id {
		c = nil
	}
	if c == nil {
		c = &oaiStreamCall{index: len(d.calls)}
		if td.Index != nil {
			c.index = *td.Index
		}
		d.calls = append(d.calls, c)
	}
	return c
}

// sendCalls passes on the calls once the model has finished them.
func (d *openaiDecoder) sendCalls(emit func(Event) bool) error {
	if d.callsSent {
		return nil
	}
	d.callsSent = true
	for _, c := range d.calls {
		if err := emitOrStop(emit, Event{Type: EventToolCall, Part: c.part(d.origin)}); err != nil {
			return err
		}
	}
	return nil
}

func (d *openaiDecoder) finish() (*Response, error) {
	if d.finishReason == "" && !d.done {
		return nil, streamEnded("no finish_reason and no [DONE]")
	}
	out := &Response{ID: d.id, Model: d.model, RawStop: d.finishReason, Usage: d.usage.normalise()}
	out.Stop = oaiStop(d.finishReason, len(d.calls) > 0, d.refused)
	if d.finishReason == "" && out.Stop == StopOther {
		out.Stop = StopEnd // [DONE] without a finish_reason, as some servers do
	}
	cites := append(d.annotations, d.sources.citations()...)
	out.Parts = oaiParts(string(d.thinking), string(d.text), cites, d.origin)
	for _, c := range d.calls {
		out.Parts = append(out.Parts, c.part(d.origin))
	}
	return out, nil
}

func (c *oaiStreamCall) part(origin string) Part {
	return oaiToolPart(c.id, c.name, c.args, c.extra, origin)
}

// oaiContent is message content: a string, null, or a list of parts (see
// contentText). Decoding a string directly saves copying it first.
type oaiContent struct{ text, thinking string }

func (c *oaiContent) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		return json.Unmarshal(b, &c.text)
	case len(b) > 0 && b[0] == '[':
		c.text, c.thinking = contentText(b)
	}
	return nil
}
