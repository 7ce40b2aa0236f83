package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// A web search block, a result block and a compaction block, as Claude
// sends them.
var (
	searchUse    = json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"go 1.26"}}`)
	searchResult = json.RawMessage(`{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://go.dev/doc/go1.26","title":"Go 1.26","encrypted_content":"RW5j"}]}`)
	compaction   = json.RawMessage(`{"type":"compaction","content":"Summary so far."}`)
	cite         = json.RawMessage(`{"type":"web_search_result_location","cited_text":"Go 1.26 is out.","url":"https://go.dev/doc/go1.26","title":"Go 1.26","encrypted_index":"SWR4"}`)
	annotation   = json.RawMessage(`{"type":"url_citation","url_citation":{"start_index":0,"end_index":9,"url":"https://go.dev/doc/go1.26","title":"Go 1.26"}}`)
	thoughtSig   = json.RawMessage(`{"extra_content":{"google":{"thought_signature":"c2ln"}}}`)
)

// providerReply is a reply carrying provider data in the dialect's shapes.
func providerReply(d llm.Dialect) llmtest.Reply {
	call := llm.ToolCall("call_1", "weather", json.RawMessage(`{"city":"Lyon"}`))
	call.Raw = thoughtSig
	text := llm.Text("Go 1.26 is out.")
	if d == llm.Anthropic {
		call.Raw = json.RawMessage(`{"caller":{"type":"direct"}}`)
		text.Citations = []llm.Citation{{Raw: cite}}
		return llmtest.Reply{Parts: []llm.Part{llm.Provider("", compaction), llm.Provider("", searchUse),
			llm.Provider("", searchResult), text, call}}
	}
	text.Citations = []llm.Citation{{Raw: annotation}}
	return llmtest.Reply{Parts: []llm.Part{text, call}}
}

func TestProviderDataGoesBackToItsOrigin(t *testing.T) {
	for _, d := range dialects {
		for _, stream := range []bool{false, true} {
			t.Run(string(d)+map[bool]string{false: " whole", true: " streamed"}[stream], func(t *testing.T) {
				c, srv := newClient(t, d, llmtest.Replies(providerReply(d), llmtest.Reply{Text: "ok"}))
				resp := send(t, c, ask("what is new in Go?"), stream)
				calls := resp.ToolCalls()
				if len(calls) != 1 || !jsonEqual(calls[0].Raw, string(providerReply(d).Parts[len(providerReply(d).Parts)-1].Raw)) || calls[0].Origin == "" {
					t.Fatalf("tool call = %+v, want its provider fields and an origin", calls)
				}
				var text llm.Part
				var provider []llm.Part
				for _, p := range resp.Parts {
					switch p.Type {
					case llm.PartText:
						text = p
					case llm.PartProvider:
						provider = append(provider, p)
					}
				}
				if len(text.Citations) != 1 || text.Citations[0].URL != "https://go.dev/doc/go1.26" || text.Citations[0].Title != "Go 1.26" {
					t.Fatalf("citations = %+v, want the one source with its URL and title", text.Citations)
				}
				if d == llm.Anthropic {
					if len(provider) != 3 || !jsonEqual(provider[1].Raw, string(searchUse)) || !jsonEqual(provider[2].Raw, string(searchResult)) || !jsonEqual(provider[0].Raw, string(compaction)) {
						t.Fatalf("provider parts = %+v, want the compaction, search and result blocks as sent", provider)
					}
					if text.Citations[0].Quote != "Go 1.26 is out." {
						t.Fatalf("quote = %q", text.Citations[0].Quote)
					}
				} else if text.Citations[0].Start != 0 || text.Citations[0].End != 9 {
					t.Fatalf("span = %d..%d, want 0..9", text.Citations[0].Start, text.Citations[0].End)
				}

				req := ask("what is new in Go?")
				req.Messages = append(req.Messages, resp.Message(), llm.Message{Role: llm.User,
					Parts: []llm.Part{llm.ToolResult(calls[0].ID, "sunny", false)}})
				send(t, c, req, stream)
				got := srv.Requests()[1].Messages[1].Parts
				sent := map[string]json.RawMessage{}
				for _, p := range got {
					switch p.Type {
					case llm.PartToolCall:
						sent["call"] = p.Raw
					case llm.PartText:
						if len(p.Citations) > 0 {
							sent["cite"] = p.Citations[0].Raw
						}
					default:
						sent[string(p.Type)] = p.Raw
					}
				}
				if !jsonEqual(sent["call"], string(calls[0].Raw)) {
					t.Errorf("tool call went back with %s, want %s", sent["call"], calls[0].Raw)
				}
				if d == llm.Anthropic {
					for typ, want := range map[string]json.RawMessage{"server_tool_use": searchUse, "web_search_tool_result": searchResult, "compaction": compaction, "cite": cite} {
						if !jsonEqual(sent[typ], string(want)) {
							t.Errorf("%s went back as %s, want %s", typ, sent[typ], want)
						}
					}
				}
			})
		}
	}
}

func TestProviderDataIsLeftOutForAnotherProvider(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			from, _ := newClient(t, d, llmtest.Replies(providerReply(d)))
			resp := send(t, from, ask("what is new in Go?"), true)
			var logs logBuffer
			to, srv := newClient(t, d, llmtest.Replies(llmtest.Reply{Text: "ok"}), func(c *llm.Config) { c.Logger = logs.logger() })
			req := ask("what is new in Go?")
			req.Messages = append(req.Messages, resp.Message(), llm.Message{Role: llm.User,
				Parts: []llm.Part{llm.ToolResult(resp.ToolCalls()[0].ID, "sunny", false)}})
			send(t, to, req, false)
			body := string(srv.Requests()[0].Body)
			for _, s := range []string{"thought_signature", "caller", "server_tool_use", "compaction", "encrypted_index", "url_citation"} {
				if strings.Contains(body, s) {
					t.Errorf("the request to another provider holds %s:\n%s", s, body)
				}
			}
			if !strings.Contains(logs.String(), "provider data left out") {
				t.Errorf("nothing logged about what was left out:\n%s", logs.String())
			}
			if !strings.Contains(body, "Go 1.26 is out.") || !strings.Contains(body, "weather") {
				t.Errorf("the text or the call itself was lost:\n%s", body)
			}
		})
	}
}

func TestContainerIsSentWhenSet(t *testing.T) {
	c, srv := newClient(t, llm.Anthropic, llmtest.Replies(llmtest.Reply{Text: "ok"}))
	req := ask("run it again")
	req.Container = "container_011abc"
	send(t, c, req, false)
	if got := bodyOf(t, srv.Requests()[0])["container"]; got != "container_011abc" {
		t.Fatalf("container = %v, want the id set on the request", got)
	}
}

func TestAnHTMLPageIsNamedInOneLine(t *testing.T) {
	page := "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>" + strings.Repeat("<p>nginx</p>\n", 100) + "</body></html>"
	for _, d := range dialects {
		for _, status := range []int{502, 200} {
			for _, stream := range []bool{false, true} {
				f := &llmtest.Fault{Status: status, Body: page, Header: map[string][]string{"Content-Type": {"text/html"}}}
				c, _ := newClient(t, d, llmtest.Replies(llmtest.Reply{Fault: f}), func(c *llm.Config) { c.MaxRetries = -1 })
				var err error
				if stream {
					_, err = llm.Collect(c.Stream(context.Background(), ask("q")))
				} else {
					_, err = c.Send(context.Background(), ask("q"))
				}
				if err == nil || !strings.Contains(err.Error(), `HTML page titled "502 Bad Gateway"`) || strings.Contains(err.Error(), "nginx") || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s status %d stream %v: %v", d, status, stream, err)
				}
			}
		}
	}
}
