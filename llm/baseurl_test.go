package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestABaseURLKeepsItsQueryOnEveryRequest(t *testing.T) {
	for _, tt := range []struct {
		d          Dialect
		base, want string
	}{
		{OpenAI, "http://h.example/v1?key=K", "http://h.example/v1/chat/completions?key=K"},
		{OpenAI, "http://h.example/v1/?key=K&v=2", "http://h.example/v1/chat/completions?key=K&v=2"},
		{Anthropic, "https://proxy.example?key=K", "https://proxy.example/v1/messages?key=K"},
	} {
		tr, _ := testTransport(t, Config{Dialect: tt.d, BaseURL: tt.base, Model: "m"})
		if tr.url != tt.want {
			t.Errorf("%s %q: %q, want %q", tt.d, tt.base, tr.url, tt.want)
		}
	}

	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.Path+"?"+r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`))
	}))
	defer srv.Close()
	tr, _ := testTransport(t, Config{Dialect: OpenAI, BaseURL: srv.URL + "/v1?key=K", Model: "m"})
	for range 2 {
		if _, err := tr.send(context.Background(), &Request{Messages: []Message{UserText("q")}}); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, " ") != "/v1/chat/completions?key=K /v1/chat/completions?key=K" {
		t.Errorf("requests went to %q", got)
	}
}

func TestConnectionErrorsHideTheBaseURLsSecrets(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := strings.TrimPrefix(srv.URL, "http://")
	srv.Close()
	tr, _ := testTransport(t, Config{Dialect: OpenAI, BaseURL: "http://user:PASSWORD@" + addr + "/v1?key=SECRET", Model: "m"})
	_, err := tr.send(context.Background(), &Request{Messages: []Message{UserText("q")}})
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	if msg := err.Error(); strings.Contains(msg, "PASSWORD") || strings.Contains(msg, "SECRET") || !strings.Contains(msg, "key=***") {
		t.Errorf("error = %v", err)
	}
	_, err = New(Config{Dialect: OpenAI, BaseURL: "ftp://u:PASSWORD@h/?key=SECRET", Model: "m"})
	if err == nil || strings.Contains(err.Error(), "PASSWORD") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("New = %v", err)
	}
}
