package mcptest_test

import (
	"context"
	"fmt"
	"log"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/mcp/mcptest"
	"github.com/bridle-dev/bridle/tool"
)

func Example() {
	s := mcp.NewServer("greeter", "v1", nil)
	s.AddTools(tool.New("greet", "Greets someone.", tool.Read,
		func(_ context.Context, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return "hello, " + in.Name, nil
		}))
	ctx := context.Background()
	c, err := mcptest.Connect(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	out, err := c.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello, Ada"}]}}
}
