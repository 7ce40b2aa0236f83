package main

import (
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/tool"
)

func TestApprovalView(t *testing.T) {
	u := &ui{}
	long := strings.Repeat("line\n", 20)
	tests := []struct {
		name string
		call agent.Call
		want string
	}{
		{"write_file shows the path and size", agent.Call{Name: "write_file", Args: []byte(`{"path":"a/b.go","content":"package b\n\nfunc B() {}\n"}`)},
			"write_file a/b.go (23 bytes, 3 lines)"},
		{"a large write_file shows KiB", agent.Call{Name: "write_file", Args: []byte(`{"path":"big","content":"` + strings.Repeat("x", 3000) + `"}`)},
			"write_file big (2.9 KiB, 1 line)"},
		{"edit_file shows a diff", agent.Call{Name: "edit_file", Args: []byte(`{"path":"m.go","old":"a\nb\n","new":"c\n"}`)},
			"edit_file m.go\n- a\n- b\n+ c"},
		{"a long edit is cut", agent.Call{Name: "edit_file", Args: []byte(`{"path":"m.go","old":"` + strings.ReplaceAll(long, "\n", `\n`) + `","new":""}`)},
			"edit_file m.go\n" + strings.Repeat("- line\n", maxDiffLines) + "- … 12 more lines"},
		{"another tool shows its arguments as compact JSON", agent.Call{Name: "mcp__gotools__go_run", Risk: tool.Exec, Args: []byte(`{ "path": "hello" }`)},
			`mcp__gotools__go_run {"path":"hello"}`},
		{"a tool without arguments says so", agent.Call{Name: "now", Args: []byte(`{}`)},
			"now (no arguments)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(u.view(tt.call), "\n"); got != tt.want {
				t.Fatalf("view:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{
		{"a path is shown", `{"path":"main.go"}`, " main.go"},
		{"content is shown by its size", `{"path":"x.txt","content":"hello"}`, " x.txt (5 bytes)"},
		{"no path shows nothing", `{"query":"x"}`, ""},
		{"bad JSON shows nothing", `{`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summary(agent.Call{Args: []byte(tt.args)}); got != tt.want {
				t.Fatalf("summary(%s) = %q; want %q", tt.args, got, tt.want)
			}
		})
	}
}
