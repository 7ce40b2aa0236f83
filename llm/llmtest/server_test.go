package llmtest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func TestConfig(t *testing.T) {
	srv := llmtest.NewServer(nil)
	defer srv.Close()
	cases := []struct {
		name    string
		dialect llm.Dialect
		base    string
	}{
		{"Anthropic's base URL is the server's root", llm.Anthropic, srv.URL},
		{"OpenAI's base URL ends in /v1", llm.OpenAI, srv.URL + "/v1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := srv.Config(c.dialect)
			if cfg.Dialect != c.dialect || cfg.BaseURL != c.base || cfg.Model != "test-model" || cfg.APIKey != "test-key" {
				t.Errorf("config %+v", cfg)
			}
		})
	}
	t.Run("an unknown dialect panics naming it", func(t *testing.T) {
		defer func() {
			if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), `"gemini"`) {
				t.Errorf("recovered %v", v)
			}
		}()
		srv.Config("gemini")
	})
}

func TestUnknownRoutes(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "never"}))
	defer srv.Close()
	cases := []struct {
		name, method, path string
		header             string
		status             int
		anthropicShape     bool
	}{
		{"an OpenAI path without /v1 is a 404 in OpenAI's shape", "POST", "/chat/completions", "", 404, false},
		{"an Anthropic client's wrong path is a 404 in Anthropic's shape", "POST", "/messages", "2023-06-01", 404, true},
		{"a GET of a route is refused", "GET", "/v1/messages", "", 405, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(`{}`))
			if c.header != "" {
				req.Header.Set("anthropic-version", c.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			v := decode(t, resp)
			if resp.StatusCode != c.status {
				t.Errorf("status %d, want %d", resp.StatusCode, c.status)
			}
			msg, _ := get(v, "error", "message").(string)
			if (v["type"] == "error") != c.anthropicShape || !strings.Contains(msg, c.path) {
				t.Errorf("body %v", v)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests recorded for unknown routes", n)
	}
}

func TestScriptRunningOut(t *testing.T) {
	for _, d := range []llm.Dialect{llm.Anthropic, llm.OpenAI} {
		t.Run(string(d)+" answers 500 saying the script ran out", func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "one"}))
			defer srv.Close()
			post(t, srv, d, simple(d, false))
			resp := post(t, srv, d, simple(d, false))
			v := decode(t, resp)
			msg, _ := get(v, "error", "message").(string)
			if resp.StatusCode != 500 || !strings.Contains(msg, "script ran out") || !strings.Contains(msg, "request 2") {
				t.Errorf("status %d body %v", resp.StatusCode, v)
			}
		})
	}
}

func TestScriptPanicIsA500(t *testing.T) {
	srv := llmtest.NewServer(func(*llmtest.Request) llmtest.Reply { panic("boom") })
	defer srv.Close()
	resp := post(t, srv, llm.Anthropic, simple(llm.Anthropic, false))
	v := decode(t, resp)
	if msg, _ := get(v, "error", "message").(string); resp.StatusCode != 500 || !strings.Contains(msg, "boom") {
		t.Errorf("status %d body %v", resp.StatusCode, v)
	}
}

func TestBadReplyPartIsA500(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Parts: []llm.Part{llm.ToolResult("x", "y", false)}}))
	defer srv.Close()
	resp := post(t, srv, llm.OpenAI, simple(llm.OpenAI, false))
	v := decode(t, resp)
	if msg, _ := get(v, "error", "message").(string); resp.StatusCode != 500 || !strings.Contains(msg, `"tool_result"`) {
		t.Errorf("status %d body %v", resp.StatusCode, v)
	}
}

func TestFuncScriptSeesTheRequest(t *testing.T) {
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		if res := r.LastToolResults(); len(res) > 0 {
			return llmtest.Reply{Text: "the tool said " + res[0].Text}
		}
		return llmtest.Reply{Calls: []llmtest.Call{{ID: "t1", Name: "probe"}}}
	})
	defer srv.Close()
	v := decode(t, post(t, srv, llm.Anthropic, simple(llm.Anthropic, false)))
	if get(v, "content", 0, "name") != "probe" {
		t.Fatalf("first reply %v", v)
	}
	body := `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"probe","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"42"}]}]}`
	v = decode(t, post(t, srv, llm.Anthropic, body))
	if get(v, "content", 0, "text") != "the tool said 42" {
		t.Errorf("second reply %v", v)
	}
}

func TestFaultCountsAsOneReply(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Fault: &llmtest.Fault{Status: 429, Header: http.Header{"Retry-After": {"2"}}}},
		llmtest.Reply{Fault: &llmtest.Fault{Status: 529}},
		llmtest.Reply{Text: "ok", Fault: &llmtest.Fault{Header: http.Header{"anthropic-ratelimit-requests-remaining": {"7"}}}},
	))
	defer srv.Close()
	resp := post(t, srv, llm.Anthropic, simple(llm.Anthropic, false))
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("first: status %d retry-after %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp := post(t, srv, llm.Anthropic, simple(llm.Anthropic, false)); resp.StatusCode != 529 {
		t.Errorf("second: status %d", resp.StatusCode)
	}
	resp = post(t, srv, llm.Anthropic, simple(llm.Anthropic, false))
	v := decode(t, resp)
	if resp.StatusCode != 200 || get(v, "content", 0, "text") != "ok" || resp.Header.Get("Anthropic-Ratelimit-Requests-Remaining") != "7" {
		t.Errorf("third: status %d body %v header %v", resp.StatusCode, v, resp.Header)
	}
}

func TestFaultWithRawBody(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(
		llmtest.Reply{Fault: &llmtest.Fault{Status: 200, Body: "not json"}},
		llmtest.Reply{Fault: &llmtest.Fault{Status: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: "event: mystery\ndata: {}\n\n"}},
	))
	defer srv.Close()
	resp := post(t, srv, llm.OpenAI, simple(llm.OpenAI, false))
	if b, _ := io.ReadAll(resp.Body); string(b) != "not json" {
		t.Errorf("body %q", b)
	}
	resp = post(t, srv, llm.Anthropic, simple(llm.Anthropic, true))
	evs, err := readSSE(resp.Body)
	if err != nil || len(evs) != 1 || evs[0].name != "mystery" || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("events %v, err %v, header %v", evs, err, resp.Header)
	}
}

func TestStreamErrorInAWholeReply(t *testing.T) {
	cases := []struct {
		dialect llm.Dialect
		status  int
	}{{llm.Anthropic, 529}, {llm.OpenAI, 503}}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s answers %d", c.dialect, c.status), func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "x", StreamError: "busy"}))
			defer srv.Close()
			resp := post(t, srv, c.dialect, simple(c.dialect, false))
			v := decode(t, resp)
			if resp.StatusCode != c.status || get(v, "error", "message") != "busy" {
				t.Errorf("status %d body %v", resp.StatusCode, v)
			}
		})
	}
}

func TestDropAfter(t *testing.T) {
	for _, d := range []llm.Dialect{llm.Anthropic, llm.OpenAI} {
		t.Run(string(d)+" streams are cut after the given events", func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "a long enough answer", Fault: &llmtest.Fault{DropAfter: 3}}))
			defer srv.Close()
			resp := post(t, srv, d, simple(d, true))
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			evs, err := readSSE(resp.Body)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("read error %v, want unexpected EOF", err)
			}
			if len(evs) != 3 {
				t.Errorf("%d events before the drop, want 3", len(evs))
			}
		})
		t.Run(string(d)+" whole replies are cut halfway", func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "answer", Fault: &llmtest.Fault{DropAfter: 1}}))
			defer srv.Close()
			resp := post(t, srv, d, simple(d, false))
			b, err := io.ReadAll(resp.Body)
			if !errors.Is(err, io.ErrUnexpectedEOF) || len(b) == 0 || int64(len(b)) >= resp.ContentLength {
				t.Errorf("read %d of %d bytes, error %v", len(b), resp.ContentLength, err)
			}
		})
	}
}

func TestStallHoldsUntilTheClientGivesUp(t *testing.T) {
	for _, dropAfter := range []int{0, 2} {
		t.Run(fmt.Sprintf("after %d events", dropAfter), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			srv := llmtest.NewServer(func(*llmtest.Request) llmtest.Reply {
				if dropAfter == 0 {
					cancel() // the client gives up while the server holds the answer
				}
				return llmtest.Reply{Text: "slow", Fault: &llmtest.Fault{Stall: true, DropAfter: dropAfter}}
			})
			defer srv.Close()
			req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/messages", strings.NewReader(simple(llm.Anthropic, true)))
			resp, err := http.DefaultClient.Do(req)
			if dropAfter == 0 {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("error %v, want context.Canceled", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var evs []event
			buf := make([]byte, 1)
			var data strings.Builder
			for strings.Count(data.String(), "\n\n") < dropAfter {
				if _, err := resp.Body.Read(buf); err != nil {
					t.Fatal(err)
				}
				data.Write(buf)
			}
			evs, _ = readSSE(strings.NewReader(data.String()))
			if len(evs) != 2 {
				t.Errorf("%d events before the stall", len(evs))
			}
			cancel()
			if _, err := io.ReadAll(resp.Body); !errors.Is(err, context.Canceled) {
				t.Errorf("read error %v, want context.Canceled", err)
			}
		})
	}
}

func TestCloseReleasesAStall(t *testing.T) {
	called := make(chan struct{})
	srv := llmtest.NewServer(func(*llmtest.Request) llmtest.Reply {
		close(called)
		return llmtest.Reply{Fault: &llmtest.Fault{Stall: true}}
	})
	errc := make(chan error, 1)
	go func() {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(simple(llm.OpenAI, false)))
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			err = fmt.Errorf("status %d: %s", resp.StatusCode, b)
		}
		errc <- err
	}()
	<-called
	srv.Close()
	if err := <-errc; err == nil || strings.HasPrefix(err.Error(), "status") {
		t.Errorf("a stalled request was answered after Close: %v", err)
	}
}

func TestHeadersAreRedacted(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Replies(llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"}))
	defer srv.Close()
	post(t, srv, llm.Anthropic, simple(llm.Anthropic, false), "X-Api-Key", "sk-ant-secret1", "Anthropic-Version", "2023-06-01")
	post(t, srv, llm.OpenAI, simple(llm.OpenAI, false), "Authorization", "Bearer sk-secret2")
	reqs := srv.Requests()
	if got := reqs[0].Header.Get("X-Api-Key"); got != "[redacted]" {
		t.Errorf("x-api-key recorded as %q", got)
	}
	if got := reqs[0].Header.Get("Anthropic-Version"); got != "2023-06-01" {
		t.Errorf("anthropic-version recorded as %q", got)
	}
	if got := reqs[1].Header.Get("Authorization"); got != "Bearer [redacted]" {
		t.Errorf("authorization recorded as %q", got)
	}
	if dump := fmt.Sprintf("%+v %#v", reqs, reqs[0]) + fmt.Sprintf("%+v %#v", *reqs[0], *reqs[1]); strings.Contains(dump, "secret") {
		t.Errorf("a key reached a dump: %s", dump)
	}
	cases := []struct {
		name string
		req  int
		key  string
		want bool
	}{
		{"the Anthropic key is known", 0, "sk-ant-secret1", true},
		{"the bearer token is known", 1, "sk-secret2", true},
		{"another key is not", 0, "sk-secret2", false},
		{"an empty key is not", 1, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := reqs[c.req].HasKey(c.key); got != c.want {
				t.Errorf("HasKey(%q) = %v", c.key, got)
			}
		})
	}
}

func TestConcurrentRequests(t *testing.T) {
	const n = 20
	replies := make([]llmtest.Reply, n)
	for i := range replies {
		replies[i] = llmtest.Reply{Text: fmt.Sprint(i)}
	}
	srv := llmtest.NewServer(llmtest.Replies(replies...))
	defer srv.Close()
	var wg sync.WaitGroup
	for i := range n {
		d := llm.Anthropic
		if i%2 == 1 {
			d = llm.OpenAI
		}
		wg.Go(func() {
			resp, err := http.Post(srv.URL+path(d), "application/json", strings.NewReader(simple(d, i%3 == 0)))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("status %d", resp.StatusCode)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := len(srv.Requests()); got != n {
		t.Errorf("%d requests recorded, want %d", got, n)
	}
}
