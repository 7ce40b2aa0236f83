package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/bridle-dev/bridle/tool"
)

// A tool is written once, from a typed function; its schema comes from the
// struct, and a call with bad arguments fails before the function runs,
// with a message the model can act on.
func Example() {
	type weatherIn struct {
		City string `json:"city" jsonschema:"the city, such as Lyon"`
		Days int    `json:"days,omitempty" jsonschema:"how many days ahead, 1 by default"`
	}
	weather := tool.New("weather", "Forecasts the weather in a city.", tool.Read,
		func(_ context.Context, in weatherIn) (string, error) {
			return fmt.Sprintf("%s: sunny for %d day(s)", in.City, max(in.Days, 1)), nil
		})

	ctx := context.Background()
	out, err := weather.Call(ctx, json.RawMessage(`{"city":"Lyon","days":2}`))
	fmt.Println(out, err)

	_, err = weather.Call(ctx, json.RawMessage(`{"days":"two"}`))
	fmt.Println(err, errors.Is(err, tool.ErrInvalidArgs))

	// Output:
	// Lyon: sunny for 2 day(s) <nil>
	// invalid arguments: missing required argument "city" true
}

// Validate checks what a model wrote without running the tool.
func ExampleTool_Validate() {
	t := tool.Tool{
		Name:   "delete_file",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		Risk:   tool.Write,
		Func:   func(context.Context, json.RawMessage) (string, error) { return "deleted", nil },
	}
	fmt.Println(t.Validate(json.RawMessage(`{"path":42}`)))
	// Output:
	// invalid arguments: argument "path" must be a string, not an integer
}
