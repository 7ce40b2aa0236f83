package main

import (
	"context"
	"strings"
	"testing"
)

func TestHelloAnswersWithWhatTheToolReturned(t *testing.T) {
	var stdout, stderr strings.Builder
	if err := run(context.Background(), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if got, want := stdout.String(), "The sentence has 9 words.\n"; got != want {
		t.Errorf("stdout = %q; want %q", got, want)
	}
	if !strings.Contains(stderr.String(), "[tool] count_words") {
		t.Errorf("stderr = %q; want the tool call", stderr.String())
	}
}
