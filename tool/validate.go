package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// ErrInvalidArgs is wrapped by every error about the arguments a model
// wrote, before the tool ran.
var ErrInvalidArgs = errors.New("invalid arguments")

// Validate checks args against the tool's schema without running it.
// Like [Tool.Call], it takes empty args and JSON null for "{}".
func (t Tool) Validate(args json.RawMessage) error {
	trimmed := bytes.TrimSpace(args)
	if noArgs(trimmed) {
		trimmed = []byte("{}")
	}
	var v any
	if err := json.Unmarshal(trimmed, &v); err != nil {
		return fmt.Errorf("%w: arguments are not valid JSON: %v", ErrInvalidArgs, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%w: arguments must be a JSON object, not %s", ErrInvalidArgs, jsonKind(v))
	}
	rs, flat := t.resolved, t.flat
	if rs == nil {
		if len(bytes.TrimSpace(t.Schema)) == 0 {
			return nil
		}
		var err error
		if rs, err = resolve(t.Schema); err != nil {
			return fmt.Errorf("tool %q: %w", t.Name, err)
		}
		flat = isFlat(rs.Schema())
	}
	root := rs.Schema()
	for _, name := range root.Required {
		if _, ok := obj[name]; !ok {
			return fmt.Errorf("%w: missing required argument %q", ErrInvalidArgs, name)
		}
	}
	// Of several wrong arguments, the first by name is reported, so that
	// the same arguments always get the same message.
	var wrong error
	wrongName := ""
	for name, val := range obj {
		if wrong != nil && name > wrongName {
			continue
		}
		ps, ok := root.Properties[name]
		var err error
		switch {
		case !ok && root.AdditionalProperties != nil && root.AdditionalProperties.Not != nil:
			err = fmt.Errorf("%w: unknown argument %q", ErrInvalidArgs, name)
		case !ok:
		default:
			if want := typesOf(ps); len(want) > 0 && !slices.ContainsFunc(want, func(w string) bool { return typeMatches(w, val) }) {
				err = fmt.Errorf("%w: argument %q must be %s, not %s", ErrInvalidArgs, name, oneOf(want), jsonKind(val))
			}
		}
		if err != nil {
			wrong, wrongName = err, name
		}
	}
	if wrong != nil {
		return wrong
	}
	if flat {
		return nil
	}
	if err := rs.Validate(obj); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidArgs, err)
	}
	return nil
}

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
		return ok && isInteger(f)
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

// wholeNumbers rewrites the whole numbers in args written as fractions or
// with exponents ("2.0", "1e3") as integers, reporting whether it changed
// anything.
func wholeNumbers(args json.RawMessage) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	changed := false
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case json.Number:
			if _, err := v.Int64(); err == nil {
				return v
			}
			if f, err := v.Float64(); err == nil && isInteger(f) && math.Abs(f) < 1<<53 {
				changed = true
				return json.Number(strconv.FormatInt(int64(f), 10))
			}
		case map[string]any:
			for k, e := range v {
				v[k] = walk(e)
			}
		case []any:
			for i, e := range v {
				v[i] = walk(e)
			}
		}
		return v
	}
	v = walk(v)
	if !changed {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

// noArgs reports whether args stand for no arguments at all.
func noArgs(args json.RawMessage) bool {
	trimmed := bytes.TrimSpace(args)
	return len(trimmed) == 0 || string(trimmed) == "null"
}

// isInteger reports whether f is a whole number, as JSON Schema's
// "integer" means (1.0 is one).
func isInteger(f float64) bool {
	return f == math.Trunc(f) && !math.IsInf(f, 0)
}

func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		if isInteger(v) {
			return "an integer"
		}
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// typesOf returns the types a schema allows, nil for any.
func typesOf(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

// oneOf names the allowed types for an error: "an integer", "an array or
// null".
func oneOf(types []string) string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = article(t)
	}
	// Null reads best last: "an array or null".
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case a == "null" && b != "null":
			return 1
		case b == "null" && a != "null":
			return -1
		}
		return 0
	})
	return strings.Join(names, " or ")
}

func article(t string) string {
	switch t {
	case "integer", "object", "array":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}
