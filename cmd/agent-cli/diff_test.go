package main

import (
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	render := func(d []diffLine) string {
		var b strings.Builder
		for _, l := range d {
			if l.kind == '@' {
				b.WriteString(l.text + "\n")
			} else {
				b.WriteString(string(l.kind) + l.text + "\n")
			}
		}
		return b.String()
	}
	tests := []struct {
		name, a, b, want string
	}{
		{"equal texts give nothing", "a\nb\n", "a\nb\n", ""},
		{"a changed line in the middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n",
			"@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n"},
		{"a new file", "", "x\ny\n", "@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"two far changes make two hunks", "a\n1\n2\n3\n4\n5\n6\n7\n8\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\n8\nB\n",
			"@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -7,4 +7,4 @@\n 6\n 7\n 8\n-b\n+B\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render(unifiedDiff(splitLines(tt.a), splitLines(tt.b), 3)); got != tt.want {
				t.Errorf("diff:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
