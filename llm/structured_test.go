package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

type forecast struct {
	City  string `json:"city" jsonschema:"the city"`
	TempC int    `json:"temp_c"`
	Sky   string `json:"sky,omitempty"`
}

const forecastJSON = `{"city":"Lyon","temp_c":21,"sky":"clear"}`

// outputOf returns the schema a request carried, in either dialect's
// field, or "" when it has none.
func outputOf(t *testing.T, r *llmtest.Request) string {
	b := bodyOf(t, r)
	if oc, ok := b["output_config"].(map[string]any); ok {
		return mustJSON(oc["format"].(map[string]any)["schema"])
	}
	if rf, ok := b["response_format"].(map[string]any); ok {
		return mustJSON(rf["json_schema"].(map[string]any)["schema"])
	}
	return ""
}

func TestStructuredOutputIsAskedForAndDecoded(t *testing.T) {
	for _, d := range dialects {
		for _, stream := range []bool{false, true} {
			t.Run(string(d)+map[bool]string{false: " whole", true: " streamed"}[stream], func(t *testing.T) {
				c, srv := newClient(t, d, llmtest.Replies(llmtest.Reply{Text: forecastJSON}))
				req := ask("weather in Lyon?")
				req.Output = llm.OutputFor[forecast]("forecast", "today's weather")
				resp := send(t, c, req, stream)
				got, err := llm.Decode[forecast](resp)
				if err != nil || got != (forecast{"Lyon", 21, "clear"}) {
					t.Fatalf("decoded %+v, %v", got, err)
				}
				schema := outputOf(t, srv.Requests()[0])
				if !strings.Contains(schema, `"temp_c"`) || !strings.Contains(schema, `"required":["city","temp_c"]`) {
					t.Fatalf("the request's schema is %s", schema)
				}
				if d == llm.OpenAI {
					rf := bodyOf(t, srv.Requests()[0])["response_format"].(map[string]any)
					if rf["type"] != "json_schema" || rf["json_schema"].(map[string]any)["name"] != "forecast" {
						t.Fatalf("response_format = %v", rf)
					}
				}
			})
		}
	}
}

func TestStructuredOutputBecomesAToolWhenRefused(t *testing.T) {
	refusals := map[llm.Dialect]*llmtest.Fault{
		llm.Anthropic: {Status: 400, Message: "output_config.format: Extra inputs are not permitted"},
		llm.OpenAI:    {Status: 400, Message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", Param: "response_format"},
	}
	for _, d := range dialects {
		for _, stream := range []bool{false, true} {
			t.Run(string(d)+map[bool]string{false: " whole", true: " streamed"}[stream], func(t *testing.T) {
				script := func(r *llmtest.Request) llmtest.Reply {
					if outputOf(t, r) != "" {
						return llmtest.Reply{Fault: refusals[d]}
					}
					if len(r.Tools) != 1 || r.Tools[0] != "output" {
						return llmtest.Reply{Text: "no output tool offered"}
					}
					return llmtest.Reply{Text: "Here it is.", Calls: []llmtest.Call{{Name: "output", Args: forecastJSON}}}
				}
				c, srv := newClient(t, d, script)
				var rs retries
				for i := range 2 {
					req := ask("weather in Lyon?")
					req.Output = llm.OutputFor[forecast]("", "")
					var resp *llm.Response
					var evs []llm.Event
					var err error
					if stream {
						evs, resp, err = collect(t, c.Stream(rs.ctx(), req))
					} else {
						resp, err = c.Send(rs.ctx(), req)
					}
					if err != nil {
						t.Fatal(err)
					}
					got, err := llm.Decode[forecast](resp)
					if err != nil || got.City != "Lyon" || resp.Stop != llm.StopEnd || len(resp.ToolCalls()) != 0 {
						t.Fatalf("reply %+v decoded as %+v, %v; want the call turned into the answer", resp, got, err)
					}
					for _, ev := range evs {
						if ev.Type == llm.EventToolStart || ev.Type == llm.EventToolCall {
							t.Fatalf("the output tool's call reached the caller as %v", ev)
						}
					}
					if stream && !strings.Contains(streamText(evs), forecastJSON) {
						t.Fatalf("streamed text %q lacks the answer", streamText(evs))
					}
					if i == 1 && len(srv.Requests()) != 3 {
						t.Fatalf("%d requests; the repair was not remembered", len(srv.Requests()))
					}
				}
				if got := rs.all(); len(got) != 1 || !strings.Contains(got[0].Reason, "→ tool output") {
					t.Fatalf("repairs reported: %+v", got)
				}
			})
		}
	}
}

func TestDecodeSaysWhatIsWrongWithTheRawText(t *testing.T) {
	tests := []struct {
		name, text string
		stop       llm.StopReason
		want       string
	}{
		{"not JSON", "It is sunny in Lyon.", llm.StopEnd, "not JSON"},
		{"a missing field", `{"city":"Lyon"}`, llm.StopEnd, "temp_c"},
		{"a wrong type", `{"city":"Lyon","temp_c":"warm"}`, llm.StopEnd, "temp_c"},
		{"cut off", `{"city":"Ly`, llm.StopMaxTokens, "token limit"},
		{"empty", "", llm.StopEnd, "no text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := llm.Decode[forecast](&llm.Response{Parts: []llm.Part{llm.Text(tt.text)}, Stop: tt.stop})
			var oe *llm.OutputError
			if !errors.As(err, &oe) || oe.Text != tt.text || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an *llm.OutputError with the text and %q", err, tt.want)
			}
		})
	}
	got, err := llm.Decode[forecast](&llm.Response{Parts: []llm.Part{llm.Text("```json\n" + forecastJSON + "\n```")}})
	if err != nil || got.TempC != 21 {
		t.Fatalf("a fenced answer: %+v, %v", got, err)
	}
}

func TestStructuredSendsAndDecodes(t *testing.T) {
	for _, d := range dialects {
		c, srv := newClient(t, d, llmtest.Replies(llmtest.Reply{Text: forecastJSON}, llmtest.Reply{Text: `{"city":1}`}))
		got, resp, err := llm.Structured[forecast](context.Background(), c, ask("weather?"))
		if err != nil || got.City != "Lyon" || resp == nil || outputOf(t, srv.Requests()[0]) == "" {
			t.Fatalf("%s: %+v, %v", d, got, err)
		}
		_, resp, err = llm.Structured[forecast](context.Background(), c, ask("weather?"))
		var oe *llm.OutputError
		if !errors.As(err, &oe) || resp == nil || oe.Text != `{"city":1}` {
			t.Fatalf("%s: a mismatch gave %v", d, err)
		}
	}
	if _, err := newClientNoT(llm.Anthropic).Send(context.Background(), &llm.Request{Messages: ask("q").Messages, Output: &llm.Output{Name: "x"}}); err == nil || !strings.Contains(err.Error(), "no schema") {
		t.Fatalf("an Output without a schema: %v", err)
	}
}

func newClientNoT(d llm.Dialect) llm.Client {
	c, _ := llm.New(llm.Config{Dialect: d, Model: "m", BaseURL: "http://127.0.0.1:1"})
	return c
}

func TestTheOutputToolIsOfferedNotForcedWithThinking(t *testing.T) {
	c, srv := newClient(t, llm.Anthropic, func(r *llmtest.Request) llmtest.Reply {
		if outputOf(t, r) != "" {
			return llmtest.Reply{Fault: &llmtest.Fault{Status: 400, Message: "output_config: not supported by this model"}}
		}
		return llmtest.Reply{Calls: []llmtest.Call{{Name: "output", Args: forecastJSON}}}
	})
	req := ask("weather?")
	req.ThinkingBudget = 2048
	got, _, err := llm.Structured[forecast](context.Background(), c, req)
	if err != nil || got.City != "Lyon" {
		t.Fatalf("%+v, %v", got, err)
	}
	if choice := bodyOf(t, srv.Requests()[1])["tool_choice"]; mustJSON(choice) != `{"type":"auto"}` {
		t.Fatalf("tool_choice %v, want auto with thinking on", choice)
	}
}
