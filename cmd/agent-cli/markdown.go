package main

import (
	"strings"

	"charm.land/glamour/v2"
	"github.com/bridle-dev/bridle/internal/inert"
)

// markdown renders the answer on a terminal, block by block as it streams:
// text is held until a blank line ends a paragraph, list or code block,
// and that block is rendered with glamour (headings, emphasis, lists, code
// with its highlighting). The text is made inert before it is rendered,
// so the only escape sequences written are glamour's own.
type markdown struct {
	r       *glamour.TermRenderer
	pending strings.Builder
}

func newMarkdown(width int) *markdown {
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(max(40, width-2)))
	if err != nil {
		return nil
	}
	return &markdown{r: r}
}

// next takes a piece of the answer and returns what can be shown now.
func (m *markdown) next(piece string) string {
	m.pending.WriteString(piece)
	text := m.pending.String()
	cut := blockEnd(text)
	if cut == 0 {
		return ""
	}
	m.pending.Reset()
	m.pending.WriteString(text[cut:])
	return m.render(text[:cut])
}

// flush returns the rest, rendered.
func (m *markdown) flush() string {
	text := m.pending.String()
	m.pending.Reset()
	if strings.TrimSpace(text) == "" {
		return ""
	}
	return m.render(text)
}

func (m *markdown) render(text string) string {
	out, err := m.r.Render(inert.String(text))
	if err != nil {
		return inert.String(text)
	}
	return strings.Trim(out, "\n") + "\n\n"
}

// blockEnd returns where the last complete block of text ends: after the
// last blank line that is outside a code fence, or 0.
func blockEnd(text string) int {
	end, fenced, pos := 0, false, 0
	for _, line := range strings.SplitAfter(text, "\n") {
		pos += len(line)
		if !strings.HasSuffix(line, "\n") {
			break // the line is not finished
		}
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			if !fenced {
				end = pos // a code block ends a block too
			}
			continue
		}
		if !fenced && trimmed == "" {
			end = pos
		}
	}
	return end
}
