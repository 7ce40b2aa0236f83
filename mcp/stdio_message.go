package mcp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Decoding and answering single JSON-RPC lines, for Run and Handle.

// decodeLine decodes one JSON-RPC message as the SDK does, or returns the
// error line answering it: a parse error when it is not JSON, an invalid
// request when it is JSON but not a message the SDK accepts.
func decodeLine(line []byte) (jsonrpc.Message, []byte) {
	if req, ok := quickRequest(line); ok {
		return req, nil
	}
	if !json.Valid(line) {
		return nil, parseError()
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, invalidRequest(line, err)
	}
	return msg, nil
}

// maxDepth is the deepest nesting the SDK decodes; it refuses a message
// nested deeper, and its stdio transport then ends the session.
const maxDepth = 1000

// quickRequest decodes line when it is plainly a request or a notification
// the SDK accepts, and reports false for anything else, which then goes to
// the SDK's own decoder: exact, but it allocates tens of kilobytes a call.
func quickRequest(line []byte) (*jsonrpc.Request, bool) {
	sp, ok := scanRequest(line)
	if !ok {
		return nil, false
	}
	var id jsonrpc.ID
	switch {
	case len(sp.id) == 0 || string(sp.id) == "null":
	case sp.id[0] == '"':
		id, _ = jsonrpc.MakeID(string(sp.id[1 : len(sp.id)-1]))
	default:
		f, _ := strconv.ParseFloat(string(sp.id), 64) // scanRequest parsed it
		id, _ = jsonrpc.MakeID(f)
	}
	var params json.RawMessage
	if sp.params != nil {
		params = append(json.RawMessage(nil), sp.params...) // the caller may reuse line
	}
	return &jsonrpc.Request{ID: id, Method: string(sp.method[1 : len(sp.method)-1]), Params: params}, true
}

// requestSpans are the raw JSON values of a request's members.
type requestSpans struct{ id, method, params []byte }

// scanRequest finds the members of line when it is plainly a request or a
// notification the SDK accepts, without decoding or allocating. It is
// cautious: anything unusual (an escape in a key, the method or the id, a
// repeated member, a response, invalid UTF-8) is reported false, to be
// decided by the SDK's decoder. Like the SDK, it matches keys exactly.
func scanRequest(line []byte) (requestSpans, bool) {
	var sp requestSpans
	if !json.Valid(line) || !utf8.Valid(line) || tooDeep(line) {
		return sp, false
	}
	version := false
	ok := members(line, func(key, val []byte) bool {
		switch string(key) {
		case `"jsonrpc"`:
			if version || string(val) != `"2.0"` {
				return false
			}
			version = true
		case `"id"`:
			if sp.id != nil || !plainID(val) {
				return false
			}
			sp.id = val
		case `"method"`:
			if sp.method != nil || val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 {
				return false
			}
			sp.method = val
		case `"params"`:
			if sp.params != nil {
				return false
			}
			sp.params = val
		default:
			if bytes.IndexByte(key, '\\') >= 0 { // it may spell one of the above
				return false
			}
		}
		return true
	})
	return sp, ok && version && sp.method != nil
}

// members calls fn with each key and value of the JSON object obj, known
// to be valid, until fn returns false; it reports false then, or when obj
// is not an object.
func members(obj []byte, fn func(key, val []byte) bool) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	for i = skipSpace(obj, i+1); i < len(obj) && obj[i] != '}'; {
		end := endOfString(obj, i)
		key := obj[i:end]
		i = skipSpace(obj, skipSpace(obj, end)+1) // past the colon
		end = endOfValue(obj, i)
		if !fn(key, obj[i:end]) {
			return false
		}
		if i = skipSpace(obj, end); i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return true
}

// plainID reports whether v is an id the SDK reads as this scan does: null,
// a string without escapes, or a number that fits a float64.
func plainID(v []byte) bool {
	switch v[0] {
	case 'n':
		return true
	case '"':
		return bytes.IndexByte(v, '\\') < 0
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		_, err := strconv.ParseFloat(string(v), 64)
		return err == nil
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// endOfString returns the index after the string that starts at b[i].
func endOfString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// endOfValue returns the index after the value that starts at b[i], in
// JSON known to be valid.
func endOfValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return endOfString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = endOfString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// tooDeep reports whether the JSON in data nests deeper than maxDepth.
func tooDeep(data []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > maxDepth {
				return true
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return false
}

func parseError() []byte {
	return errorLine(nil, jsonrpc.CodeParseError, "parse error: the message is not valid JSON")
}

// invalidRequest answers JSON that is not a JSON-RPC message, with the
// message's id when it has a usable one.
func invalidRequest(line []byte, why error) []byte {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	var id json.RawMessage
	if json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 && (probe.ID[0] == '"' || probe.ID[0] == '-' || probe.ID[0] >= '0' && probe.ID[0] <= '9') {
		id = probe.ID
	}
	return errorLine(id, jsonrpc.CodeInvalidRequest, "invalid request: "+why.Error())
}

// errorLine is a JSON-RPC error response line. It is written here rather
// than by the SDK because the SDK's encoder leaves out a null id, which
// JSON-RPC requires on errors about unreadable requests.
func errorLine(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: code, Message: message}})
	if err != nil { // cannot happen: every field marshals
		panic(err)
	}
	return append(b, '\n')
}
