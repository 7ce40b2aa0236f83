package llmtest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// A server with two replies: a tool call, then an answer. The client
// is package llm's; any client of either dialect works the same way.
func Example() {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Calls: []llmtest.Call{{Name: "read", Args: `{"path":"go.mod"}`}}},
		llmtest.Reply{Text: "It is a Go module."},
	))
	defer srv.Close()

	client, err := llm.New(srv.Config(llm.OpenAI))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	req := &llm.Request{Messages: []llm.Message{llm.UserText("What is go.mod?")}}
	resp, err := llm.Collect(client.Stream(ctx, req))
	if err != nil {
		panic(err)
	}
	call := resp.ToolCalls()[0]
	fmt.Println("call:", call.Name, string(call.Args))

	req.Messages = append(req.Messages, resp.Message(), llm.Message{
		Role: llm.User, Parts: []llm.Part{llm.ToolResult(call.ID, "module example.com/x", false)},
	})
	resp, err = client.Send(ctx, req)
	if err != nil {
		panic(err)
	}
	fmt.Println("answer:", resp.Text())

	sent := srv.Requests()[1]
	fmt.Println("sent back:", sent.LastToolResults()[0].Text)
	// Output:
	// call: read {"path":"go.mod"}
	// answer: It is a Go module.
	// sent back: module example.com/x
}

// A script can answer by what the client sent.
func ExampleScript() {
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		if len(r.LastToolResults()) > 0 {
			return llmtest.Reply{Text: "done"}
		}
		return llmtest.Reply{Text: "you said: " + r.LastMessage().Text()}
	})
	defer srv.Close()

	body := `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hello"}]}`
	resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, strings.Contains(string(b), `"text":"you said: hello"`))
	// Output:
	// 200 true
}

// A fault stands for one reply, so a rate limit followed by an answer
// tests a client's retry.
func ExampleFault() {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Fault: &llmtest.Fault{Status: 429, Header: http.Header{"Retry-After": {"1"}}}},
		llmtest.Reply{Text: "ok"},
	))
	defer srv.Close()

	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	for range 2 {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, resp.Header.Get("Retry-After"), len(b) > 0)
	}
	// Output:
	// 429 1 true
	// 200  true
}
