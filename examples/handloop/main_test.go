package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
)

func TestHandloopAnswersWithWhatTheToolsReturned(t *testing.T) {
	var stdout, stderr strings.Builder
	if err := run(context.Background(), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if got, want := stdout.String(), "4 words; in capitals: THE QUICK BROWN FOX.\n"; got != want {
		t.Errorf("stdout = %q; want %q", got, want)
	}
	if !strings.Contains(stderr.String(), "[tool] count_words") || !strings.Contains(stderr.String(), "[tool] upper") {
		t.Errorf("stderr = %q; want both tool calls", stderr.String())
	}
}

// troubleModel calls an unknown tool, a tool with arguments that fail its
// schema, a tool that fails and one that panics, then a good call in a
// second reply, then answers with every result it read.
func troubleModel(r *llmtest.Request) llmtest.Reply {
	if r.LastToolResults() == nil {
		return llmtest.Reply{Text: "Let me try.", Calls: []llmtest.Call{
			{Name: "no_such_tool", Args: `{}`},
			{Name: "count_words", Args: `{"text": 7}`},
			{Name: "fail", Args: `{"text":"x"}`},
			{Name: "panic", Args: `{"text":"x"}`},
		}}
	}
	if len(r.Messages) == 3 {
		return llmtest.Reply{Calls: []llmtest.Call{{Name: "count_words", Args: `{"text":"one two"}`}}}
	}
	var seen []string
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			if p.Type == llm.PartToolResult {
				seen = append(seen, fmt.Sprintf("%v:%s", p.IsError, p.Text))
			}
		}
	}
	return llmtest.Reply{Text: strings.Join(seen, " | ")}
}

func troubleTools() []tool.Tool {
	return append(demoTools(),
		tool.New("fail", "Fails.", tool.Read, func(context.Context, textArgs) (string, error) {
			return "", errors.New("the disk is full")
		}),
		tool.New("panic", "Panics.", tool.Read, func(context.Context, textArgs) (string, error) {
			panic("boom")
		}),
	)
}

// TestHandLoopAndAgentAgree runs the hand-written loop and agent.Run
// against the same scripted model and compares what each sent: the same
// tool descriptions, the same conversation (calls, arguments and results)
// at every step, and the same answer.
func TestHandLoopAndAgentAgree(t *testing.T) {
	inProcess := func(t *testing.T, tools []tool.Tool) []tool.Tool {
		t.Helper()
		srv := mcp.NewServer("demo", "v1", nil)
		srv.AddTools(tools...)
		s, err := mcp.ConnectInProcess(t.Context(), "demo", srv, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		served, err := s.Tools(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return served
	}
	for _, tt := range []struct {
		name  string
		model llmtest.Script
		tools func(t *testing.T) []tool.Tool
	}{
		{"two calls in one reply", demoModel, func(*testing.T) []tool.Tool { return demoTools() }},
		{"unknown names, bad arguments, errors and panics", troubleModel, func(*testing.T) []tool.Tool { return troubleTools() }},
		{"tools served over MCP in process", demoModel, func(t *testing.T) []tool.Tool { return inProcess(t, demoTools()) }},
		{"failing tools served over MCP in process", troubleModel, func(t *testing.T) []tool.Tool { return inProcess(t, troubleTools()) }},
	} {
		for _, d := range []llm.Dialect{llm.Anthropic, llm.OpenAI} {
			t.Run(fmt.Sprintf("%s, %s", tt.name, d), func(t *testing.T) {
				const system, question = "Use the tools.", "Go."
				tools := tt.tools(t)

				hand := llmtest.NewServer(tt.model)
				defer hand.Close()
				hc, err := llm.New(hand.Config(d))
				if err != nil {
					t.Fatal(err)
				}
				handAnswer, err := loop(t.Context(), hc, system, tools, question, io.Discard)
				if err != nil {
					t.Fatal(err)
				}

				auto := llmtest.NewServer(tt.model)
				defer auto.Close()
				ac, err := llm.New(auto.Config(d))
				if err != nil {
					t.Fatal(err)
				}
				a := agent.New(ac, &agent.Options{System: system, Autonomy: agent.Auto})
				a.Add(tools...)
				out, err := a.Run(t.Context(), question)
				if err != nil {
					t.Fatal(err)
				}

				if out.Text != handAnswer {
					t.Errorf("answers differ:\nhand:  %q\nagent: %q", handAnswer, out.Text)
				}
				hr, ar := hand.Requests(), auto.Requests()
				if len(hr) != len(ar) {
					t.Fatalf("the hand loop made %d requests, the agent %d", len(hr), len(ar))
				}
				for i := range hr {
					if h, a := toolsSent(t, hr[i]), toolsSent(t, ar[i]); !reflect.DeepEqual(h, a) {
						t.Errorf("request %d: tool descriptions differ:\nhand:  %v\nagent: %v", i+1, h, a)
					}
					if hr[i].System != ar[i].System {
						t.Errorf("request %d: system %q, agent %q", i+1, hr[i].System, ar[i].System)
					}
					if !reflect.DeepEqual(hr[i].Messages, ar[i].Messages) {
						t.Errorf("request %d: conversations differ:\nhand:  %+v\nagent: %+v", i+1, hr[i].Messages, ar[i].Messages)
					}
				}
				if len(hr) < 2 {
					t.Errorf("only %d requests: the script made no tool calls", len(hr))
				}
			})
		}
	}
}

// toolsSent returns the tools of a request's body as generic JSON, without
// cache marks (the agent marks the last tool for prompt caching).
func toolsSent(t *testing.T, r *llmtest.Request) []any {
	t.Helper()
	var body struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	out := make([]any, len(body.Tools))
	for i, tl := range body.Tools {
		delete(tl, "cache_control")
		out[i] = tl
	}
	return out
}
