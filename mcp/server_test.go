package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/tool"
)

// fixtureTools are served by fixtureServer: one tool of each risk, one
// that fails, one that panics.
func fixtureTools() []tool.Tool {
	type echoIn struct {
		Text  string `json:"text" jsonschema:"what to say back"`
		Times int    `json:"times,omitempty" jsonschema:"how many times; default once"`
	}
	type saveIn struct {
		Title string `json:"title"`
		Body  string `json:"body"`
	}
	type runIn struct {
		Command string `json:"command"`
	}
	return []tool.Tool{
		tool.New("echo", "Says the text back.", tool.Read, func(_ context.Context, in echoIn) (string, error) {
			return strings.Repeat(in.Text, max(in.Times, 1)), nil
		}),
		tool.New("save_note", "Saves a note.", tool.Write, func(_ context.Context, in saveIn) (string, error) {
			return fmt.Sprintf("saved %q", in.Title), nil
		}),
		tool.New("run_command", "Runs a command.", tool.Exec, func(_ context.Context, in runIn) (string, error) {
			return "ran " + in.Command, nil
		}),
		tool.New("fail", "Always fails.", tool.Read, func(context.Context, struct{}) (string, error) {
			return "", errors.New("the disk is full: free some space and retry")
		}),
		tool.New("explode", "Panics.", tool.Exec, func(context.Context, struct{}) (string, error) {
			panic("kaboom")
		}),
	}
}

func fixtureServer() *Server {
	s := NewServer("fixture", "v0.1.0", &ServerOptions{Instructions: "Use echo to test."})
	s.AddTools(fixtureTools()...)
	s.AddResources(
		Resource{
			URI: "notes://index", Name: "index", Description: "Every note.", MIMEType: "text/markdown",
			Read: func(context.Context) (string, error) { return "# Notes\n- groceries", nil },
		},
		Resource{
			URI:  "notes://plain",
			Read: func(context.Context) (string, error) { return "plain text", nil },
		},
		Resource{
			URI:  "notes://broken",
			Read: func(context.Context) (string, error) { return "", errors.New("the notes folder is gone") },
		},
		Resource{
			URI:  "notes://panics",
			Read: func(context.Context) (string, error) { panic("resource kaboom") },
		},
	)
	return s
}

func TestAddToolsPanicsNamingTheTool(t *testing.T) {
	ok := func(context.Context, json.RawMessage) (string, error) { return "", nil }
	tests := []struct {
		name  string
		add   func(s *Server)
		panic string // substrings of the panic message, separated by |
	}{
		{"a repeated name in one call", func(s *Server) {
			s.AddTools(tool.Tool{Risk: tool.Read, Name: "twice", Func: ok}, tool.Tool{Risk: tool.Read, Name: "twice", Func: ok})
		}, `"twice"|added twice`},
		{"a name added by an earlier call", func(s *Server) {
			s.AddTools(tool.Tool{Risk: tool.Read, Name: "echo", Func: ok})
		}, `"echo"|added twice`},
		{"an empty name, identified by position and description", func(s *Server) {
			s.AddTools(tool.Tool{Risk: tool.Read, Name: "fine", Func: ok}, tool.Tool{Description: "Finds things.", Func: ok})
		}, `#2|Finds things.|empty`},
		{"a name clients refuse", func(s *Server) {
			s.AddTools(tool.Tool{Risk: tool.Read, Name: "has space", Func: ok})
		}, `"has space"|letters, digits`},
		{"a name that is too long", func(s *Server) {
			s.AddTools(tool.Tool{Risk: tool.Read, Name: strings.Repeat("x", 65), Func: ok})
		}, `xxxxx|limit is 64`},
		{"a schema that is not an object schema", func(s *Server) {
			s.AddTools(tool.Tool{Risk: tool.Read, Name: "listy", Schema: json.RawMessage(`{"type":"array"}`), Func: ok})
		}, `"listy"|"object"`},
		{"a schema that is not JSON", func(s *Server) {
			s.AddTools(tool.Tool{Risk: tool.Read, Name: "garbled", Schema: json.RawMessage(`{type: object}`), Func: ok})
		}, `"garbled"|not a JSON Schema`},
		{"a missing function", func(s *Server) {
			s.AddTools(tool.Tool{Risk: tool.Read, Name: "hollow"})
		}, `"hollow"|no Func`},
		{"an unknown risk", func(s *Server) {
			s.AddTools(tool.Tool{Name: "risky", Risk: tool.Risk(7), Func: ok})
		}, `"risky"|unknown risk`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixtureServer()
			msg := panicMessage(func() { tt.add(s) })
			if msg == "" {
				t.Fatal("AddTools did not panic")
			}
			for _, want := range strings.Split(tt.panic, "|") {
				if !strings.Contains(msg, want) {
					t.Errorf("panic %q does not mention %q", msg, want)
				}
			}
			// Nothing of a refused call is added.
			if got := toolNames(t, s); len(got) != len(fixtureTools()) {
				t.Errorf("after the panic the server lists %v", got)
			}
		})
	}
}

func TestAddResourcesPanicsNamingTheResource(t *testing.T) {
	read := func(context.Context) (string, error) { return "", nil }
	tests := []struct {
		name  string
		r     Resource
		panic string
	}{
		{"an empty URI", Resource{Name: "nameless", Read: read}, `#1|URI is empty`},
		{"a relative URI", Resource{URI: "index.md", Read: read}, `"index.md"|not absolute`},
		{"a URI that does not parse", Resource{URI: "notes://%zz", Read: read}, `"notes://%zz"|does not parse`},
		{"a missing Read", Resource{URI: "notes://hollow"}, `"notes://hollow"|no Read`},
		{"a repeated URI", Resource{URI: "notes://index", Read: read}, `"notes://index"|added twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := panicMessage(func() { fixtureServer().AddResources(tt.r) })
			if msg == "" {
				t.Fatal("AddResources did not panic")
			}
			for _, want := range strings.Split(tt.panic, "|") {
				if !strings.Contains(msg, want) {
					t.Errorf("panic %q does not mention %q", msg, want)
				}
			}
		})
	}
}

func TestNewServerPanicsOnAnEmptyName(t *testing.T) {
	if msg := panicMessage(func() { NewServer("", "v1", nil) }); !strings.Contains(msg, "name is empty") {
		t.Errorf("panic = %q", msg)
	}
}

// panicMessage runs f and returns what it panicked with, or "".
func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

func toolNames(t *testing.T, s *Server) []string {
	t.Helper()
	sess, err := ConnectInProcess(t.Context(), "fixture", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tools, err := sess.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return names
}
