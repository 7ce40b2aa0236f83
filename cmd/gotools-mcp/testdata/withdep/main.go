// Command withdep prints the JSON Schema of a small struct, using a module
// from the module cache.
package main

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

type point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

func main() {
	s, err := jsonschema.For[point](nil)
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(s.Required)
	fmt.Println(string(b))
}
