package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

type noteIn struct {
	Title string   `json:"title" jsonschema:"the note's title"`
	Body  string   `json:"body,omitempty" jsonschema:"the text of the note"`
	Tags  []string `json:"tags,omitempty"`
	Stars int      `json:"stars,omitempty" jsonschema:"from 0 to 5"`
	Draft bool     `json:"draft,omitempty"`
	Place *struct {
		City string `json:"city"`
	} `json:"place,omitempty"`
}

// noteTool echoes what it was given, so tests can see what reached it.
func noteTool() Tool {
	return New("save_note", "Saves a note.", Write, func(_ context.Context, in noteIn) (string, error) {
		if in.Title == "boom" {
			panic("the title is boom")
		}
		if in.Title == "fail" {
			return "", errors.New("the disk is full")
		}
		return fmt.Sprintf("%s|%s|%v|%d|%v", in.Title, in.Body, in.Tags, in.Stars, in.Draft), nil
	})
}

func TestCheckName(t *testing.T) {
	tests := []struct {
		name, tool string
		err        string // part of the error, "" for none
	}{
		{"letters digits underscores and dashes pass", "read_file-2", ""},
		{"one character passes", "x", ""},
		{"64 characters pass", strings.Repeat("a", 64), ""},
		{"an empty name is refused", "", "empty"},
		{"65 characters are refused", strings.Repeat("a", 65), "limit is 64"},
		{"a space is refused", "read file", `' '`},
		{"a dot is refused", "files.read", `'.'`},
		{"a slash is refused", "fs/read", `'/'`},
		{"non-ASCII letters are refused", "lire_fichier_é", `'é'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckName(tt.tool)
			if tt.err == "" {
				if err != nil {
					t.Errorf("CheckName(%q) = %v", tt.tool, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("CheckName(%q) = %v, want an error containing %q", tt.tool, err, tt.err)
			}
		})
	}
}

func TestPrepare(t *testing.T) {
	fn := func(context.Context, json.RawMessage) (string, error) { return "ok", nil }
	tests := []struct {
		name string
		tool Tool
		err  string // parts of the error separated by |, "" for none
	}{
		{"a nil schema becomes an empty object schema", Tool{Risk: Read, Name: "t", Func: fn}, ""},
		{"an object schema passes", Tool{Risk: Read, Name: "t", Func: fn, Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}, ""},
		{"an empty name is refused", Tool{Func: fn}, "empty"},
		{"a bad name is refused", Tool{Risk: Read, Name: "a b", Func: fn}, `"a b"`},
		{"a missing Func is refused", Tool{Risk: Read, Name: "t"}, `"t"|no Func`},
		{"an unknown risk is refused", Tool{Name: "t", Func: fn, Risk: Risk(9)}, `"t"|unknown risk 9`},
		{"a schema that is not JSON is refused", Tool{Risk: Read, Name: "t", Func: fn, Schema: json.RawMessage(`{`)}, `"t"|not a JSON Schema`},
		{"an array schema is refused", Tool{Risk: Read, Name: "t", Func: fn, Schema: json.RawMessage(`{"type":"array"}`)}, `"t"|"object"|"array"`},
		{"a schema without a type is refused", Tool{Risk: Read, Name: "t", Func: fn, Schema: json.RawMessage(`{"properties":{}}`)}, `"t"|no type`},
		{"a schema with a type list is refused", Tool{Risk: Read, Name: "t", Func: fn, Schema: json.RawMessage(`{"type":["object","null"]}`)}, `"t"|["object" "null"]`},
		{"a schema with a dangling reference is refused", Tool{Risk: Read, Name: "t", Func: fn, Schema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`)}, `"t"|does not resolve`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.tool.Prepare()
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Prepare: %v", err)
				}
				if p.resolved == nil || len(p.Schema) == 0 {
					t.Errorf("prepared tool has schema %s, resolved %v", p.Schema, p.resolved != nil)
				}
				if _, err := p.Call(context.Background(), nil); err != nil {
					t.Errorf("Call on the prepared tool: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Prepare accepted the tool")
			}
			for _, want := range strings.Split(tt.err, "|") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %s", err, want)
				}
			}
		})
	}
}

func TestPrepareIsIdempotent(t *testing.T) {
	a, err := noteTool().Prepare()
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	if a.resolved != b.resolved {
		t.Error("Prepare resolved an already prepared schema again")
	}
}

func TestNew(t *testing.T) {
	tl := noteTool()
	if tl.Name != "save_note" || tl.Description != "Saves a note." || tl.Risk != Write || tl.resolved == nil {
		t.Errorf("New gave %+v", tl)
	}
	var schema struct {
		Type       string
		Required   []string
		Properties map[string]struct {
			Type        any
			Description string
		}
	}
	if err := json.Unmarshal(tl.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || strings.Join(schema.Required, ",") != "title" {
		t.Errorf("schema type %q, required %v; want object, [title]", schema.Type, schema.Required)
	}
	for field, want := range map[string]struct{ Type, Description string }{
		"title": {"string", "the note's title"},
		"stars": {"integer", "from 0 to 5"},
		"tags":  {"[null array]", ""},
		"draft": {"boolean", ""},
	} {
		got := schema.Properties[field]
		if fmt.Sprint(got.Type) != want.Type || got.Description != want.Description {
			t.Errorf("property %s = %+v, want %+v", field, got, want)
		}
	}
}

func TestNewPanicsOnProgrammingErrors(t *testing.T) {
	fn := func(context.Context, int) (string, error) { return "", nil }
	tests := []struct {
		name  string
		f     func()
		panic string
	}{
		{"an input that is not a struct", func() { New("count", "", Read, fn) }, `"count"`},
		{"an invalid name", func() {
			New("bad name", "", Read, func(context.Context, struct{}) (string, error) { return "", nil })
		}, `"bad name"`},
		{"an input a schema cannot describe", func() {
			New("chan", "", Read, func(context.Context, struct{ C chan int }) (string, error) { return "", nil })
		}, `"chan"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatal("New did not panic")
				}
				if msg := fmt.Sprint(r); !strings.Contains(msg, tt.panic) {
					t.Errorf("panic %q does not name %s", msg, tt.panic)
				}
			}()
			tt.f()
		})
	}
}

func TestCall(t *testing.T) {
	tl := noteTool()
	tests := []struct {
		name    string
		args    string
		want    string
		err     string // parts of the error separated by |
		invalid bool   // the error wraps ErrInvalidArgs
	}{
		{"valid arguments reach the function", `{"title":"a","body":"b","tags":["x"],"stars":3,"draft":true}`, "a|b|[x]|3|true", "", false},
		{"optional arguments may be left out", `{"title":"a"}`, "a||[]|0|false", "", false},
		{"whitespace around arguments is fine", " \n{\"title\":\"a\"}\n", "a||[]|0|false", "", false},
		{"a whole float is an integer", `{"title":"a","stars":2.0}`, "a||[]|2|false", "", false},
		{"the function's error comes back as is", `{"title":"fail"}`, "", "the disk is full", false},
		{"a panic becomes an error naming the tool", `{"title":"boom"}`, "", "save_note|panicked|the title is boom", false},
		{"a missing required argument is named", `{"body":"b"}`, "", `missing required argument "title"`, true},
		{"empty arguments lack the required one", ``, "", `missing required argument "title"`, true},
		{"null arguments lack the required one", `null`, "", `missing required argument "title"`, true},
		{"a string where an integer goes is named", `{"title":"a","stars":"five"}`, "", `argument "stars" must be an integer, not a string`, true},
		{"a fraction where an integer goes is named", `{"title":"a","stars":2.5}`, "", `"stars" must be an integer, not a number`, true},
		{"a number where a string goes is named", `{"title":7}`, "", `"title" must be a string, not an integer`, true},
		{"an object where an array goes is named", `{"title":"a","tags":{}}`, "", `"tags" must be an array or null, not an object`, true},
		{"null where a boolean goes is named", `{"title":"a","draft":null}`, "", `"draft" must be a boolean, not null`, true},
		{"an unknown argument is named", `{"title":"a","colour":"red"}`, "", `unknown argument "colour"`, true},
		{"a wrong type inside an array is refused", `{"title":"a","tags":[1]}`, "", "tags", true},
		{"a missing field in a nested object is refused", `{"title":"a","place":{}}`, "", "city", true},
		{"arguments that are not JSON are refused", `{"title":`, "", "not valid JSON", true},
		{"an array is not an object", `["a"]`, "", "must be a JSON object, not an array", true},
		{"a string is not an object", `"a"`, "", "must be a JSON object, not a string", true},
		{"an integer too big for Go is refused", `{"title":"a","stars":1e300}`, "", "stars", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tl.Call(context.Background(), json.RawMessage(tt.args))
			if tt.err == "" {
				if err != nil || got != tt.want {
					t.Errorf("Call = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Call = %q, want an error", got)
			}
			for _, want := range strings.Split(tt.err, "|") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if errors.Is(err, ErrInvalidArgs) != tt.invalid {
				t.Errorf("errors.Is(%q, ErrInvalidArgs) = %v, want %v", err, !tt.invalid, tt.invalid)
			}
		})
	}
}

func TestValidateNamesTheFirstWrongArgumentByName(t *testing.T) {
	tl, err := noteTool().Prepare()
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"title":{},"stars":"x","colour":"red","draft":1,"body":2}`)
	for range 50 { // map order changes from run to run
		if err := tl.Validate(args); err == nil || !strings.Contains(err.Error(), `"body"`) {
			t.Fatalf("Validate = %v, want the error about body", err)
		}
	}
}

func TestCallDoesNotRunTheFunctionOnInvalidArguments(t *testing.T) {
	ran := false
	tl := New("count", "", Read, func(context.Context, struct {
		N int `json:"n"`
	}) (string, error) {
		ran = true
		return "", nil
	})
	if _, err := tl.Call(context.Background(), json.RawMessage(`{"n":"x"}`)); !errors.Is(err, ErrInvalidArgs) {
		t.Errorf("Call = %v, want ErrInvalidArgs", err)
	}
	if ran {
		t.Error("the function ran")
	}
}

func TestCallWithoutPrepare(t *testing.T) {
	fn := func(_ context.Context, args json.RawMessage) (string, error) { return string(args), nil }
	tests := []struct {
		name string
		tool Tool
		args string
		want string
		err  string
	}{
		{"a literal with a schema validates", Tool{Risk: Read, Name: "t", Func: fn, Schema: json.RawMessage(`{"type":"object","required":["a"]}`)}, `{}`, "", `missing required argument "a"`},
		{"a literal without a schema takes any object", Tool{Risk: Read, Name: "t", Func: fn}, `{"x":1}`, `{"x":1}`, ""},
		{"a literal without a schema gets {} for no arguments", Tool{Risk: Read, Name: "t", Func: fn}, ``, `{}`, ""},
		{"a literal with a broken schema names the tool", Tool{Risk: Read, Name: "t", Func: fn, Schema: json.RawMessage(`{"type":"string"}`)}, `{}`, "", `tool "t"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tool.Call(context.Background(), json.RawMessage(tt.args))
			switch {
			case tt.err == "" && (err != nil || got != tt.want):
				t.Errorf("Call = %q, %v; want %q", got, err, tt.want)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("Call = %q, %v; want an error containing %q", got, err, tt.err)
			}
		})
	}
}

func TestCallPassesTheContext(t *testing.T) {
	type key struct{}
	tl := New("ctx", "", Read, func(ctx context.Context, _ struct{}) (string, error) {
		return fmt.Sprint(ctx.Value(key{})), nil
	})
	got, err := tl.Call(context.WithValue(context.Background(), key{}, "here"), nil)
	if err != nil || got != "here" {
		t.Errorf("Call = %q, %v", got, err)
	}
}

func TestValidateAgreesWithCall(t *testing.T) {
	tl := noteTool()
	for _, args := range []string{`{"title":"a"}`, `{}`, `{"title":1}`, `[]`, `nope`, ``, `null`} {
		verr := tl.Validate(json.RawMessage(args))
		_, cerr := tl.Call(context.Background(), json.RawMessage(args))
		if (verr == nil) != !errors.Is(cerr, ErrInvalidArgs) {
			t.Errorf("args %s: Validate = %v but Call = %v", args, verr, cerr)
		}
	}
}

func TestRisk(t *testing.T) {
	tests := []struct {
		in   string
		want Risk
		err  bool
	}{
		{"read", Read, false},
		{"Write", Write, false},
		{" exec ", Exec, false},
		{"delete", Exec, true},
		{"", Exec, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("ParseRisk(%q)", tt.in), func(t *testing.T) {
			got, err := ParseRisk(tt.in)
			if got != tt.want || (err != nil) != tt.err {
				t.Errorf("ParseRisk(%q) = %v, %v", tt.in, got, err)
			}
			if err == nil && got.String() != strings.ToLower(strings.TrimSpace(tt.in)) {
				t.Errorf("%v.String() = %q", got, got.String())
			}
		})
	}
	if s := Risk(5).String(); s != "Risk(5)" {
		t.Errorf("Risk(5).String() = %q", s)
	}
}

// FuzzValidate feeds model-written arguments to Validate and Call: they
// must never panic, every refusal must wrap ErrInvalidArgs, and arguments
// Validate accepts must reach the function.
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		`{"title":"a"}`, `{"title":"a","body":"b","tags":["x","y"],"stars":3,"draft":true}`,
		`{"title":"a","place":{"city":"Lyon"}}`, `{"title":"a","place":null}`, `{}`, `null`, ``,
		`[]`, `"x"`, `1e400`, `{"title":"a","stars":1e308}`, `{"title":"\u0000"}`, `{"title":"a",}`,
		`{"title":"a","stars":-0}`, `{"title":"a","tags":[null]}`, `{"title":{"$ref":"#"}}`,
	} {
		f.Add([]byte(seed))
	}
	tl := New("fuzz", "", Read, func(_ context.Context, in noteIn) (string, error) {
		return "ran", nil
	})
	f.Fuzz(func(t *testing.T, args []byte) {
		verr := tl.Validate(args)
		if verr != nil && !errors.Is(verr, ErrInvalidArgs) {
			t.Fatalf("Validate(%q) = %v, which does not wrap ErrInvalidArgs", args, verr)
		}
		out, cerr := tl.Call(context.Background(), args)
		switch {
		case verr != nil && !errors.Is(cerr, ErrInvalidArgs):
			t.Fatalf("Validate refused %q (%v) but Call gave %q, %v", args, verr, out, cerr)
		case verr == nil && cerr != nil && !errors.Is(cerr, ErrInvalidArgs):
			t.Fatalf("Call(%q) = %v, which does not wrap ErrInvalidArgs", args, cerr)
		case cerr == nil && out != "ran":
			t.Fatalf("Call(%q) = %q", args, out)
		}
	})
}

type flatIn struct {
	Title string  `json:"title" jsonschema:"the title"`
	Stars int     `json:"stars,omitempty"`
	Draft bool    `json:"draft,omitempty"`
	Score float64 `json:"score,omitempty"`
}

func TestFlatSchemasAreRecognised(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		flat   bool
	}{
		{"typed properties and required are flat", `{"type":"object","properties":{"a":{"type":"string","description":"x"}},"required":["a"]}`, true},
		{"additionalProperties false is flat", `{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}`, true},
		{"a type list is flat", `{"type":"object","properties":{"a":{"type":["string","null"]}}}`, true},
		{"an enum is not flat", `{"type":"object","properties":{"a":{"type":"string","enum":["x"]}}}`, false},
		{"a minimum is not flat", `{"type":"object","properties":{"a":{"type":"integer","minimum":1}}}`, false},
		{"array items are not flat", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`, false},
		{"a schema for extra properties is not flat", `{"type":"object","additionalProperties":{"type":"string"}}`, false},
		{"a pattern is not flat", `{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`, false},
		{"minProperties is not flat", `{"type":"object","minProperties":1}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Tool{Risk: Read, Name: "t", Schema: json.RawMessage(tt.schema), Func: func(context.Context, json.RawMessage) (string, error) { return "", nil }}.Prepare()
			if err != nil {
				t.Fatal(err)
			}
			if p.flat != tt.flat {
				t.Fatalf("flat = %v, want %v", p.flat, tt.flat)
			}
		})
	}
}

// FuzzFlatValidationAgreesWithTheEngine checks that skipping the JSON
// Schema engine for a flat schema accepts exactly what the engine does.
func FuzzFlatValidationAgreesWithTheEngine(f *testing.F) {
	for _, seed := range []string{`{"title":"a"}`, `{"title":"a","stars":3,"draft":true,"score":1.5}`, `{}`, `{"title":1}`,
		`{"title":"a","stars":2.0}`, `{"title":"a","stars":2.5}`, `{"title":"a","extra":1}`, `{"title":null}`, `[]`} {
		f.Add([]byte(seed))
	}
	tl := New("flat", "", Read, func(context.Context, flatIn) (string, error) { return "ran", nil })
	if !tl.flat {
		f.Fatal("the flat tool's schema was not recognised as flat")
	}
	slow := tl
	slow.flat = false
	f.Fuzz(func(t *testing.T, args []byte) {
		fast, engine := tl.Validate(args), slow.Validate(args)
		if (fast == nil) != (engine == nil) {
			t.Fatalf("Validate(%q): flat path %v, engine %v", args, fast, engine)
		}
	})
}
