// Package tool defines the one tool value Bridle uses everywhere: an agent
// runs it, an MCP server serves it, and an MCP client hands back the tools of
// someone else's server in the same shape.
//
// A tool has a name, a description for the model, a JSON Schema for its
// arguments, a [Risk], and a function. The function's string is what the
// model reads; its error reaches the model as a failed call. Arguments are
// checked against the schema before the function runs, and a panic in the
// function becomes an error, so a bad call never takes the program down.
package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Risk says what running a tool can do to the world.
type Risk int

// The risks, from least to most. The zero value is no risk at all: a tool
// whose Risk was left unset is refused by [Tool.Prepare], so forgetting it
// never lets a tool run unasked.
const (
	// Read only looks: files, notes, documentation, searches.
	Read Risk = iota + 1
	// Write changes stored data: writes or deletes files or notes.
	Write
	// Exec runs code or acts outside: commands, network calls, payments.
	// It is also the risk of a tool whose effects are not known.
	Exec
)

// String returns "read", "write" or "exec".
func (r Risk) String() string {
	switch r {
	case Read:
		return "read"
	case Write:
		return "write"
	case Exec:
		return "exec"
	}
	return fmt.Sprintf("Risk(%d)", int(r))
}

// ParseRisk reads "read", "write" or "exec".
func ParseRisk(s string) (Risk, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read":
		return Read, nil
	case "write":
		return Write, nil
	case "exec":
		return Exec, nil
	}
	return Exec, fmt.Errorf("unknown risk %q: use read, write or exec", s)
}

// Func runs a tool. args is a JSON object that already passed the tool's
// schema. The string is what the model reads; an error is reported to the
// model as a failed call carrying the error's message.
type Func func(ctx context.Context, args json.RawMessage) (string, error)

// Tool is a tool a model can call. Build one with [New] from a typed
// function, or as a literal with a hand-written Schema; either way, pass a
// literal through [Tool.Prepare] (registries do) so its schema is checked
// once rather than at call time.
type Tool struct {
	// Name is what the model calls: 1 to 64 letters, digits, '_' or '-'.
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// Schema is the JSON Schema of the arguments: an object schema. Nil
	// means an object with no properties.
	Schema json.RawMessage
	// Risk is what running the tool can do. It must be set: the zero value
	// is refused by [Tool.Prepare].
	Risk Risk
	// Func runs the tool.
	Func Func

	resolved *jsonschema.Resolved
	flat     bool // the schema constrains only what Validate checks itself
}

// ErrInvalidArgs is wrapped by every error about the arguments a model
// wrote, before the tool ran.
var ErrInvalidArgs = errors.New("invalid arguments")

// MaxNameLen is the longest tool name the model providers accept.
const MaxNameLen = 64

// CheckName reports whether name is a tool name every provider and MCP
// client accepts.
func CheckName(name string) error {
	if name == "" {
		return errors.New("tool name is empty")
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("tool name %q is %d characters long; the limit is %d", name, len(name), MaxNameLen)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("tool name %q has %q: use only letters, digits, '_' and '-'", name, c)
		}
	}
	return nil
}

var emptyObject = json.RawMessage(`{"type":"object","properties":{}}`)

// Prepare checks t and returns a copy whose schema is resolved, so that
// [Tool.Call] validates without parsing the schema again. It reports an
// empty or unusable name, a missing Func, and a schema that is not a JSON
// object schema, each naming the tool.
func (t Tool) Prepare() (Tool, error) {
	if err := CheckName(t.Name); err != nil {
		return t, err
	}
	if t.Func == nil {
		return t, fmt.Errorf("tool %q has no Func", t.Name)
	}
	if t.Risk == 0 {
		return t, fmt.Errorf("tool %q has no Risk: set it to tool.Read, tool.Write or tool.Exec", t.Name)
	}
	if t.Risk < Read || t.Risk > Exec {
		return t, fmt.Errorf("tool %q has unknown risk %d", t.Name, int(t.Risk))
	}
	if t.resolved != nil {
		return t, nil
	}
	if len(bytes.TrimSpace(t.Schema)) == 0 {
		t.Schema = emptyObject
	}
	rs, err := resolve(t.Schema)
	if err != nil {
		return t, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	t.resolved, t.flat = rs, isFlat(rs.Schema())
	return t, nil
}

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

// New returns a tool whose arguments are the JSON form of In, a struct. The
// schema is inferred from In: fields are named by their json tags, a
// `jsonschema:"..."` tag is the field's description for the model, and
// fields without omitempty are required. A whole number written as a
// fraction ("2.0", which JSON Schema counts as an integer) fills an int
// field. New panics if In has no usable schema or the name is not valid:
// both are programming errors.
func New[In any](name, description string, risk Risk, fn func(ctx context.Context, in In) (string, error)) Tool {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool.New(%q): cannot infer a schema from %s: %v", name, reflect.TypeFor[In](), err))
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool.New(%q): %v", name, err))
	}
	t := Tool{
		Name:        name,
		Description: description,
		Schema:      raw,
		Risk:        risk,
		Func: func(ctx context.Context, args json.RawMessage) (string, error) {
			var in In
			if err := json.Unmarshal(args, &in); err != nil {
				// JSON Schema counts 2.0 as an integer, and models write
				// it; encoding/json will not put it in an int.
				whole, ok := wholeNumbers(args)
				if !ok || json.Unmarshal(whole, &in) != nil {
					return "", fmt.Errorf("%w: %v", ErrInvalidArgs, err)
				}
			}
			return fn(ctx, in)
		},
	}
	t, err = t.Prepare()
	if err != nil {
		panic("tool.New: " + err.Error())
	}
	return t
}

// Call checks args against the schema and runs the tool. Empty args and
// JSON null mean "{}", as some clients and models send them for a tool
// without parameters. Arguments that are not a JSON object, miss a
// required field or have a wrong type give an error wrapping
// [ErrInvalidArgs] that names the field, and the function does not run. A
// panic in the function is recovered and returned as an error.
func (t Tool) Call(ctx context.Context, args json.RawMessage) (out string, err error) {
	if err := t.Validate(args); err != nil {
		return "", err
	}
	if noArgs(args) {
		args = json.RawMessage("{}")
	}
	defer func() {
		if r := recover(); r != nil {
			out = ""
			err = fmt.Errorf("tool %s panicked: %v", t.Name, r)
		}
	}()
	return t.Func(ctx, args)
}

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
