package fastpath

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/bridle-dev/bridle/tool"
	"github.com/google/jsonschema-go/jsonschema"
)

// Flat validates arguments against a flat object schema: named
// properties, each with a type and nothing else that constrains, required
// names, and additionalProperties absent, true or false. For such a schema
// the checks tool.Tool.Validate makes before it calls the JSON Schema
// engine (required names, types, unknown names) are the whole validation,
// which is what a fast path in Validate would rely on.
type Flat struct {
	required []string
	types    map[string][]string
	closed   bool // additionalProperties: false
}

// NewFlat returns the validator for schema, or false when the schema is
// not flat and needs the JSON Schema engine.
func NewFlat(schema json.RawMessage) (*Flat, bool) {
	var root jsonschema.Schema
	if json.Unmarshal(schema, &root) != nil || root.Type != "object" {
		return nil, false
	}
	f := &Flat{required: root.Required, types: make(map[string][]string)}
	if ap := root.AdditionalProperties; ap != nil {
		// Only false ({"not": {}}) and true ({}) are flat.
		rest := *ap
		rest.Not = nil
		if !reflect.ValueOf(rest).IsZero() || ap.Not != nil && !reflect.ValueOf(*ap.Not).IsZero() {
			return nil, false
		}
		f.closed = ap.Not != nil
	}
	for name, p := range root.Properties {
		if p == nil || !onlyAnnotations(*p) {
			return nil, false
		}
		if p.Type != "" {
			f.types[name] = []string{p.Type}
		} else {
			f.types[name] = p.Types
		}
	}
	rest := root
	rest.Properties, rest.Required, rest.AdditionalProperties = nil, nil, nil
	if !onlyAnnotations(rest) {
		return nil, false
	}
	return f, true
}

// onlyAnnotations reports whether s holds nothing but a type and keywords
// that do not constrain values (title, description, default, examples…).
func onlyAnnotations(s jsonschema.Schema) bool {
	s.Type, s.Types = "", nil
	s.Schema, s.Comment, s.Title, s.Description, s.Default = "", "", "", "", nil
	s.Deprecated, s.ReadOnly, s.WriteOnly, s.Examples, s.PropertyOrder = false, false, false, nil, nil
	return reflect.ValueOf(s).IsZero()
}

// Validate checks args as tool.Tool.Validate would, with the same errors.
func (f *Flat) Validate(args json.RawMessage) error {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		trimmed = []byte("{}")
	}
	var v any
	if err := json.Unmarshal(trimmed, &v); err != nil {
		return fmt.Errorf("%w: arguments are not valid JSON: %v", tool.ErrInvalidArgs, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%w: arguments must be a JSON object", tool.ErrInvalidArgs)
	}
	for _, name := range f.required {
		if _, ok := obj[name]; !ok {
			return fmt.Errorf("%w: missing required argument %q", tool.ErrInvalidArgs, name)
		}
	}
	for name, val := range obj {
		want, ok := f.types[name]
		if !ok {
			if f.closed {
				return fmt.Errorf("%w: unknown argument %q", tool.ErrInvalidArgs, name)
			}
			continue
		}
		if len(want) > 0 && !slices.ContainsFunc(want, func(w string) bool { return typeMatches(w, val) }) {
			return fmt.Errorf("%w: argument %q must be %v", tool.ErrInvalidArgs, name, want)
		}
	}
	return nil
}

// typeMatches is package tool's own (unexported) type check, copied so
// that the prototype judges arguments exactly as tool.Tool.Validate does;
// in package tool the fast path would share it.
func typeMatches(want string, v any) bool {
	switch want {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "null":
		return v == nil
	}
	return true
}
