package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

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
