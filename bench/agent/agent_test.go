package agent_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"testing"

	"charm.land/fantasy"
	fantasyopenai "charm.land/fantasy/providers/openai"
	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/bench/agent/internal/fakemodel"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// The agent benchmarks run Bridle's agent and charm.land/fantasy's agent,
// each with one tool, read_file, against the same in-process model
// (fakemodel): an OpenAI-compatible server on loopback that answers at once
// from fixed bytes. A run of n steps is n replies that call the tool, each
// followed by the tool's run, then one reply that answers; ns/step and
// allocs/step divide a run by n. Both agents resend the whole conversation
// each step, as the protocol requires, so a step costs more as the history
// grows. mode=stream asks for streamed replies (Bridle's default;
// fantasy's Agent.Stream), mode=whole for whole ones (Bridle's NoStream;
// fantasy's Agent.Generate). Tools are made once; each run makes a new
// agent, as a program does per conversation.

type readArgs struct {
	Path string `json:"path" jsonschema:"the file to read"`
}

func readFile(path string) string { return "package main\n// " + path + "\n" }

func httpClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
}

// bridleAgent returns a run function for Bridle's agent against url.
func bridleAgent(b *testing.B, url string, steps int, stream bool) (run func() (int, error), keep func() any) {
	client, err := llm.New(llm.Config{Dialect: llm.OpenAI, BaseURL: url + "/v1", Model: "test-model", APIKey: "test-key", HTTPClient: httpClient()})
	if err != nil {
		b.Fatal(err)
	}
	read := tool.New("read_file", "reads a file", tool.Read, func(ctx context.Context, in readArgs) (string, error) {
		return readFile(in.Path), nil
	})
	var a *agent.Agent
	run = func() (int, error) {
		a = agent.New(client, &agent.Options{Autonomy: agent.Auto, MaxSteps: steps + 1, NoStream: !stream})
		a.Add(read)
		out, err := a.Run(context.Background(), "read every file")
		if err == nil && (out.Stop != agent.StopDone || out.Text != "done") {
			err = fmt.Errorf("run ended with %+v", out)
		}
		return out.Steps, err
	}
	return run, func() any { return a }
}

// fantasyRunner returns a function that runs fantasy's agent against url.
func fantasyRunner(b *testing.B, url string, steps int, stream bool) func() (*fantasy.AgentResult, error) {
	provider, err := fantasyopenai.New(fantasyopenai.WithBaseURL(url+"/v1"), fantasyopenai.WithAPIKey("test-key"), fantasyopenai.WithHTTPClient(httpClient()))
	if err != nil {
		b.Fatal(err)
	}
	model, err := provider.LanguageModel(context.Background(), "test-model")
	if err != nil {
		b.Fatal(err)
	}
	read := fantasy.NewAgentTool("read_file", "reads a file", func(ctx context.Context, in readArgs, _ fantasy.ToolCall) (fantasy.ToolResponse, error) {
		return fantasy.NewTextResponse(readFile(in.Path)), nil
	})
	return func() (*fantasy.AgentResult, error) {
		a := fantasy.NewAgent(model, fantasy.WithTools(read), fantasy.WithStopConditions(fantasy.StepCountIs(steps+1)))
		var res *fantasy.AgentResult
		var err error
		if stream {
			res, err = a.Stream(context.Background(), fantasy.AgentStreamCall{Prompt: "read every file"})
		} else {
			res, err = a.Generate(context.Background(), fantasy.AgentCall{Prompt: "read every file"})
		}
		if err != nil {
			return nil, err
		}
		if text := res.Response.Content.Text(); text != "done" {
			return nil, fmt.Errorf("run ended with %q", text)
		}
		return res, nil
	}
}

// fantasyAgent returns a run function for fantasy's agent against url,
// keeping its AgentResult.
func fantasyAgent(b *testing.B, url string, steps int, stream bool) (run func() (int, error), keep func() any) {
	inner := fantasyRunner(b, url, steps, stream)
	var res *fantasy.AgentResult
	run = func() (int, error) {
		var err error
		if res, err = inner(); err != nil {
			return 0, err
		}
		return len(res.Steps), nil
	}
	return run, func() any { return res }
}

// fantasyMessages is fantasy's agent keeping only what continues the
// conversation: the messages of its steps, the AgentResult dropped.
func fantasyMessages(b *testing.B, url string, steps int, stream bool) (run func() (int, error), keep func() any) {
	inner := fantasyRunner(b, url, steps, stream)
	var msgs []fantasy.Message
	run = func() (int, error) {
		res, err := inner()
		if err != nil {
			return 0, err
		}
		msgs = nil
		for _, st := range res.Steps {
			msgs = append(msgs, st.Messages...)
		}
		return len(res.Steps), nil
	}
	return run, func() any { return msgs }
}

var agents = []struct {
	name string
	make func(b *testing.B, url string, steps int, stream bool) (func() (int, error), func() any)
}{
	{"bridle", bridleAgent},
	{"fantasy", fantasyAgent},
}

// BenchmarkAgentStep: runs of 1, 10 and 100 steps.
func BenchmarkAgentStep(b *testing.B) {
	for _, mode := range []string{"stream", "whole"} {
		for _, n := range []int{1, 10, 100} {
			srv := fakemodel.NewServer(n)
			for _, ag := range agents {
				b.Run(fmt.Sprintf("mode=%s/steps=%d/%s", mode, n, ag.name), func(b *testing.B) {
					run, _ := ag.make(b, srv.URL, n, mode == "stream")
					if _, err := run(); err != nil { // connections, caches
						b.Fatal(err)
					}
					b.ReportAllocs()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					runs := 0
					for b.Loop() {
						got, err := run()
						if err != nil {
							b.Fatal(err)
						}
						if got != n+1 {
							b.Fatalf("the run took %d replies, want %d", got, n+1)
						}
						runs++
					}
					runtime.ReadMemStats(&after)
					steps := float64(runs * n)
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/steps, "ns/step")
					b.ReportMetric(float64(after.Mallocs-before.Mallocs)/steps, "allocs/step")
				})
			}
			srv.Close()
		}
	}
}

// BenchmarkAgentHistory reports the heap a 1,000-step conversation keeps
// once the run is over, whole replies: Bridle's agent (its history);
// fantasy's AgentResult (its steps: content and messages); and, as
// fantasy-messages, only the messages of fantasy's steps.
func BenchmarkAgentHistory(b *testing.B) {
	const steps = 1000
	srv := fakemodel.NewServer(steps)
	defer srv.Close()
	history := append(agents[:len(agents):len(agents)], agents[1])
	history[len(history)-1].name, history[len(history)-1].make = "fantasy-messages", fantasyMessages
	for _, ag := range history {
		b.Run(ag.name, func(b *testing.B) {
			run, keep := ag.make(b, srv.URL, steps, false)
			var retained uint64
			for b.Loop() {
				var m0, m1 runtime.MemStats
				runtime.GC() // twice: pooled objects live through one GC
				runtime.GC()
				runtime.ReadMemStats(&m0)
				if _, err := run(); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.GC()
				runtime.ReadMemStats(&m1)
				retained = m1.HeapAlloc - m0.HeapAlloc
				runtime.KeepAlive(keep())
			}
			b.ReportMetric(float64(retained), "B/history")
			b.ReportMetric(float64(retained)/steps, "B/step")
		})
	}
}
