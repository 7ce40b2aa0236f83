package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bridle-dev/bridle/mcp/mcptest"
)

// handler sends JSON-RPC requests to a notes server in the same process.
type handler struct {
	t   *testing.T
	srv *mcptest.Conn
	s   *store
	id  atomic.Int64
}

func newHandler(t *testing.T) *handler {
	s := newStore(t)
	c, err := mcptest.Connect(t.Context(), newServer(s, "test", nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &handler{t: t, srv: c, s: s}
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// request sends one request and returns its result, failing the test on a
// JSON-RPC error.
func (h *handler) request(method string, params any) json.RawMessage {
	h.t.Helper()
	resp := h.send(method, params)
	if resp.Error != nil {
		h.t.Fatalf("%s: JSON-RPC error %d: %s", method, resp.Error.Code, resp.Error.Message)
	}
	return resp.Result
}

func (h *handler) send(method string, params any) rpcResponse {
	h.t.Helper()
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": h.id.Add(1), "method": method, "params": params})
	if err != nil {
		h.t.Fatal(err)
	}
	out, err := h.srv.Handle(context.Background(), line)
	if err != nil {
		h.t.Fatalf("%s: %v", method, err)
	}
	var resp rpcResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		h.t.Fatalf("%s: response %s: %v", method, out, err)
	}
	return resp
}

// callTool calls a tool and returns the text it answered and whether the
// call failed. A JSON-RPC error counts as a failed call with its message.
func (h *handler) callTool(name string, args map[string]any) (string, bool) {
	h.t.Helper()
	resp := h.send("tools/call", map[string]any{"name": name, "arguments": args})
	if resp.Error != nil {
		return resp.Error.Message, true
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		h.t.Fatalf("tools/call %s: result %s: %v", name, resp.Result, err)
	}
	var texts []string
	for _, c := range res.Content {
		if c.Type != "text" {
			h.t.Fatalf("tools/call %s: content of type %q, want text", name, c.Type)
		}
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, "\n"), res.IsError
}

// ok calls a tool that must succeed and returns its text.
func (h *handler) ok(name string, args map[string]any) string {
	h.t.Helper()
	text, failed := h.callTool(name, args)
	if failed {
		h.t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	return text
}

// fails calls a tool that must fail with a message containing want.
func (h *handler) fails(name string, args map[string]any, want string) {
	h.t.Helper()
	text, failed := h.callTool(name, args)
	if !failed {
		h.t.Fatalf("%s(%v) succeeded with %q; want a failure containing %q", name, args, text, want)
	}
	if !strings.Contains(text, want) {
		h.t.Errorf("%s(%v) failed with %q; want it to contain %q", name, args, text, want)
	}
}

// files returns the names of the files in the notes folder, but for the
// lock file.
func (h *handler) files() []string {
	h.t.Helper()
	entries, err := os.ReadDir(h.s.dir)
	if err != nil {
		h.t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != lockName {
			names = append(names, e.Name())
		}
	}
	return names
}

func TestInitializeGivesInstructions(t *testing.T) {
	h := newHandler(t)
	var res struct {
		ServerInfo   struct{ Name string } `json:"serverInfo"`
		Instructions string                `json:"instructions"`
		Capabilities map[string]any        `json:"capabilities"`
	}
	raw := h.request("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "test", "version": "1"},
	})
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "notes-mcp" {
		t.Errorf("server name = %q, want notes-mcp", res.ServerInfo.Name)
	}
	for _, want := range []string{"personal notes", "Search before you add"} {
		if !strings.Contains(res.Instructions, want) {
			t.Errorf("instructions %q do not say %q", res.Instructions, want)
		}
	}
	for _, c := range []string{"tools", "resources"} {
		if _, ok := res.Capabilities[c]; !ok {
			t.Errorf("capabilities %v lack %q", res.Capabilities, c)
		}
	}
}

func TestToolsListAnnouncesEveryToolWithItsRisk(t *testing.T) {
	h := newHandler(t)
	var res struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			InputSchema struct {
				Required []string `json:"required"`
			} `json:"inputSchema"`
			Annotations struct {
				ReadOnlyHint    *bool `json:"readOnlyHint"`
				DestructiveHint *bool `json:"destructiveHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(h.request("tools/list", map[string]any{}), &res); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		readOnly bool
		required []string
	}{
		"search_notes":   {true, nil},
		"read_note":      {true, []string{"title"}},
		"add_note":       {false, []string{"body", "title"}},
		"append_to_note": {false, []string{"text", "title"}},
		"edit_note":      {false, []string{"new_text", "old_text", "title"}},
		"rename_note":    {false, []string{"new_title", "title"}},
		"delete_note":    {false, []string{"title"}},
	}
	if len(res.Tools) != len(want) {
		t.Errorf("tools/list gave %d tools, want %d", len(res.Tools), len(want))
	}
	for _, tl := range res.Tools {
		w, ok := want[tl.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tl.Name)
			continue
		}
		t.Run(tl.Name+" is announced with its risk and required arguments", func(t *testing.T) {
			if tl.Description == "" {
				t.Error("no description")
			}
			if ro := tl.Annotations.ReadOnlyHint; ro == nil || *ro != w.readOnly {
				t.Errorf("readOnlyHint = %v, want %v", ro, w.readOnly)
			}
			if !w.readOnly {
				if d := tl.Annotations.DestructiveHint; d == nil || !*d {
					t.Errorf("destructiveHint = %v, want true", d)
				}
			}
			req := slices.Sorted(slices.Values(tl.InputSchema.Required))
			if !slices.Equal(req, w.required) {
				t.Errorf("required = %q, want %q", req, w.required)
			}
		})
	}
}

func TestSeedCases(t *testing.T) {
	t.Run("reading a note that does not exist says so", func(t *testing.T) {
		h := newHandler(t)
		h.fails("read_note", map[string]any{"title": "Does not exist"}, `there is no note titled "Does not exist"`)
	})
	t.Run("a missing argument is named", func(t *testing.T) {
		h := newHandler(t)
		h.fails("add_note", map[string]any{"title": "No body"}, `"body"`)
		h.fails("read_note", map[string]any{}, `"title"`)
		if files := h.files(); len(files) != 0 {
			t.Errorf("folder holds %q after failed calls, want nothing", files)
		}
	})
	t.Run("a title that tries to leave the folder is refused", func(t *testing.T) {
		h := newHandler(t)
		for _, name := range []string{"add_note", "read_note", "append_to_note", "delete_note"} {
			args := map[string]any{"title": "../../etc/passwd", "body": "x", "text": "x"}
			if name != "add_note" {
				delete(args, "body")
			}
			if name != "append_to_note" {
				delete(args, "text")
			}
			h.fails(name, args, `title "../../etc/passwd" contains a slash: a title is a name, not a path`)
		}
		if files := h.files(); len(files) != 0 {
			t.Errorf("folder holds %q, want nothing", files)
		}
		parent := filepath.Dir(h.s.dir)
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Errorf("something was written beside the notes folder: %v", entries)
		}
	})
}

func TestEveryTool(t *testing.T) {
	h := newHandler(t)
	steps := []struct {
		name, tool string
		args       map[string]any
		want       string // in the text of a successful call
		fail       string // in the text of a failed call, instead
	}{
		{"searching an empty folder says there are no notes", "search_notes", map[string]any{}, "There are no notes yet.", ""},
		{"adding a new note says it was created", "add_note", map[string]any{"title": "Groceries", "body": "milk\n"}, `Created note "Groceries" (5 bytes).`, ""},
		{"adding it again says it was replaced", "add_note", map[string]any{"title": "Groceries", "body": "milk\neggs\n"}, `Replaced note "Groceries" (now 10 bytes).`, ""},
		{"reading it gives the body", "read_note", map[string]any{"title": "Groceries"}, "milk\neggs\n", ""},
		{"a second note can be added", "add_note", map[string]any{"title": "Café ideas", "body": "Flat white"}, "Created", ""},
		{"searching finds text in bodies ignoring case", "search_notes", map[string]any{"text": "EGGS"}, "Groceries", ""},
		{"searching with no text lists every title, sorted", "search_notes", map[string]any{"text": ""}, "Café ideas\nGroceries", ""},
		{"searching for something absent says so", "search_notes", map[string]any{"text": "zebra"}, `No note contains "zebra".`, ""},
		{"appending adds a line", "append_to_note", map[string]any{"title": "Groceries", "text": "bread"}, `Appended 5 bytes to note "Groceries" (now 15 bytes).`, ""},
		{"one byte is not spoken of as bytes", "add_note", map[string]any{"title": "Tiny", "body": "x"}, `Created note "Tiny" (1 byte).`, ""},
		{"deleting a note says so", "delete_note", map[string]any{"title": "Tiny"}, `Deleted note "Tiny".`, ""},
		{"nor is one byte appended", "append_to_note", map[string]any{"title": "Groceries", "text": "."}, `Appended 1 byte to note "Groceries" (now 17 bytes).`, ""},
		{"editing replaces a unique passage", "edit_note", map[string]any{"title": "Groceries", "old_text": "milk", "new_text": "oat milk"}, `Edited note "Groceries".`, ""},
		{"the edits are in the body", "read_note", map[string]any{"title": "Groceries"}, "oat milk\neggs\nbread", ""},
		{"editing text that is not there fails", "edit_note", map[string]any{"title": "Groceries", "old_text": "caviar", "new_text": "x"}, "", "does not contain old_text"},
		{"appending to a missing note fails and says how to find titles", "append_to_note", map[string]any{"title": "Nope", "text": "x"}, "", `there is no note titled "Nope"; search_notes lists the titles`},
		{"a title differing only in case is not a new note", "add_note", map[string]any{"title": "groceries", "body": "x"}, "", `a note titled "Groceries" already exists`},
		{"reading with the wrong case suggests the title", "read_note", map[string]any{"title": "groceries"}, "", `did you mean "Groceries"?`},
		{"a body over 1 MiB is refused with the limit", "add_note", map[string]any{"title": "Big", "body": strings.Repeat("x", maxBody+1)}, "", "the limit is 1 MiB (1048576 bytes)"},
		{"a reserved name is refused", "add_note", map[string]any{"title": "CON", "body": "x"}, "", "reserved by Windows"},
		{"renaming gives a new title", "rename_note", map[string]any{"title": "Café ideas", "new_title": "Coffee"}, `Renamed note "Café ideas" to "Coffee".`, ""},
		{"renaming onto an existing note fails", "rename_note", map[string]any{"title": "Coffee", "new_title": "Groceries"}, "", `a note titled "Groceries" already exists`},
		{"the renamed note reads under its new title", "read_note", map[string]any{"title": "Coffee"}, "Flat white", ""},
		{"deleting a note says so", "delete_note", map[string]any{"title": "Coffee"}, `Deleted note "Coffee".`, ""},
		{"a deleted note is gone", "read_note", map[string]any{"title": "Coffee"}, "", `there is no note titled "Coffee"`},
		{"an empty note reads as empty", "add_note", map[string]any{"title": "Empty", "body": ""}, "Created", ""},
		{"reading an empty note says it is empty", "read_note", map[string]any{"title": "Empty"}, `Note "Empty" is empty.`, ""},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.fail != "" {
				h.fails(st.tool, st.args, st.fail)
				return
			}
			if got := h.ok(st.tool, st.args); !strings.Contains(got, st.want) {
				t.Errorf("%s(%v) = %q, want it to contain %q", st.tool, st.args, got, st.want)
			}
		})
	}
	slices.Sort(h.files())
	if got, want := h.files(), []string{"Empty.md", "Groceries.md"}; !slices.Equal(got, want) {
		t.Errorf("folder holds %q, want %q", got, want)
	}
}

func TestIndexResource(t *testing.T) {
	h := newHandler(t)
	var list struct {
		Resources []struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(h.request("resources/list", map[string]any{}), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) != 1 || list.Resources[0].URI != indexURI || list.Resources[0].MIMEType != "text/plain" {
		t.Fatalf("resources/list = %+v, want notes://index as text/plain", list.Resources)
	}
	read := func() (string, string) {
		var res struct {
			Contents []struct {
				URI      string `json:"uri"`
				MIMEType string `json:"mimeType"`
				Text     string `json:"text"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(h.request("resources/read", map[string]any{"uri": indexURI}), &res); err != nil {
			t.Fatal(err)
		}
		switch len(res.Contents) {
		case 0: // how an empty text is sent
			return "", ""
		case 1:
			return res.Contents[0].Text, res.Contents[0].MIMEType
		}
		t.Fatalf("resources/read gave %d contents, want 1", len(res.Contents))
		return "", ""
	}
	t.Run("an empty folder has an empty index", func(t *testing.T) {
		if text, _ := read(); text != "" {
			t.Errorf("index = %q, want empty", text)
		}
	})
	t.Run("the index lists every title, one per line, sorted", func(t *testing.T) {
		h.ok("add_note", map[string]any{"title": "banana", "body": "b"})
		h.ok("add_note", map[string]any{"title": "Apple", "body": "a"})
		writeByHand(t, h.s, "By hand.md", "c")
		text, mime := read()
		if want := "Apple\nbanana\nBy hand\n"; text != want {
			t.Errorf("index = %q, want %q", text, want)
		}
		if mime != "text/plain" {
			t.Errorf("index MIME type = %q, want text/plain", mime)
		}
	})
}

func TestMalformedMessagesGetJSONRPCErrors(t *testing.T) {
	h := newHandler(t)
	for _, c := range []struct{ name, line string }{
		{"a line that is not JSON", "this is not json"},
		{"a JSON value that is not a request", `{"id": 1}`},
	} {
		t.Run(c.name+" gets an error", func(t *testing.T) {
			out, err := h.srv.Handle(context.Background(), []byte(c.line))
			if err != nil {
				t.Fatal(err)
			}
			var resp rpcResponse
			if err := json.Unmarshal(out, &resp); err != nil || resp.Error == nil {
				t.Fatalf("response %s is not a JSON-RPC error", out)
			}
		})
	}
	if got := h.ok("search_notes", map[string]any{}); got != "There are no notes yet." {
		t.Errorf("after malformed lines, search_notes = %q", got)
	}
}
