package main

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/mcp"
)

func testForm(input string) (*form, *bytes.Buffer, *[]string) {
	var out bytes.Buffer
	opened := &[]string{}
	u := newUI(&bytes.Buffer{}, &out, func(string) string { return "" })
	return &form{u: u, lines: newLineReader(strings.NewReader(input)), open: func(_ context.Context, url string) error {
		*opened = append(*opened, url)
		return nil
	}}, &out, opened
}

func TestElicitForm(t *testing.T) {
	one, hundred := 1.0, 100.0
	req := &mcp.ElicitRequest{
		Server:  "notes",
		Message: "Where should the note go?\x1b[2J",
		Fields: []mcp.ElicitField{
			{Name: "title", Type: "string", Description: "the note's title", Required: true},
			{Name: "count", Type: "integer", Min: &one, Max: &hundred, Default: float64(3)},
			{Name: "book", Title: "Notebook", Type: "string", Choices: []mcp.ElicitChoice{{Value: "w", Title: "Work"}, {Value: "h", Title: "Home"}}, Default: "w"},
			{Name: "tags", Type: "array", Choices: []mcp.ElicitChoice{{Value: "a"}, {Value: "b"}, {Value: "c"}}},
			{Name: "public", Type: "boolean"},
		},
	}
	for _, tc := range []struct {
		name, input string
		want        mcp.ElicitResult
		shows       []string
	}{
		{"accepting fills the form field by field, keeping defaults on empty lines", "a\n\nShopping\nlots\n500\n\n2\nb, c\nno\n",
			mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"title": "Shopping", "book": "h", "tags": []any{"b", "c"}, "public": false}},
			[]string{
				`? MCP server notes asks: Where should the note go?\x1b[2J`,
				"title (string, required): the note's title",
				"count (integer) [default: 3]",
				"Notebook (book) (string); one of: 1) w (Work), 2) h (Home) [default: w]",
				"tags (several of the choices, separated by commas); any of: 1) a, 2) b, 3) c",
				"[a]ccept / [d]ecline / [c]ancel",
				"title is required", `"lots" is not a number`, "500 is out of range: from 1 to 100",
			}},
		{"declining sends nothing", "d\n", mcp.ElicitResult{Action: mcp.ElicitDecline}, nil},
		{"anything else cancels", "what?\n", mcp.ElicitResult{Action: mcp.ElicitCancel}, nil},
		{"the end of input cancels, even mid-form", "a\nShopping\n", mcp.ElicitResult{Action: mcp.ElicitCancel}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, out, _ := testForm(tc.input)
			got, err := f.ask(t.Context(), req)
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ask = %#v, %v; want %#v", got, err, tc.want)
			}
			if strings.Contains(out.String(), "\x1b[2J") {
				t.Error("the server's escape sequence reached the terminal")
			}
			for _, s := range tc.shows {
				if !strings.Contains(out.String(), s) {
					t.Errorf("the form lacks %q:\n%s", s, out.String())
				}
			}
		})
	}
}

func TestElicitURL(t *testing.T) {
	req := &mcp.ElicitRequest{Server: "pay", Message: "Confirm the payment", URL: "https://pay.example/confirm?id=1"}
	t.Run("the URL opens only once the person agrees", func(t *testing.T) {
		f, out, opened := testForm("y\n")
		got, _ := f.ask(t.Context(), req)
		if got.Action != mcp.ElicitAccept || len(*opened) != 1 || (*opened)[0] != req.URL {
			t.Errorf("ask = %+v, opened %v", got, *opened)
		}
		if !strings.Contains(out.String(), "MCP server pay asks you to open a page: Confirm the payment\n  https://pay.example/confirm?id=1\n  open it in the browser? [y]es / [N]o") {
			t.Errorf("shown:\n%s", out.String())
		}
	})
	t.Run("no declines and opens nothing", func(t *testing.T) {
		f, _, opened := testForm("\n")
		got, _ := f.ask(t.Context(), req)
		if got.Action != mcp.ElicitDecline || len(*opened) != 0 {
			t.Errorf("ask = %+v, opened %v", got, *opened)
		}
	})
}

func TestElicitWithoutTerminalDeclines(t *testing.T) {
	var out bytes.Buffer
	s := &session{ui: newUI(&bytes.Buffer{}, &out, func(string) string { return "" })}
	got, err := s.elicitor()(t.Context(), &mcp.ElicitRequest{Server: "notes", Message: "m"})
	if err != nil || got.Action != mcp.ElicitDecline || !strings.Contains(out.String(), "declined a question from MCP server notes: there is no terminal to ask") {
		t.Errorf("elicitor = %+v, %v; said %q", got, err, out.String())
	}
}
