package llmtest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

// BenchmarkStream serves a 1 MB streamed text reply over loopback and reads
// it whole; bytes per second count the reply's text.
func BenchmarkStream(b *testing.B) {
	text := strings.Repeat("All work and no play makes Jack a dull boy. ", 1<<20/44)
	for _, d := range []llm.Dialect{llm.Anthropic, llm.OpenAI} {
		b.Run(string(d), func(b *testing.B) {
			srv := llmtest.NewServer(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: text} })
			defer srv.Close()
			body := simple(d, true)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				resp, err := http.Post(srv.URL+path(d), "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
		})
	}
}
