package llm

import (
	"encoding/json"
	"fmt"

	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/internal/jsonobj"
	"github.com/bridle-dev/bridle/internal/sse"
)

// anthropicDecoder assembles a Messages API stream. Blocks of types it does
// not model become provider parts (see [PartProvider]), assembled from their
// input_json_delta and compaction_delta events. Event types it does not
// know, and other delta types, are skipped, as Anthropic's versioning policy
// asks of clients.
type anthropicDecoder struct {
	origin  string
	ev      antEvent // reused for each event
	delta   antDelta
	resp    Response
	usage   antUsage
	blocks  []*antStreamBlock
	started bool // message_start arrived
	stopped bool // message_stop arrived
}

// antStreamBlock is a content block being assembled.
type antStreamBlock struct {
	index  int
	typ    string
	id     string
	name   string
	text   []byte // text, thinking, or tool input JSON
	sig    []byte
	data   string
	whole  bool // the tool input came whole in content_block_start
	closed bool
	raw    json.RawMessage // the block as content_block_start gave it
	cites  []Citation
	// input and content say which field of a provider block its deltas
	// assembled in text.
	input, content bool
}

// antEvent is every field a stream event can carry.
type antEvent struct {
	Type         name            `json:"type"`
	Index        int             `json:"index"`
	Message      *antResponse    `json:"message"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        *antDelta       `json:"delta"`
	Usage        *antDeltaUsage  `json:"usage"`
	Error        json.RawMessage `json:"error"`
}

type antDelta struct {
	Type        name            `json:"type"`
	Text        string          `json:"text"`
	Thinking    string          `json:"thinking"`
	Signature   string          `json:"signature"`
	PartialJSON string          `json:"partial_json"`
	StopReason  string          `json:"stop_reason"`
	Content     string          `json:"content"`  // compaction_delta
	Citation    json.RawMessage `json:"citation"` // citations_delta
	Container   *antContainer   `json:"container"`
}

// antDeltaUsage holds the figures message_delta may update; absent ones
// stay nil.
type antDeltaUsage struct {
	InputTokens   *int `json:"input_tokens"`
	OutputTokens  *int `json:"output_tokens"`
	CacheCreation *int `json:"cache_creation_input_tokens"`
	CacheRead     *int `json:"cache_read_input_tokens"`
}

func (d *anthropicDecoder) complete() bool { return d.stopped }

func (d *anthropicDecoder) event(ev sse.Event, emit func(Event) bool) error {
	d.ev, d.delta = antEvent{Delta: &d.delta}, antDelta{}
	e := &d.ev
	if err := json.Unmarshal([]byte(ev.Data), e); err != nil {
		return fmt.Errorf("llm: a %q stream event is not JSON: %w", ev.Event, err)
	}
	if e.Type == "" {
		e.Type = name(ev.Event)
	}
	switch e.Type {
	case "message_start":
		d.start(e.Message)
	case "content_block_start":
		return d.blockStart(*e, emit)
	case "content_block_delta":
		return d.blockDelta(*e, emit)
	case "content_block_stop":
		return d.blockStop(e.Index, emit)
	case "message_delta":
		d.messageDelta(*e)
	case "message_stop":
		d.stopped = true
		return d.closeCut(emit)
	case "error":
		return streamError(e.Error)
	}
	return nil // ping and event types added later
}

func (d *anthropicDecoder) start(m *antResponse) {
	d.started = true
	if m == nil {
		return
	}
	d.resp.ID, d.resp.Model = m.ID, m.Model
	d.usage = m.Usage
	if m.Container != nil {
		d.resp.Container = m.Container.ID
	}
}

func (d *anthropicDecoder) blockStart(e antEvent, emit func(Event) bool) error {
	if len(e.ContentBlock) == 0 || string(e.ContentBlock) == "null" {
		return fmt.Errorf("llm: content_block_start %d has no content_block", e.Index)
	}
	cb := &antRespBlock{}
	if err := json.Unmarshal(e.ContentBlock, cb); err != nil {
		return fmt.Errorf("llm: content_block_start %d: %w", e.Index, err)
	}
	b := &antStreamBlock{index: e.Index, typ: cb.Type, id: cb.ID, name: cb.Name, data: cb.Data,
		cites: antCitations(cb.Citations)}
	if !antModelled[cb.Type] || cb.Type == "tool_use" {
		b.raw = e.ContentBlock
	}
	b.text = append(b.text, cb.Text...)
	b.text = append(b.text, cb.Thinking...)
	if cb.Type == "tool_use" && len(cb.Input) > 2 {
		// Input given whole at the start (by proxies), not as deltas.
		b.text = append(b.text, cb.Input...)
		b.whole = true
	}
	b.sig = append(b.sig, cb.Signature...)
	d.blocks = append(d.blocks, b)
	switch {
	case cb.Type == "tool_use":
		return emitOrStop(emit, Event{Type: EventToolStart, Part: Part{Type: PartToolCall, ID: cb.ID, Name: cb.Name}})
	case cb.Type == "text" && cb.Text != "":
		return emitOrStop(emit, Event{Type: EventText, Text: cb.Text})
	case cb.Type == "thinking" && cb.Thinking != "":
		return emitOrStop(emit, Event{Type: EventThinking, Text: cb.Thinking})
	}
	return nil
}

func (d *anthropicDecoder) block(index int) (*antStreamBlock, error) {
	for i := len(d.blocks) - 1; i >= 0; i-- {
		if d.blocks[i].index == index {
			return d.blocks[i], nil
		}
	}
	return nil, fmt.Errorf("llm: stream event for content block %d, which never started", index)
}

func (d *anthropicDecoder) blockDelta(e antEvent, emit func(Event) bool) error {
	b, err := d.block(e.Index)
	if err != nil {
		return err
	}
	if e.Delta == nil {
		return nil
	}
	if !antModelled[b.typ] {
		b.provider(e.Delta)
		return nil
	}
	if !deltaFits[string(e.Delta.Type)][b.typ] {
		return nil // a delta of a kind the block does not take is skipped
	}
	switch e.Delta.Type {
	case "text_delta":
		b.text = append(b.text, e.Delta.Text...)
		return emitOrStop(emit, Event{Type: EventText, Text: e.Delta.Text})
	case "thinking_delta":
		b.text = append(b.text, e.Delta.Thinking...)
		return emitOrStop(emit, Event{Type: EventThinking, Text: e.Delta.Thinking})
	case "signature_delta":
		b.sig = append(b.sig, e.Delta.Signature...)
	case "citations_delta":
		b.cites = append(b.cites, antCitations([]json.RawMessage{e.Delta.Citation})...)
	case "input_json_delta":
		if b.whole {
			b.text, b.whole = b.text[:0], false
		}
		b.text = append(b.text, e.Delta.PartialJSON...)
	}
	return nil
}

// deltaFits says which block types take which delta types.
var deltaFits = map[string]map[string]bool{
	"text_delta":       {"text": true},
	"thinking_delta":   {"thinking": true},
	"signature_delta":  {"thinking": true},
	"input_json_delta": {"tool_use": true},
	"citations_delta":  {"text": true},
}

// antModelled are the block types that become parts of their own kind;
// any other becomes a provider part.
var antModelled = map[string]bool{"text": true, "thinking": true, "redacted_thinking": true, "tool_use": true}

// provider assembles a delta of a provider block: input JSON (server
// tools, MCP tool use) or content text (compaction).
func (b *antStreamBlock) provider(dl *antDelta) {
	switch dl.Type {
	case "input_json_delta":
		b.input = true
		b.text = append(b.text, dl.PartialJSON...)
	case "compaction_delta":
		b.content = true
		b.text = append(b.text, dl.Content...)
	}
}

// closeCut ends the tool calls a reply cut off (at max_tokens, with no
// content_block_stop): after message_stop the reply is complete, and a
// cut call is returned as malformed with the JSON received.
func (d *anthropicDecoder) closeCut(emit func(Event) bool) error {
	for _, b := range d.blocks {
		if b.typ == "tool_use" && !b.closed {
			if err := d.blockStop(b.index, emit); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *anthropicDecoder) blockStop(index int, emit func(Event) bool) error {
	b, err := d.block(index)
	if err != nil {
		return err
	}
	b.closed = true
	if b.typ != "tool_use" {
		return nil
	}
	return emitOrStop(emit, Event{Type: EventToolCall, Part: b.call(d.origin)})
}

func (d *anthropicDecoder) messageDelta(e antEvent) {
	if e.Delta != nil && e.Delta.StopReason != "" {
		d.resp.RawStop = e.Delta.StopReason
	}
	if e.Delta != nil && e.Delta.Container != nil {
		d.resp.Container = e.Delta.Container.ID
	}
	if u := e.Usage; u != nil {
		setIfPresent(&d.usage.InputTokens, u.InputTokens)
		setIfPresent(&d.usage.OutputTokens, u.OutputTokens)
		setIfPresent(&d.usage.CacheCreation, u.CacheCreation)
		setIfPresent(&d.usage.CacheRead, u.CacheRead)
	}
}

func setIfPresent(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}

func (d *anthropicDecoder) finish() (*Response, error) {
	switch {
	case !d.started:
		return nil, streamEnded("no message_start event")
	case d.resp.RawStop == "":
		return nil, streamEnded("no message_delta with a stop_reason")
	}
	out := d.resp
	out.Stop = antStop(out.RawStop)
	out.Usage = d.usage.normalise()
	for _, b := range d.blocks {
		p, ok, err := b.part(d.origin)
		if err != nil {
			return nil, err
		}
		if ok {
			out.Parts = append(out.Parts, p)
		}
	}
	return &out, nil
}

// part returns the assembled block as a Part.
func (b *antStreamBlock) part(origin string) (Part, bool, error) {
	switch b.typ {
	case "text":
		return citedPart(string(b.text), b.cites, origin), true, nil
	case "thinking":
		return Thinking(string(b.text), string(b.sig)), true, nil
	case "redacted_thinking":
		return RedactedThinking(b.data), true, nil
	case "tool_use":
		if !b.closed {
			return Part{}, false, streamEnded("tool call %q (%s): no content_block_stop, and no message_stop to end the reply", b.name, b.id)
		}
		return b.call(origin), true, nil
	}
	if !b.closed {
		return Part{}, false, nil // cut short: not whole enough to send back
	}
	raw, err := b.assembled()
	if err != nil {
		return Part{}, false, fmt.Errorf("llm: %s block %d: %w", b.typ, b.index, err)
	}
	return Provider(origin, raw), true, nil
}

// call returns a tool_use block as a tool call, with the provider's own
// fields kept.
func (b *antStreamBlock) call(origin string) Part {
	p := wireCall(b.id, b.name, b.text)
	if p.Raw = jsonobj.Rest(b.raw, antToolUseFields...); p.Raw != nil {
		p.Origin = origin
	}
	return p
}

// assembled returns a provider block as content_block_start gave it, with
// the input or content its deltas carried.
func (b *antStreamBlock) assembled() (json.RawMessage, error) {
	if !b.input && !b.content {
		return b.raw, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b.raw, &m); err != nil {
		return nil, err
	}
	if b.input {
		input := b.text
		if len(input) == 0 {
			input = []byte("{}")
		}
		if !json.Valid(input) {
			return nil, fmt.Errorf("its input is not JSON: %q", clip.String(string(input), 100))
		}
		m["input"] = input
	}
	if b.content {
		m["content"], _ = jsonobj.Marshal(string(b.text))
	}
	return jsonobj.Marshal(m)
}

// streamError reads an error event's payload.
func streamError(raw json.RawMessage) error {
	e := &APIError{}
	fillError(e, raw, 0)
	if e.Message == "" && e.Type == "" {
		e.Message = "the stream reported an error without saying which"
	}
	return e
}

func emitOrStop(emit func(Event) bool, ev Event) error {
	if !emit(ev) {
		return errStopped
	}
	return nil
}

// name is a JSON string holding a type name. Known names decode without
// allocating, which matters when every event of a stream carries two.
type name string

// knownNames maps the quoted JSON of each known name to the name.
var knownNames = func() map[string]name {
	m := map[string]name{}
	for _, n := range []string{"message_start", "message_delta", "message_stop", "content_block_start",
		"content_block_delta", "content_block_stop", "ping", "error", "text_delta", "thinking_delta",
		"signature_delta", "input_json_delta", "citations_delta", "compaction_delta", "assistant", "function"} {
		m[`"`+n+`"`] = name(n)
	}
	return m
}()

func (n *name) UnmarshalJSON(b []byte) error {
	if known, ok := knownNames[string(b)]; ok {
		*n = known
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*n = name(s)
	return nil
}
