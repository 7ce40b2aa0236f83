package redact

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://api.anthropic.com", "https://api.anthropic.com"},
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"},
		{"http://user:PASSWORD@host/v1", "http://user:***@host/v1"},
		{"http://TOKEN@host/v1", "http://***@host/v1"},
		{"https://host/v1?key=K&v=2", "https://host/v1?key=***&v=***"},
		{"https://host/v1?flag", "https://host/v1?flag=***"},
		{"https://u:p@host/mcp?token=T#frag", "https://u:***@host/mcp?token=***"},
		{"http://[::1]:80/x", "http://[::1]:80/x"},
		{"::not a url?key=K", "::not a url?***"},
		{"https://u:PASSWORD@host/\x1b?token=T", "https://***@host/\x1b?***"},
	}
	for _, tt := range tests {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestErrorHidesEveryFormOfTheURL(t *testing.T) {
	raw := "http://user:PASSWORD@host/v1?key=SECRET"
	base := errors.New("boom")
	for _, msg := range []string{raw, "Post \"http://user:***@host/v1?key=SECRET\": refused"} {
		err := Error(fmt.Errorf("%s: %w", msg, base), raw)
		if strings.Contains(err.Error(), "PASSWORD") || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("Error kept a secret: %v", err)
		}
		if !errors.Is(err, base) {
			t.Errorf("Error lost the chain: %v", err)
		}
	}
}

func TestURLErrorRewritesTheRequestURL(t *testing.T) {
	req, _ := http.NewRequest("POST", "http://127.0.0.1:1/v1/chat/completions?key=SECRET", nil)
	_, err := (&http.Client{}).Do(req)
	if err == nil {
		t.Skip("something answers on port 1")
	}
	err = fmt.Errorf("llm: %w", URLError(err))
	if strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "key=***") {
		t.Errorf("URLError = %v", err)
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Errorf("the *url.Error is gone: %v", err)
	}
}
