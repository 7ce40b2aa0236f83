package main

import (
	"bytes"
	"testing"

	"github.com/bridle-dev/bridle/agent"
)

func TestResultPreviews(t *testing.T) {
	tests := []struct {
		name string
		ev   agent.Event
		want string
	}{
		{"a result shows its first lines and how many more",
			agent.Event{Type: agent.EventReturned, Call: agent.Call{Name: "grep"}, Output: "a:1: x\nb:2: y\nc:3: z\nd:4: w\ne:5: v\n"},
			"  │ a:1: x\n  │ b:2: y\n  │ c:3: z\n  │ … 2 more lines\n"},
		{"a failure is named and its next lines shown",
			agent.Event{Type: agent.EventReturned, Call: agent.Call{Name: "bash"}, Output: "boom\nexit status 3", Failed: true},
			"[tool] bash failed: boom …\n  │ exit status 3\n"},
		{"go_test's FAIL is a failure",
			agent.Event{Type: agent.EventReturned, Call: agent.Call{Name: "mcp__gotools__go_test"}, Output: "FAIL: 1 passed, 1 failed, 0 skipped\n\n--- FAIL: TestX"},
			"[tool] mcp__gotools__go_test failed: FAIL: 1 passed, 1 failed, 0 skipped …\n  │ \n  │ --- FAIL: TestX\n"},
		{"go_check's problems are a failure",
			agent.Event{Type: agent.EventReturned, Call: agent.Call{Name: "mcp__gotools__go_check"}, Output: "go build found problems in .:\nmain.go:3:1: undefined: x"},
			"[tool] mcp__gotools__go_check failed: go build found problems in .: …\n  │ main.go:3:1: undefined: x\n"},
		{"go_run's non-zero exit is a failure",
			agent.Event{Type: agent.EventReturned, Call: agent.Call{Name: "mcp__gotools__go_run"}, Output: "exit code: 2\n--- stderr\npanic"},
			"[tool] mcp__gotools__go_run failed: exit code: 2 …\n  │ --- stderr\n  │ panic\n"},
		{"go_run's zero exit is not",
			agent.Event{Type: agent.EventReturned, Call: agent.Call{Name: "mcp__gotools__go_run"}, Output: "exit code: 0"},
			"  │ exit code: 0\n"},
		{"escapes in a result are inert",
			agent.Event{Type: agent.EventReturned, Call: agent.Call{Name: "x"}, Output: "\x1b]0;t\x07ok"},
			"  │ \\x1b]0;t\\x07ok\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errw bytes.Buffer
			u := newUI(&out, &errw, func(string) string { return "" })
			u.event(tt.ev)
			if got := errw.String(); got != tt.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
