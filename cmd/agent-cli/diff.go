package main

import (
	"fmt"
	"strings"
)

// diffLine is one line of a unified diff: kind is ' ' (both), '-' (old
// only), '+' (new only) or '@' (a hunk header, in text).
type diffLine struct {
	kind byte
	text string
}

// maxDiffCells bounds the table of the line diff; beyond it the differing
// middle of the two texts is shown as removed, then added: still a correct
// diff, only not the shortest.
const maxDiffCells = 4 << 20

// unifiedDiff returns the lines of a unified diff from a to b, with
// context lines of context around each change, and hunk headers. Equal
// texts give nil.
func unifiedDiff(a, b []string, context int) []diffLine {
	ops := lineOps(a, b)
	var out []diffLine
	for i := 0; i < len(ops); {
		// Find the next change.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-context)
		// Extend the hunk while changes are close.
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		stop := min(len(ops), end+context)
		as, bs := ops[start].a, ops[start].b
		var an, bn int
		for _, op := range ops[start:stop] {
			if op.kind != '+' {
				an++
			}
			if op.kind != '-' {
				bn++
			}
		}
		out = append(out, diffLine{'@', fmt.Sprintf("@@ -%s +%s @@", hunkSpan(as, an), hunkSpan(bs, bn))})
		for _, op := range ops[start:stop] {
			out = append(out, diffLine{op.kind, op.text})
		}
		i = stop
	}
	return out
}

func hunkSpan(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// lineOp is one line of the edit script, with its index in a and b.
type lineOp struct {
	kind byte
	text string
	a, b int
}

// lineOps is the edit script from a to b: common prefix and suffix, and a
// longest common subsequence of the middle when it is small enough.
func lineOps(a, b []string) []lineOp {
	var ops []lineOp
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		ops = append(ops, lineOp{' ', a[p], p, p})
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if len(ma)*len(mb) <= maxDiffCells {
		ops = append(ops, lcsOps(ma, mb, p)...)
	} else {
		for i, l := range ma {
			ops = append(ops, lineOp{'-', l, p + i, p})
		}
		for i, l := range mb {
			ops = append(ops, lineOp{'+', l, p + len(ma), p + i})
		}
	}
	for i := s; i > 0; i-- {
		ops = append(ops, lineOp{' ', a[len(a)-i], len(a) - i, len(b) - i})
	}
	return ops
}

func lcsOps(a, b []string, off int) []lineOp {
	n, m := len(a), len(b)
	// l[i][j] is the length of the LCS of a[i:] and b[j:].
	l := make([][]int32, n+1)
	for i := range l {
		l[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var ops []lineOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, lineOp{' ', a[i], off + i, off + j})
			i++
			j++
		case i < n && (j == m || l[i+1][j] >= l[i][j+1]):
			ops = append(ops, lineOp{'-', a[i], off + i, off + j})
			i++
		default:
			ops = append(ops, lineOp{'+', b[j], off + i, off + j})
			j++
		}
	}
	return ops
}

// splitLines splits text into lines without their endings; "" has none.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}
