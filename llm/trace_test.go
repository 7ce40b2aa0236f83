package llm_test

import (
	"testing"

	"go.opentelemetry.io/otel/codes"

	tt "github.com/bridle-dev/bridle/internal/telemetry/telemetrytest"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func TestEveryRequestIsAChatSpan(t *testing.T) {
	ctx, tr := tt.Start(t.Context(), t)
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Fault: &llmtest.Fault{Status: 529}},
		llmtest.Reply{Text: "hi", Usage: llm.Usage{Input: 30, Output: 4, CacheRead: 20}},
		llmtest.Reply{Fault: &llmtest.Fault{Status: 400}},
	))
	defer srv.Close()
	cfg := srv.Config(llm.OpenAI)
	cfg.MaxRetryWait = 1 // no real wait between attempts
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{Messages: []llm.Message{llm.UserText("hello")}, MaxTokens: 100}
	if _, err := c.Send(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Collect(c.Stream(ctx, req)); err == nil {
		t.Fatal("the 400 did not fail")
	}
	spans := tr.Spans()
	if len(spans) != 2 {
		t.Fatalf("%d spans for two requests (one retried)", len(spans))
	}
	ok, failed := spans[0], spans[1]
	attrs := map[string]string{
		"gen_ai.operation.name":                "chat",
		"gen_ai.provider.name":                 "openai",
		"gen_ai.request.model":                 cfg.Model,
		"gen_ai.request.max_tokens":            "100",
		"gen_ai.request.stream":                "false",
		"gen_ai.usage.input_tokens":            "30",
		"gen_ai.usage.output_tokens":           "4",
		"gen_ai.usage.cache_read.input_tokens": "20",
		"gen_ai.response.finish_reasons":       `["end"]`,
		"server.address":                       "127.0.0.1",
	}
	for key, want := range attrs {
		if got, _ := tt.Attr(ok, key); got != want {
			t.Errorf("%s = %q; want %q", key, got, want)
		}
	}
	if ok.Name() != "chat "+cfg.Model {
		t.Errorf("name %q", ok.Name())
	}
	if evs := ok.Events(); len(evs) != 1 || evs[0].Name != "retry" {
		t.Errorf("events %v; want the retry", evs)
	}
	if got, _ := tt.Attr(failed, "error.type"); got != "400" || failed.Status().Code != codes.Error {
		t.Errorf("the failed request: error.type %q, status %v", got, failed.Status())
	}
	if got, _ := tt.Attr(failed, "gen_ai.request.stream"); got != "true" {
		t.Errorf("stream = %q", got)
	}
}
