package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const elicitSchema = `{"type":"object","properties":{
 "name":{"type":"string","title":"Name","description":"Who you are","default":"Ada","minLength":1},
 "age":{"type":"integer","minimum":0,"maximum":150},
 "color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"g"},
 "size":{"type":"string","enum":["s","m"],"enumNames":["Small","Medium"]},
 "tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"maxItems":2},
 "ok":{"type":"boolean","default":true}
},"required":["name"]}`

// elicitingServer has a tool "ask" that elicits with params and returns the
// answer as JSON.
func elicitingServer(t *testing.T, params *sdk.ElicitParams) string {
	srv := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "v1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, params)
		if err != nil {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}, nil
		}
		b, _ := json.Marshal(res)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

func ask(t *testing.T, url string, e Elicitor) (string, error) {
	t.Helper()
	s, err := ConnectHTTP(t.Context(), "asker", HTTP{URL: url}, &ClientOptions{Elicit: e})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return tools[0].Call(t.Context(), json.RawMessage(`{}`))
}

func TestElicitForm(t *testing.T) {
	url := elicitingServer(t, &sdk.ElicitParams{Message: "Tell me", RequestedSchema: json.RawMessage(elicitSchema)})
	var got *ElicitRequest
	out, err := ask(t, url, func(_ context.Context, r *ElicitRequest) (ElicitResult, error) {
		got = r
		return ElicitResult{Action: ElicitAccept, Content: map[string]any{"age": 36}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range got.Fields {
		names = append(names, f.Name)
	}
	// The go-sdk's server sends the properties sorted by name.
	if got.Server != "asker" || got.Message != "Tell me" || strings.Join(names, ",") != "age,color,name,ok,size,tags" {
		t.Fatalf("request = %+v", got)
	}
	f, err := elicitFields(json.RawMessage(elicitSchema))
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	for _, f := range f {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "name,age,color,size,tags,ok" {
		t.Errorf("fields in the order %s, not the schema's", names)
	}
	if !f[0].Required || f[0].Title != "Name" || f[0].Description != "Who you are" || f[0].Default != "Ada" || *f[0].Min != 1 {
		t.Errorf("name field = %+v", f[0])
	}
	if !reflect.DeepEqual(f[2].Choices, []ElicitChoice{{"r", "Red"}, {"g", "Green"}}) || !reflect.DeepEqual(f[3].Choices, []ElicitChoice{{"s", "Small"}, {"m", "Medium"}}) {
		t.Errorf("choices = %+v / %+v", f[2].Choices, f[3].Choices)
	}
	if f[4].Type != "array" || len(f[4].Choices) != 3 || *f[4].Max != 2 {
		t.Errorf("tags field = %+v", f[4])
	}
	var res struct {
		Action  string
		Content map[string]any
	}
	json.Unmarshal([]byte(out), &res)
	want := map[string]any{"name": "Ada", "age": float64(36), "color": "g", "ok": true}
	if res.Action != "accept" || !reflect.DeepEqual(res.Content, want) {
		t.Errorf("the server got %s; want the defaults filled in: %v", out, want)
	}
}

func TestElicitDeclineAndURL(t *testing.T) {
	url := elicitingServer(t, &sdk.ElicitParams{Message: "m", RequestedSchema: json.RawMessage(elicitSchema)})
	out, err := ask(t, url, func(context.Context, *ElicitRequest) (ElicitResult, error) {
		return ElicitResult{Action: ElicitDecline, Content: map[string]any{"name": "x"}}, nil
	})
	if err != nil || !strings.Contains(out, `"action":"decline"`) || strings.Contains(out, "content") {
		t.Errorf("decline: %s, %v", out, err)
	}

	url = elicitingServer(t, &sdk.ElicitParams{Mode: "url", Message: "Connect your account", URL: "https://example.com/connect", ElicitationID: "e1"})
	var got *ElicitRequest
	out, err = ask(t, url, func(_ context.Context, r *ElicitRequest) (ElicitResult, error) {
		got = r
		return ElicitResult{Action: ElicitAccept}, nil
	})
	if err != nil || !strings.Contains(out, `"action":"accept"`) || got.URL != "https://example.com/connect" || got.ID != "e1" || len(got.Fields) != 0 {
		t.Errorf("url: %s, %v, %+v", out, err, got)
	}

	url = elicitingServer(t, &sdk.ElicitParams{Mode: "url", Message: "m", URL: "file:///etc/passwd", ElicitationID: "e2"})
	called := false
	_, err = ask(t, url, func(context.Context, *ElicitRequest) (ElicitResult, error) {
		called = true
		return ElicitResult{Action: ElicitAccept}, nil
	})
	if called || err == nil || !strings.Contains(err.Error(), "not an http or https URL") {
		t.Errorf("a file URL reached the elicitor (%v): %v", called, err)
	}
}

func TestElicitWithoutElicitor(t *testing.T) {
	url := elicitingServer(t, &sdk.ElicitParams{Message: "m", RequestedSchema: json.RawMessage(elicitSchema)})
	_, err := ask(t, url, nil)
	if err == nil || !strings.Contains(err.Error(), "elicitation") {
		t.Errorf("the server's call = %v, want an error about elicitation", err)
	}
}

func TestElicitFieldValue(t *testing.T) {
	one, two := 1.0, 2.0
	for _, tc := range []struct {
		f    ElicitField
		in   string
		want any
		err  string
	}{
		{ElicitField{Type: "boolean"}, "yes", true, ""},
		{ElicitField{Type: "boolean"}, "maybe", nil, "not yes or no"},
		{ElicitField{Type: "integer", Min: &one, Max: &two}, "2", int64(2), ""},
		{ElicitField{Type: "integer"}, "2.5", nil, "not a whole number"},
		{ElicitField{Type: "integer", Min: &one, Max: &two}, "3", nil, "from 1 to 2"},
		{ElicitField{Type: "number"}, "2.5", 2.5, ""},
		{ElicitField{Type: "string", Choices: []ElicitChoice{{"r", "Red"}, {"g", "Green"}}}, "green", "g", ""},
		{ElicitField{Type: "string", Choices: []ElicitChoice{{"r", "Red"}, {"g", "Green"}}}, "1", "r", ""},
		{ElicitField{Type: "string", Choices: []ElicitChoice{{"r", "Red"}}}, "blue", nil, `"blue" is not one of r`},
		{ElicitField{Type: "array", Choices: []ElicitChoice{{"a", ""}, {"b", ""}}, Max: &one}, "a", []any{"a"}, ""},
		{ElicitField{Type: "array", Choices: []ElicitChoice{{"a", ""}, {"b", ""}}, Max: &one}, "a, b", nil, "at most 1"},
		{ElicitField{Type: "string", Min: &two}, "x", nil, "length"},
		{ElicitField{Type: "string"}, " hi ", "hi", ""},
	} {
		got, err := tc.f.Value(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: err = %v, want %q", tc.f.Type, tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q = %#v, %v; want %#v", tc.f.Type, tc.in, got, err, tc.want)
		}
	}
}

// FuzzElicitFields reads schemas a server might send: any of them gives
// fields or an error, never a panic, and a field's Value never panics.
func FuzzElicitFields(f *testing.F) {
	f.Add([]byte(elicitSchema), "2")
	f.Add([]byte(`{"properties":{"a":{"type":"array","items":{"anyOf":[{"const":1,"title":"one"}]}}}}`), "1, 1")
	f.Add([]byte(`{"properties":[]}`), "")
	f.Add([]byte(`{"properties":{"x":{"type":"integer","minimum":"a"}}}`), "1e400")
	f.Fuzz(func(t *testing.T, schema []byte, text string) {
		fields, err := elicitFields(json.RawMessage(schema))
		if err != nil {
			return
		}
		for _, fl := range fields {
			fl.Value(text)
		}
		withDefaults(fields, nil)
	})
}
