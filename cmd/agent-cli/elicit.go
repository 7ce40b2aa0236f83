package main

import (
	"context"
	"fmt"
	"github.com/bridle-dev/bridle/internal/inert"
	"strings"
	"sync"

	"github.com/bridle-dev/bridle/mcp"
)

// clientOptions are the options of every configured MCP server's session:
// its questions to the person (elicitation) go to the terminal.
func (s *session) clientOptions() *mcp.ClientOptions {
	return &mcp.ClientOptions{Elicit: s.elicitor()}
}

// elicitor answers a server's questions on the terminal, one at a time;
// without a terminal it declines them all.
func (s *session) elicitor() mcp.Elicitor {
	if s.lines == nil {
		return func(_ context.Context, r *mcp.ElicitRequest) (mcp.ElicitResult, error) {
			s.ui.notice("declined a question from MCP server %s: there is no terminal to ask", r.Server)
			return mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
		}
	}
	var one sync.Mutex
	return func(ctx context.Context, r *mcp.ElicitRequest) (mcp.ElicitResult, error) {
		one.Lock()
		defer one.Unlock()
		f := &form{u: s.ui, lines: s.lines, open: mcp.OpenBrowser}
		return f.ask(ctx, r)
	}
}

// form asks the person one elicitation on the terminal:
//
//	? MCP server notes asks: Which notebook?
//	    notebook (string, required): where the note goes; one of: 1) work, 2) home [default: work]
//	  [a]ccept / [d]ecline / [c]ancel
//
// then, once accepted, each field in turn; an empty line keeps the
// default, and the end of input cancels.
type form struct {
	u     *ui
	lines *lineReader
	open  func(ctx context.Context, url string) error
}

// say writes lines to the activity stream, stopping the spinner.
func (f *form) say(format string, args ...any) {
	f.u.mu.Lock()
	defer f.u.mu.Unlock()
	f.u.stopSpinLocked()
	f.u.breakLineLocked()
	fmt.Fprintf(f.u.err, format, args...)
}

func (f *form) read(ctx context.Context) (string, error) {
	line, err := f.lines.next(ctx)
	if err != nil {
		f.say("\n")
	}
	return strings.TrimSpace(line), err
}

func (f *form) ask(ctx context.Context, r *mcp.ElicitRequest) (mcp.ElicitResult, error) {
	defer func() {
		f.u.mu.Lock()
		f.u.startSpinLocked()
		f.u.mu.Unlock()
	}()
	q := f.u.paint(bold+";"+yellow, "?")
	if r.URL != "" {
		f.say("%s MCP server %s asks you to open a page: %s\n  %s\n  open it in the browser? [y]es / [N]o ",
			q, f.u.paint(bold, r.Server), inert.String(r.Message), inert.Line(r.URL))
		answer, err := f.read(ctx)
		if err != nil {
			return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
		}
		if a := strings.ToLower(answer); a != "y" && a != "yes" {
			return mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
		}
		if err := f.open(ctx, r.URL); err != nil {
			f.say("  (%v: open the URL yourself)\n", err)
		}
		return mcp.ElicitResult{Action: mcp.ElicitAccept}, nil
	}

	var b strings.Builder
	fmt.Fprintf(&b, "%s MCP server %s asks: %s\n", q, f.u.paint(bold, r.Server), inert.String(r.Message))
	for _, fl := range r.Fields {
		fmt.Fprintf(&b, "    %s\n", describeField(fl))
	}
	b.WriteString("  [a]ccept / [d]ecline / [c]ancel ")
	f.say("%s", b.String())
	answer, err := f.read(ctx)
	if err != nil {
		return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
	}
	switch strings.ToLower(answer) {
	case "a", "accept", "y", "yes":
	case "d", "decline", "n", "no":
		return mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
	default:
		return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
	}
	content := map[string]any{}
	for _, fl := range r.Fields {
		v, ok, err := f.field(ctx, fl)
		if err != nil {
			return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
		}
		if ok {
			content[fl.Name] = v
		}
	}
	return mcp.ElicitResult{Action: mcp.ElicitAccept, Content: content}, nil
}

// field reads one field until its value is valid. It reports false for a
// field left empty: the default, if any, is then filled in by package mcp.
func (f *form) field(ctx context.Context, fl mcp.ElicitField) (any, bool, error) {
	prompt := "  " + inert.String(fieldName(fl))
	if fl.Default != nil {
		prompt += fmt.Sprintf(" [%s]", inert.String(fmt.Sprint(fl.Default)))
	}
	prompt += ": "
	for {
		f.say("%s", prompt)
		text, err := f.read(ctx)
		if err != nil {
			return nil, false, err
		}
		if text == "" {
			if fl.Default != nil || !fl.Required {
				return nil, false, nil
			}
			f.say("  %s is required\n", inert.String(fieldName(fl)))
			continue
		}
		v, err := fl.Value(text)
		if err != nil {
			f.say("  %s\n", inert.String(err.Error()))
			continue
		}
		return v, true, nil
	}
}

func fieldName(fl mcp.ElicitField) string {
	if fl.Title != "" && fl.Title != fl.Name {
		return fl.Title + " (" + fl.Name + ")"
	}
	return fl.Name
}

// describeField is one line saying what a field wants: its name, type,
// whether it is required, its description, its choices and its default.
func describeField(fl mcp.ElicitField) string {
	var b strings.Builder
	kind := fl.Type
	if fl.Format != "" {
		kind += ", " + fl.Format
	}
	if fl.Type == "array" {
		kind = "several of the choices, separated by commas"
	}
	if fl.Required {
		kind += ", required"
	}
	fmt.Fprintf(&b, "%s (%s)", fieldName(fl), kind)
	if fl.Description != "" {
		b.WriteString(": " + fl.Description)
	}
	if len(fl.Choices) > 0 {
		if fl.Type == "array" {
			b.WriteString("; any of: ")
		} else {
			b.WriteString("; one of: ")
		}
		for i, c := range fl.Choices {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d) %s", i+1, c.Value)
			if c.Title != "" && c.Title != c.Value {
				fmt.Fprintf(&b, " (%s)", c.Title)
			}
		}
	}
	if fl.Default != nil {
		fmt.Fprintf(&b, " [default: %v]", fl.Default)
	}
	return inert.String(b.String())
}
