package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/tool"
)

func TestApprovalView(t *testing.T) {
	dir := t.TempDir()
	var old strings.Builder
	for i := range 100 {
		fmt.Fprintf(&old, "line %d\n", i)
	}
	os.WriteFile(filepath.Join(dir, "old.txt"), []byte(old.String()), 0o644)
	w, err := openWorkdir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	changed := strings.Replace(old.String(), "line 50\n", "line fifty\n", 1)
	long := strings.Repeat("line\n", 40)
	filler := strings.Repeat("x", 240)
	tests := []struct {
		name string
		call agent.Call
		want string
		cut  bool
	}{
		{"a new file is shown whole", agent.Call{Name: "write_file", Args: []byte(`{"path":"a/b.go","content":"package b\n\nfunc B() {}\n"}`)},
			"write_file a/b.go: creates it (23 bytes, 3 lines)\n│ package b\n│ \n│ func B() {}", false},
		{"a long new file shows its first lines and how many more", agent.Call{Name: "write_file", Args: []byte(`{"path":"n.txt","content":"` + strings.ReplaceAll(long, "\n", `\n`) + `"}`)},
			"write_file n.txt: creates it (200 bytes, 40 lines)\n" + strings.Repeat("│ line\n", 22) + "│ … 18 more lines ([v]iew shows all)", true},
		{"a long replacement shows a diff", agent.Call{Name: "write_file", Args: []byte(`{"path":"old.txt","content":"` + strings.ReplaceAll(changed, "\n", `\n`) + `"}`)},
			"write_file old.txt: replaces it (790 bytes, 100 lines) with 793 bytes, 100 lines; the changes:\n@@ -48,7 +48,7 @@\n  line 47\n  line 48\n  line 49\n- line 50\n+ line fifty\n  line 51\n  line 52\n  line 53", true},
		{"edit_file shows a diff", agent.Call{Name: "edit_file", Args: []byte(`{"path":"m.go","old":"a\nb\n","new":"c\n"}`)},
			"edit_file m.go\n- a\n- b\n+ c", false},
		{"code is shown as code, first, whatever the order the model wrote", agent.Call{Name: "mcp__gotools__go_run", Risk: tool.Exec,
			Args: []byte(`{"args":["` + filler + `"],"stdin":"in","code":"package main\n\nfunc main() { println(\"hi\") }\n"}`)},
			"mcp__gotools__go_run\ncode:\n│ package main\n│ \n│ func main() { println(\"hi\") }\nargs:\n│ \"" + filler + "\"\nstdin: in", false},
		{"short arguments are one per line", agent.Call{Name: "mcp__gotools__go_test", Risk: tool.Exec, Args: []byte(`{ "run": "TestX", "path": "." , "timeout_seconds": 5}`)},
			"mcp__gotools__go_test\npath: .\nrun: TestX\ntimeout_seconds: 5", false},
		{"a tool without arguments says so", agent.Call{Name: "now", Args: []byte(`{}`)},
			"now (no arguments)", false},
		{"escapes in arguments are shown, not obeyed", agent.Call{Name: "x", Args: []byte(`{"command":"ls\u001b[2K\rrm -rf ~"}`)},
			"x\ncommand:\n│ ls\\x1b[2K\\rrm -rf ~", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, cut := callView(w, tt.call).render(nil, 24, 80)
			if got := strings.Join(lines, "\n"); got != tt.want || cut != tt.cut {
				t.Fatalf("view (cut %v):\n%s\nwant (cut %v):\n%s", cut, got, tt.cut, tt.want)
			}
			full, _ := callView(w, tt.call).render(nil, 0, 0)
			if tt.cut && len(full) <= len(lines) {
				t.Errorf("the full view has %d lines, no more than the short one", len(full))
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
		{"a path with escapes is inert", `{"path":"a\u001b]0;t\u0007\nb"}`, ` a\x1b]0;t\x07\nb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summary(agent.Call{Args: []byte(tt.args)}); got != tt.want {
				t.Fatalf("summary(%s) = %q; want %q", tt.args, got, tt.want)
			}
		})
	}
}
