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
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

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
