package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/internal/jsonobj"
	"github.com/google/jsonschema-go/jsonschema"
)

// Output asks for a reply that is one JSON value matching a schema.
//
// OpenAI-compatible servers get response_format {"type": "json_schema"};
// Anthropic gets output_config.format {"type": "json_schema"}. When a
// server or model refuses that (a 400 naming the parameter), the request is
// repaired like any other: the schema becomes a tool named "output" that
// the model must call, and the client turns that call back into the
// reply's text, so the reply reads the same either way: its text is the
// JSON (text the model wrote beside the call is streamed but left out of
// the Response). The repair is remembered for the model. [Decode] reads the reply
// into a Go value; [Structured] does both.
type Output struct {
	// Name names the schema to the model ("weather_report"); empty means
	// "output". Letters, digits, _ and - only.
	Name string
	// Description tells the model what the value is for; it may be empty.
	Description string
	// Schema is the JSON Schema the reply must match: an object schema.
	// Required.
	Schema json.RawMessage
}

// outputTool names the tool a refused Output becomes.
const outputTool = "output"

// OutputFor returns an [Output] whose schema is inferred from T, as
// tool.New infers a tool's: fields named by their json tags, a
// `jsonschema:"..."` tag the field's description, fields without omitempty
// required. It panics when T has no usable schema, a programming error.
func OutputFor[T any](name, description string) *Output {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("llm.OutputFor: cannot infer a schema from %s: %v", reflect.TypeFor[T](), err))
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("llm.OutputFor: %v", err))
	}
	return &Output{Name: name, Description: description, Schema: raw}
}

// OutputError reports a reply that is not the JSON asked for: not JSON,
// not matching the schema, cut off, or refused. Text is what the model
// wrote, whole.
type OutputError struct {
	// Text is the reply's text as the model wrote it.
	Text string
	// Stop is why the reply ended.
	Stop StopReason
	// Err says what is wrong with Text.
	Err error
}

// Error says what is wrong with the reply and quotes its start.
func (e *OutputError) Error() string {
	why := e.Err.Error()
	switch e.Stop {
	case StopMaxTokens:
		why = "the reply was cut off at the token limit (raise MaxTokens): " + why
	case StopRefusal:
		why = "the model refused: " + why
	}
	return fmt.Sprintf("llm: the model's answer does not match the schema asked for: %s; it wrote: %q", why, clip.String(e.Text, 300))
}

// Unwrap returns what is wrong with the text.
func (e *OutputError) Unwrap() error { return e.Err }

// Decode reads the reply's text as a JSON value of type T and checks it
// against T's schema (inferred as [OutputFor] does). A fenced code block
// around the JSON is accepted. A reply that does not match is an
// [*OutputError] holding the raw text.
func Decode[T any](resp *Response) (T, error) {
	var out T
	if resp == nil {
		return out, fmt.Errorf("llm.Decode: nil response")
	}
	text := resp.Text()
	fail := func(err error) (T, error) {
		var zero T
		return zero, &OutputError{Text: text, Stop: resp.Stop, Err: err}
	}
	data := unfence(text)
	if len(data) == 0 {
		return fail(fmt.Errorf("the reply has no text"))
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return fail(fmt.Errorf("not JSON: %v", err))
	}
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return out, fmt.Errorf("llm.Decode: cannot infer a schema from %s: %v", reflect.TypeFor[T](), err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return out, fmt.Errorf("llm.Decode: the schema of %s does not resolve: %v", reflect.TypeFor[T](), err)
	}
	if err := rs.Validate(v); err != nil {
		return fail(err)
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return fail(err)
	}
	return out, nil
}

// Structured asks c for a reply that is a T: it sends req with Output set
// from T (name "output" unless req.Output names one) and decodes the reply
// with [Decode]. The response is returned too, for its usage and to keep in
// the conversation, also when the reply does not match.
func Structured[T any](ctx context.Context, c Client, req *Request) (T, *Response, error) {
	var zero T
	if req == nil {
		return zero, nil, fmt.Errorf("llm.Structured: nil request")
	}
	r := *req
	name, desc := "", ""
	if req.Output != nil {
		name, desc = req.Output.Name, req.Output.Description
	}
	r.Output = OutputFor[T](name, desc)
	resp, err := c.Send(ctx, &r)
	if err != nil {
		return zero, nil, err
	}
	v, err := Decode[T](resp)
	return v, resp, err
}

// unfence returns text without surrounding space and without a Markdown
// code fence around it.
func unfence(text string) []byte {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "```") && strings.HasSuffix(t, "```") && len(t) >= 6 {
		t = strings.TrimSuffix(t[3:], "```")
		if i := strings.IndexByte(t, '\n'); i >= 0 && !strings.ContainsAny(t[:i], "{[\"") {
			t = t[i+1:] // the info string: ```json
		}
		t = strings.TrimSpace(t)
	}
	return []byte(t)
}

// checkOutput refuses an Output without a schema that is a JSON object.
func checkOutput(o *Output) error {
	if o == nil {
		return nil
	}
	s := bytes.TrimSpace(o.Schema)
	if len(s) == 0 || s[0] != '{' || !json.Valid(s) {
		return fmt.Errorf("llm: Request.Output %q has no schema, or one that is not a JSON object; set Schema, or use llm.OutputFor", cmp.Or(o.Name, outputTool))
	}
	return nil
}

// outputAsTool reports whether p is the call of the tool a refused Output
// became, for req.
func outputAsTool(req *Request, p Part) bool {
	if req.Output == nil || p.Type != PartToolCall || p.Name != outputTool {
		return false
	}
	for _, t := range req.Tools {
		if t.Name == outputTool {
			return false
		}
	}
	return true
}

// unwrapOutput turns the call of the output tool back into the reply's
// text, so that a structured reply reads the same whatever the server
// supports: the JSON becomes the reply's only text, and what the model
// wrote beside the call is left out.
func unwrapOutput(req *Request, resp *Response) {
	if req.Output == nil || !slices.ContainsFunc(resp.Parts, func(p Part) bool { return outputAsTool(req, p) }) {
		return
	}
	parts := resp.Parts[:0]
	calls := 0
	for _, p := range resp.Parts {
		switch {
		case outputAsTool(req, p):
			p = Text(cmp.Or(string(p.Args), p.Text))
		case p.Type == PartText:
			continue
		case p.Type == PartToolCall:
			calls++
		}
		parts = append(parts, p)
	}
	resp.Parts = parts
	if calls == 0 && resp.Stop == StopToolUse {
		resp.Stop = StopEnd
	}
}

// Repairs for an Output a server refuses: the schema becomes a tool the
// model must call.
var (
	ruleOutputConfig = &repairRule{name: "output_config → tool output", param: "output_config",
		aliases: []string{"output_format", "output format", "structured output"}, anyRefusal: true,
		apply: func(b body) bool { return outputToTool(b, Anthropic) }}
	ruleResponseFormat = &repairRule{name: "response_format → tool output", param: "response_format",
		aliases: []string{"json_schema"}, anyRefusal: true,
		apply: func(b body) bool { return outputToTool(b, OpenAI) }}
)

// outputToTool moves the schema of output_config (Anthropic) or
// response_format (OpenAI) into a tool named "output" and forces its call.
func outputToTool(b body, d Dialect) bool {
	var schema, desc json.RawMessage
	if d == Anthropic {
		var oc struct {
			Format struct {
				Type   string          `json:"type"`
				Schema json.RawMessage `json:"schema"`
			} `json:"format"`
		}
		if json.Unmarshal(b["output_config"], &oc) != nil || oc.Format.Type != "json_schema" {
			return false
		}
		schema = oc.Format.Schema
		delete(b, "output_config")
	} else {
		var rf struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Description string          `json:"description"`
				Schema      json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		}
		if json.Unmarshal(b["response_format"], &rf) != nil || rf.Type != "json_schema" {
			return false
		}
		schema = rf.JSONSchema.Schema
		desc, _ = jsonobj.Marshal(rf.JSONSchema.Description)
		delete(b, "response_format")
	}
	if len(desc) == 0 || string(desc) == `""` {
		desc, _ = jsonobj.Marshal("Give the answer: call this with it.")
	}
	var tools []json.RawMessage
	json.Unmarshal(b["tools"], &tools)
	var tool, choice json.RawMessage
	if d == Anthropic {
		tool, _ = jsonobj.Marshal(map[string]json.RawMessage{"name": json.RawMessage(`"output"`), "description": desc, "input_schema": schema})
		choice = json.RawMessage(`{"type":"tool","name":"output"}`)
		if _, thinking := b["thinking"]; thinking {
			// Claude refuses a forced tool with thinking on.
			choice = json.RawMessage(`{"type":"auto"}`)
		}
	} else {
		tool, _ = jsonobj.Marshal(map[string]any{"type": "function", "function": map[string]json.RawMessage{
			"name": json.RawMessage(`"output"`), "description": desc, "parameters": schema}})
		choice = json.RawMessage(`{"type":"function","function":{"name":"output"}}`)
	}
	b["tools"], _ = jsonobj.Marshal(append(tools, tool))
	b["tool_choice"] = choice
	return true
}
