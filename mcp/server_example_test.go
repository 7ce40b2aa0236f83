package mcp_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/mcp/mcptest"
	"github.com/bridle-dev/bridle/tool"
)

// A server serves tool.Tool values; package mcptest answers one JSON-RPC
// line at a time in the same process, which is how a server is tested
// message by message.
func Example_server() {
	type noteIn struct {
		Title string `json:"title" jsonschema:"the title of the note"`
	}
	notes := map[string]string{"groceries": "eggs, milk"}
	s := mcp.NewServer("notes", "v1.0.0", &mcp.ServerOptions{
		Instructions: "Use read_note to read the user's notes.",
	})
	s.AddTools(tool.New("read_note", "Reads a note by its title.", tool.Read,
		func(_ context.Context, in noteIn) (string, error) {
			text, ok := notes[in.Title]
			if !ok {
				return "", fmt.Errorf("no note is titled %q", in.Title)
			}
			return text, nil
		}))

	ctx := context.Background()
	c, err := mcptest.Connect(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_note","arguments":{"title":"groceries"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_note","arguments":{"title":"todo"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_note","arguments":{}}}`,
	} {
		out, err := c.Handle(ctx, []byte(line))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(string(out))
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"eggs, milk"}]}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"no note is titled \"todo\""}],"isError":true}}
	// {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"invalid arguments: missing required argument \"title\""}],"isError":true}}
}

// A local server for Claude Code or Claude Desktop speaks over stdio:
// stdout carries the protocol, so logs go to stderr.
func ExampleServer_ServeStdio() {
	s := mcp.NewServer("notes", "v1.0.0", nil)
	s.AddResources(mcp.Resource{
		URI:         "notes://index",
		Description: "The titles of every note.",
		MIMEType:    "text/markdown",
		Read:        func(context.Context) (string, error) { return "- groceries\n- todo", nil },
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := s.ServeStdio(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "notes:", err)
		os.Exit(1)
	}
}

// Over Streamable HTTP, a server listens on loopback; a token keeps other
// local programs out. ListenAndServe returns once ctx is done and the calls
// in flight have finished.
func ExampleServer_ListenAndServe() {
	s := mcp.NewServer("notes", "v1.0.0", nil)
	s.AddTools(tool.New("ping", "Answers pong.", tool.Read,
		func(context.Context, struct{}) (string, error) { return "pong", nil }))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := s.ListenAndServe(ctx, "127.0.0.1:8080", &mcp.HTTPOptions{
		Token: os.Getenv("NOTES_TOKEN"),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "notes:", err)
		os.Exit(1)
	}
}
