package tool

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// emptyObject is the schema of a tool that takes no arguments.
var emptyObject = json.RawMessage(`{"type":"object","properties":{}}`)

// isFlat reports whether an object schema constrains arguments only by
// property types, required names and additionalProperties true or false:
// the checks Validate makes itself before it calls the JSON Schema engine,
// which such a schema does not need (it costs a few microseconds and
// dozens of allocations a call).
func isFlat(root *jsonschema.Schema) bool {
	if ap := root.AdditionalProperties; ap != nil {
		rest := *ap
		rest.Not = nil
		if !reflect.ValueOf(rest).IsZero() || ap.Not != nil && !reflect.ValueOf(*ap.Not).IsZero() {
			return false // only {} (true) and {"not": {}} (false) are flat
		}
	}
	for _, p := range root.Properties {
		if p == nil || !onlyAnnotations(*p) {
			return false
		}
	}
	rest := *root
	rest.Properties, rest.Required, rest.AdditionalProperties = nil, nil, nil
	return onlyAnnotations(rest)
}

// onlyAnnotations reports whether s holds nothing but a type and keywords
// that do not constrain values (title, description, default, examples…).
func onlyAnnotations(s jsonschema.Schema) bool {
	s.Type, s.Types = "", nil
	s.Schema, s.Comment, s.Title, s.Description, s.Default = "", "", "", "", nil
	s.Deprecated, s.ReadOnly, s.WriteOnly, s.Examples, s.PropertyOrder = false, false, false, nil, nil
	return reflect.ValueOf(s).IsZero()
}

func resolve(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("schema is not a JSON Schema: %v", err)
	}
	if s.Type != "object" {
		got := fmt.Sprintf("%q", s.Type)
		switch {
		case len(s.Types) > 0:
			got = fmt.Sprintf("%q", s.Types)
		case s.Type == "":
			got = "no type"
		}
		return nil, fmt.Errorf("schema must have \"type\": \"object\", not %s", got)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("schema does not resolve: %v", err)
	}
	return rs, nil
}
