package llm_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func TestNewRejectsBadConfig(t *testing.T) {
	good := llm.Config{Dialect: llm.OpenAI, Model: "m"}
	tests := []struct {
		name string
		edit func(c *llm.Config)
		want string
	}{
		{"a missing dialect", func(c *llm.Config) { c.Dialect = "" }, "set Dialect"},
		{"an unknown dialect", func(c *llm.Config) { c.Dialect = "gemini" }, `unknown dialect "gemini"`},
		{"a missing model", func(c *llm.Config) { c.Model = " " }, "set Config.Model"},
		{"a base URL that is not http", func(c *llm.Config) { c.BaseURL = "localhost:11434" }, "not an http or https URL"},
		{"a key with a newline", func(c *llm.Config) { c.APIKey = "sk-secret\n" }, "control character"},
		{"Extra that is not JSON", func(c *llm.Config) { c.Extra = map[string]any{"bad": make(chan int)} }, `Config.Extra["bad"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			cfg := good
			tt.edit(&cfg)
			_, err := llm.New(cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Fatalf("the key leaked: %v", err)
			}
		})
	}
}

func TestBadRequests(t *testing.T) {
	c, srv := newClient(t, llm.Anthropic, llmtest.Replies(ok))
	tests := []struct {
		name string
		req  *llm.Request
		want string
	}{
		{"a nil request", nil, "nil request"},
		{"no messages", &llm.Request{}, "no messages"},
		{"a system role message", &llm.Request{Messages: []llm.Message{{Role: "system", Parts: []llm.Part{llm.Text("x")}}}}, "Request.System"},
		{"tool arguments that are not JSON", &llm.Request{Messages: []llm.Message{{Role: llm.Assistant,
			Parts: []llm.Part{{Type: llm.PartToolCall, ID: "1", Name: "read", Args: []byte("{")}}}}}, `tool call "read"`},
		{"a schema that is not JSON", &llm.Request{Tools: []llm.ToolSpec{{Name: "t", Schema: []byte("{")}},
			Messages: []llm.Message{llm.UserText("q")}}, `tool "t"`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused before sending", func(t *testing.T) {
			_, err := c.Send(context.Background(), tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			_, err = llm.Collect(c.Stream(context.Background(), tt.req))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("stream got %v, want %q", err, tt.want)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

func TestExtraAndHeadersReachTheWire(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d)+" merges Extra over the body and adds Headers", func(t *testing.T) {
			c, srv := newClient(t, d, llmtest.Replies(ok), func(c *llm.Config) {
				c.Extra = map[string]any{"metadata": map[string]string{"user_id": "u1"}, "max_tokens": 77, "seed": 3}
				c.Headers = http.Header{"Anthropic-Beta": {"feature-1"}, "X-Trace": {"abc"}}
			})
			if _, err := c.Send(context.Background(), ask("q")); err != nil {
				t.Fatal(err)
			}
			r := srv.Requests()[0]
			b := bodyOf(t, r)
			md, _ := b["metadata"].(map[string]any)
			if md["user_id"] != "u1" || b["seed"] != 3.0 || b["max_tokens"] != 77.0 {
				t.Fatalf("body %s", r.Body)
			}
			if r.Header.Get("Anthropic-Beta") != "feature-1" || r.Header.Get("X-Trace") != "abc" {
				t.Fatalf("headers %v", r.Header)
			}
		})
	}
	t.Run("a nil Extra value removes a field", func(t *testing.T) {
		c, srv := newClient(t, llm.OpenAI, llmtest.Replies(ok), func(c *llm.Config) {
			c.Extra = map[string]any{"stream_options": nil}
		})
		if _, err := llm.Collect(c.Stream(context.Background(), ask("q"))); err != nil {
			t.Fatal(err)
		}
		if b := bodyOf(t, srv.Requests()[0]); b["stream_options"] != nil || b["stream"] != true {
			t.Fatalf("body %v", b)
		}
	})
}

func TestAuthHeaders(t *testing.T) {
	tests := []struct {
		name   string
		d      llm.Dialect
		key    string
		check  func(h http.Header) bool
		hasKey bool
	}{
		{"anthropic sends x-api-key and the version", llm.Anthropic, "test-key", func(h http.Header) bool {
			return h.Get("Anthropic-Version") == "2023-06-01" && h.Get("Authorization") == ""
		}, true},
		{"openai sends a bearer token", llm.OpenAI, "test-key", func(h http.Header) bool {
			return strings.HasPrefix(h.Get("Authorization"), "Bearer ")
		}, true},
		{"openai without a key sends no Authorization", llm.OpenAI, "", func(h http.Header) bool {
			return h.Get("Authorization") == ""
		}, false},
		{"anthropic without a key sends no x-api-key", llm.Anthropic, "", func(h http.Header) bool {
			return h.Get("X-Api-Key") == ""
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, srv := newClient(t, tt.d, llmtest.Replies(ok), func(c *llm.Config) { c.APIKey = tt.key })
			if _, err := c.Send(context.Background(), ask("q")); err != nil {
				t.Fatal(err)
			}
			r := srv.Requests()[0]
			if !tt.check(r.Header) || r.HasKey("test-key") != tt.hasKey {
				t.Fatalf("headers %v", r.Header)
			}
		})
	}
}

func TestKeyNeverLeaks(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	for _, d := range dialects {
		t.Run(string(d)+" keeps the key out of errors and logs", func(t *testing.T) {
			var log logBuffer
			c, _ := newClient(t, d, llmtest.Replies(
				llmtest.Reply{Fault: &llmtest.Fault{Status: 401, Message: "Incorrect API key provided: " + key + "."}},
			), func(c *llm.Config) { c.APIKey, c.Logger = key, log.logger() })
			_, err := c.Send(context.Background(), ask("q"))
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != 401 {
				t.Fatalf("got %v", err)
			}
			if strings.Contains(err.Error(), key) || strings.Contains(log.String(), key) {
				t.Fatalf("the key leaked:\n%v\n%s", err, log.String())
			}
			if !strings.Contains(apiErr.Message, "[redacted]") {
				t.Fatalf("message %q", apiErr.Message)
			}
			if !strings.Contains(log.String(), "llm request") {
				t.Fatalf("requests are not logged at debug: %s", log.String())
			}
		})
	}
}

func TestUsageIsNormalised(t *testing.T) {
	u := llm.Usage{Input: 1000, Output: 50, CacheRead: 600, CacheWrite: 300}
	for _, d := range dialects {
		t.Run(string(d)+" counts every input token in Input", func(t *testing.T) {
			if d == llm.OpenAI {
				u.CacheWrite = 0 // OpenAI reports no cache writes
			}
			for _, stream := range []bool{false, true} {
				c, _ := newClient(t, d, llmtest.Replies(llmtest.Reply{Text: "x", Usage: u}))
				if got := send(t, c, ask("q"), stream).Usage; got != u {
					t.Fatalf("stream %v: usage %+v, want %+v", stream, got, u)
				}
			}
		})
	}
}

func TestStopReasons(t *testing.T) {
	for _, d := range dialects {
		for _, stop := range []llm.StopReason{llm.StopEnd, llm.StopMaxTokens, llm.StopToolUse, llm.StopRefusal} {
			t.Run(string(d)+" maps "+string(stop), func(t *testing.T) {
				reply := llmtest.Reply{Text: "x", Stop: stop}
				if stop == llm.StopToolUse {
					reply.Calls = []llmtest.Call{{Name: "t"}}
				}
				c, _ := newClient(t, d, llmtest.Replies(reply, reply))
				for _, stream := range []bool{false, true} {
					resp := send(t, c, ask("q"), stream)
					if resp.Stop != stop || resp.RawStop == "" {
						t.Fatalf("stop %q (raw %q), want %q", resp.Stop, resp.RawStop, stop)
					}
				}
			})
		}
	}
	for _, stop := range []llm.StopReason{llm.StopSequence, llm.StopPause} {
		t.Run("anthropic maps "+string(stop), func(t *testing.T) {
			c, _ := newClient(t, llm.Anthropic, llmtest.Replies(llmtest.Reply{Text: "x", Stop: stop}))
			if resp := send(t, c, ask("q"), false); resp.Stop != stop {
				t.Fatalf("stop %q", resp.Stop)
			}
		})
	}
	t.Run("an unknown raw stop is other and kept", func(t *testing.T) {
		c, _ := newClient(t, llm.Anthropic, llmtest.Replies(llmtest.Reply{Text: "x", RawStop: "brand_new"}))
		if resp := send(t, c, ask("q"), true); resp.Stop != llm.StopOther || resp.RawStop != "brand_new" {
			t.Fatalf("stop %q raw %q", resp.Stop, resp.RawStop)
		}
	})
}

func TestToolChoiceOnTheWire(t *testing.T) {
	tools := []llm.ToolSpec{{Name: "read"}, {Name: "write"}}
	tests := []struct {
		name   string
		d      llm.Dialect
		choice llm.ToolChoice
		want   string // JSON of tool_choice, "" for none
		para   any
	}{
		{"anthropic auto sends nothing", llm.Anthropic, llm.ToolChoice{}, "", nil},
		{"anthropic any", llm.Anthropic, llm.ToolChoice{Mode: llm.ToolAny}, `{"type":"any"}`, nil},
		{"anthropic none", llm.Anthropic, llm.ToolChoice{Mode: llm.ToolNone}, `{"type":"none"}`, nil},
		{"anthropic a named tool", llm.Anthropic, llm.ToolChoice{Mode: llm.ToolName, Name: "read"}, `{"name":"read","type":"tool"}`, nil},
		{"anthropic no parallel calls", llm.Anthropic, llm.ToolChoice{NoParallel: true}, `{"disable_parallel_tool_use":true,"type":"auto"}`, nil},
		{"openai auto sends nothing", llm.OpenAI, llm.ToolChoice{}, "", nil},
		{"openai any is required", llm.OpenAI, llm.ToolChoice{Mode: llm.ToolAny}, `"required"`, nil},
		{"openai none", llm.OpenAI, llm.ToolChoice{Mode: llm.ToolNone}, `"none"`, nil},
		{"openai a named tool", llm.OpenAI, llm.ToolChoice{Mode: llm.ToolName, Name: "read"}, `{"function":{"name":"read"},"type":"function"}`, nil},
		{"openai no parallel calls", llm.OpenAI, llm.ToolChoice{NoParallel: true}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, srv := newClient(t, tt.d, llmtest.Replies(ok))
			req := ask("q")
			req.Tools, req.ToolChoice = tools, tt.choice
			if _, err := c.Send(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			b := bodyOf(t, srv.Requests()[0])
			got := ""
			if v, ok := b["tool_choice"]; ok {
				got = mustJSON(v)
			}
			if got != tt.want || b["parallel_tool_calls"] != tt.para {
				t.Fatalf("tool_choice %s, parallel_tool_calls %v", got, b["parallel_tool_calls"])
			}
		})
	}
}

func TestCacheBreakpoints(t *testing.T) {
	history := []llm.Message{
		llm.UserText("first question"),
		{Role: llm.Assistant, Parts: []llm.Part{llm.ToolCall("t1", "read", nil)}},
		{Role: llm.User, Parts: []llm.Part{llm.ToolResult("t1", "file", false)}},
		{Role: llm.Assistant, Parts: []llm.Part{llm.Text("answer")}},
		llm.UserText("second question"),
	}
	req := &llm.Request{System: "sys", Tools: []llm.ToolSpec{{Name: "a"}, {Name: "read"}}, Messages: history}
	t.Run("the last tool, the system prompt and the last two user turns are marked", func(t *testing.T) {
		c, srv := newClient(t, llm.Anthropic, llmtest.Replies(ok))
		if _, err := c.Send(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		body := string(srv.Requests()[0].Body)
		if n := strings.Count(body, `"cache_control":{"type":"ephemeral"}`); n != 4 {
			t.Fatalf("%d breakpoints in %s", n, body)
		}
		for _, s := range []string{
			`"name":"read","input_schema":{"type":"object","properties":{}},"cache_control"`,
			`"text":"sys","cache_control"`,
			`"text":"second question","cache_control"`,
			`"content":"file","cache_control"`,
		} {
			if !strings.Contains(body, s) {
				t.Errorf("no breakpoint at %s", s)
			}
		}
	})
	t.Run("NoCache sets none", func(t *testing.T) {
		c, srv := newClient(t, llm.Anthropic, llmtest.Replies(ok), func(c *llm.Config) { c.NoCache = true })
		if _, err := c.Send(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(srv.Requests()[0].Body), "cache_control") {
			t.Fatal("breakpoints sent with NoCache")
		}
	})
}

func TestPresets(t *testing.T) {
	names := []string{"anthropic", "openai", "ollama", "openrouter", "groq", "deepseek", "mistral",
		"gemini", "xai", "together", "lmstudio", "llamacpp", "vllm"}
	if got := len(llm.Presets()); got != len(names) {
		t.Fatalf("%d presets", got)
	}
	for _, name := range names {
		t.Run(name+" is found and makes a client", func(t *testing.T) {
			p, err := llm.FindPreset(strings.ToUpper(name))
			if err != nil {
				t.Fatal(err)
			}
			local := strings.HasPrefix(p.BaseURL, "http://localhost")
			if p.Name != name || (p.KeyEnv == "") != local || (p.DefaultModel == "") != local {
				t.Fatalf("preset %+v", p)
			}
			cfg := p.Config("k")
			cfg.Model = "m"
			if _, err := llm.New(cfg); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("an unknown preset lists the known ones", func(t *testing.T) {
		_, err := llm.FindPreset("nope")
		if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "anthropic, openai, ollama") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("Presets returns a copy", func(t *testing.T) {
		llm.Presets()[0].Name = "changed"
		if llm.Presets()[0].Name != "anthropic" {
			t.Fatal("the preset table changed")
		}
	})
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-secret"}
	getenv := func(k string) string { return env[k] }
	t.Run("reads the key from the preset's variable", func(t *testing.T) {
		cfg, err := llm.ConfigFromEnv("anthropic", getenv)
		if err != nil || cfg.APIKey != "sk-ant-secret" || cfg.Dialect != llm.Anthropic || cfg.Model == "" {
			t.Fatalf("got %+v, %v", cfg, err)
		}
	})
	t.Run("a missing key names the variable to set", func(t *testing.T) {
		_, err := llm.ConfigFromEnv("openai", getenv)
		if !errors.Is(err, llm.ErrNoKey) || !strings.Contains(err.Error(), "set OPENAI_API_KEY") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a local server needs no key", func(t *testing.T) {
		cfg, err := llm.ConfigFromEnv("ollama", getenv)
		if err != nil || cfg.APIKey != "" || cfg.BaseURL != "http://localhost:11434/v1" {
			t.Fatalf("got %+v, %v", cfg, err)
		}
	})
	t.Run("an unknown preset is an error", func(t *testing.T) {
		if _, err := llm.ConfigFromEnv("nope", getenv); err == nil {
			t.Fatal("no error")
		}
	})
}
