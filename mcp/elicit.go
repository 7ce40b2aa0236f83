package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ElicitAction is how the person answered an elicitation.
type ElicitAction string

// The answers to an elicitation.
const (
	// ElicitAccept sends the form's content, or agrees to the URL.
	ElicitAccept ElicitAction = "accept"
	// ElicitDecline says no.
	ElicitDecline ElicitAction = "decline"
	// ElicitCancel dismisses the question without an answer.
	ElicitCancel ElicitAction = "cancel"
)

// An ElicitRequest is a server asking the person something in the middle
// of a call: to fill in a form (Fields), or to visit a URL (URL). Every
// string in it comes from the server: make it inert before showing it.
type ElicitRequest struct {
	// Server is the session's name.
	Server string
	// Message says what the server wants and why.
	Message string
	// Fields is the form, in the order the server gave; empty for a URL.
	Fields []ElicitField
	// URL is the page the server asks the person to visit (URL mode); it
	// has passed [CheckURL].
	URL string
	// ID identifies a URL elicitation, for the server's notice that it is
	// complete.
	ID string
}

// An ElicitField is one field of an elicitation form.
type ElicitField struct {
	Name        string
	Title       string
	Description string
	// Type is "string", "number", "integer", "boolean", or "array" for a
	// choice of several of Choices.
	Type string
	// Format is a string's format: "email", "uri", "date", "date-time",
	// or "".
	Format string
	// Choices are the allowed values, each with its title; empty for a
	// free field.
	Choices []ElicitChoice
	// Default is the value the server suggests, or nil. Fields left out of
	// an accepted answer get it.
	Default  any
	Required bool
	// Min and Max bound a number, a string's length, or the number of
	// choices; nil means no bound.
	Min, Max *float64
}

// An ElicitChoice is one allowed value of a field, with the title to show.
type ElicitChoice struct {
	Value string
	Title string
}

// ElicitResult is the person's answer to an elicitation.
type ElicitResult struct {
	Action ElicitAction
	// Content holds the form's values by field name when Action is
	// [ElicitAccept]; nil otherwise, and for a URL.
	Content map[string]any
}

// Elicitor answers a server's elicitation, usually by asking the person.
// It is called on the goroutine of the call that the server is answering;
// it should return when ctx ends.
type Elicitor func(ctx context.Context, r *ElicitRequest) (ElicitResult, error)

// elicitHandler adapts an Elicitor to the SDK's handler.
func elicitHandler(name string, e Elicitor) func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		p := req.Params
		r := &ElicitRequest{Server: name, Message: p.Message, URL: p.URL, ID: p.ElicitationID}
		if p.Mode == "url" || (p.Mode == "" && p.URL != "") {
			if err := CheckURL(p.URL); err != nil {
				return nil, fmt.Errorf("elicitation URL refused: %w", err)
			}
		} else {
			fields, err := elicitFields(p.RequestedSchema)
			if err != nil {
				return nil, err
			}
			r.Fields = fields
		}
		res, err := e(ctx, r)
		if err != nil {
			return nil, err
		}
		switch res.Action {
		case ElicitAccept:
			if r.URL != "" {
				return &sdk.ElicitResult{Action: string(ElicitAccept)}, nil
			}
			return &sdk.ElicitResult{Action: string(ElicitAccept), Content: withDefaults(r.Fields, res.Content)}, nil
		case ElicitDecline, ElicitCancel:
			return &sdk.ElicitResult{Action: string(res.Action)}, nil
		}
		return nil, fmt.Errorf("elicitation answer %q: use ElicitAccept, ElicitDecline or ElicitCancel", res.Action)
	}
}

// withDefaults returns content with each missing field that has a default
// set to it (SEP-1034).
func withDefaults(fields []ElicitField, content map[string]any) map[string]any {
	out := make(map[string]any, len(fields))
	for k, v := range content {
		out[k] = v
	}
	for _, f := range fields {
		if _, ok := out[f.Name]; !ok && f.Default != nil {
			out[f.Name] = f.Default
		}
	}
	return out
}

// elicitFields reads a form's flat schema, keeping the properties' order.
func elicitFields(schema any) ([]ElicitField, error) {
	if schema == nil {
		return nil, nil
	}
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("elicitation schema: %w", err)
	}
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("elicitation schema is not an object: %w", err)
	}
	names, err := objectKeys(s.Properties)
	if err != nil {
		return nil, fmt.Errorf("elicitation schema properties: %w", err)
	}
	var props map[string]fieldSchema
	if len(names) > 0 {
		if err := json.Unmarshal(s.Properties, &props); err != nil {
			return nil, fmt.Errorf("elicitation schema properties: %w", err)
		}
	}
	fields := make([]ElicitField, 0, len(names))
	for _, n := range names {
		p := props[n]
		f := ElicitField{
			Name: n, Title: p.Title, Description: p.Description, Type: p.Type, Format: p.Format,
			Default: p.Default, Required: slices.Contains(s.Required, n),
		}
		f.Choices = p.choices()
		switch p.Type {
		case "string":
			f.Min, f.Max = p.MinLength, p.MaxLength
		case "array":
			f.Min, f.Max = p.MinItems, p.MaxItems
			if p.Items != nil {
				f.Choices = p.Items.choices()
			}
		default:
			f.Min, f.Max = p.Minimum, p.Maximum
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// fieldSchema is what a form field's schema may say (MCP's restricted
// schemas, SEP-1330's titled enums included).
type fieldSchema struct {
	Type        string        `json:"type"`
	Title       string        `json:"title"`
	Description string        `json:"description"`
	Format      string        `json:"format"`
	Default     any           `json:"default"`
	Enum        []any         `json:"enum"`
	EnumNames   []string      `json:"enumNames"`
	OneOf       []constSchema `json:"oneOf"`
	AnyOf       []constSchema `json:"anyOf"`
	Items       *fieldSchema  `json:"items"`
	Minimum     *float64      `json:"minimum"`
	Maximum     *float64      `json:"maximum"`
	MinLength   *float64      `json:"minLength"`
	MaxLength   *float64      `json:"maxLength"`
	MinItems    *float64      `json:"minItems"`
	MaxItems    *float64      `json:"maxItems"`
}

type constSchema struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

func (p *fieldSchema) choices() []ElicitChoice {
	var out []ElicitChoice
	for i, v := range p.Enum {
		c := ElicitChoice{Value: fmt.Sprint(v)}
		if i < len(p.EnumNames) {
			c.Title = p.EnumNames[i]
		}
		out = append(out, c)
	}
	for _, o := range append(slices.Clone(p.OneOf), p.AnyOf...) {
		if o.Const != nil {
			out = append(out, ElicitChoice{Value: fmt.Sprint(o.Const), Title: o.Title})
		}
	}
	return out
}

// objectKeys returns the keys of a JSON object in the order written.
func objectKeys(data json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(data)) == 0 || string(bytes.TrimSpace(data)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// Value turns what the person typed into the field's value: a number, a
// boolean (yes/no, true/false), one of the choices (by value, title or
// number in the list), or for an "array" field several of them separated
// by commas. The error says what the field accepts.
func (f ElicitField) Value(text string) (any, error) {
	text = strings.TrimSpace(text)
	switch f.Type {
	case "boolean":
		switch strings.ToLower(text) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not yes or no", text)
	case "number", "integer":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		if f.Type == "integer" && n != math.Trunc(n) {
			return nil, fmt.Errorf("%q is not a whole number", text)
		}
		if (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
			return nil, fmt.Errorf("%s is out of range%s", text, f.bounds())
		}
		if f.Type == "integer" {
			return int64(n), nil
		}
		return n, nil
	case "array":
		var vals []any
		for part := range strings.SplitSeq(text, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			v, err := f.choice(part)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		if n := float64(len(vals)); (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
			return nil, fmt.Errorf("choose%s", f.bounds())
		}
		return vals, nil
	}
	if len(f.Choices) > 0 {
		return f.choice(text)
	}
	if n := float64(len([]rune(text))); (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
		return nil, fmt.Errorf("the length is out of range%s", f.bounds())
	}
	return text, nil
}

func (f ElicitField) choice(text string) (string, error) {
	for i, c := range f.Choices {
		if text == c.Value || (c.Title != "" && strings.EqualFold(text, c.Title)) || text == strconv.Itoa(i+1) {
			return c.Value, nil
		}
	}
	vals := make([]string, len(f.Choices))
	for i, c := range f.Choices {
		vals[i] = c.Value
	}
	return "", fmt.Errorf("%q is not one of %s", text, strings.Join(vals, ", "))
}

func (f ElicitField) bounds() string {
	switch {
	case f.Min != nil && f.Max != nil:
		return fmt.Sprintf(": from %v to %v", *f.Min, *f.Max)
	case f.Min != nil:
		return fmt.Sprintf(": at least %v", *f.Min)
	case f.Max != nil:
		return fmt.Sprintf(": at most %v", *f.Max)
	}
	return ""
}
