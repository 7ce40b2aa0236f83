package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzQuickRequest checks that the fast decoding of Run and Handle only
// accepts what the SDK's decoder accepts, and reads it the same way.
func FuzzQuickRequest(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"ping","params":null}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"JSONRPC":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"\u0070ing"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"other"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"} x`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		quick, ok := quickRequest(line)
		if !ok {
			return
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			t.Fatalf("quickRequest accepted %q, which the SDK refuses: %v", line, err)
		}
		exact, isReq := msg.(*jsonrpc.Request)
		if !isReq {
			t.Fatalf("quickRequest took %q for a request; the SDK reads %T", line, msg)
		}
		if quick.Method != exact.Method || quick.ID != exact.ID || !sameJSON(quick.Params, exact.Params) {
			t.Fatalf("%q: quick %+v, SDK %+v", line, quick, exact)
		}
		if !json.Valid(line) {
			t.Fatalf("quickRequest accepted %q, which is not JSON", line)
		}
	})
}

func sameJSON(a, b json.RawMessage) bool {
	if len(bytes.TrimSpace(a)) == 0 || len(bytes.TrimSpace(b)) == 0 {
		return len(bytes.TrimSpace(a)) == len(bytes.TrimSpace(b))
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(va, vb)
}

func TestTooDeep(t *testing.T) {
	tests := []struct {
		name string
		json string
		want bool
	}{
		{"flat JSON is fine", `{"a":1}`, false},
		{"a thousand levels are fine", strings.Repeat("[", 1000) + strings.Repeat("]", 1000), false},
		{"a thousand and one levels are too deep", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), true},
		{"brackets in strings do not count", `{"a":"` + strings.Repeat("[", 2000) + `"}`, false},
		{"escaped quotes do not end strings", `{"a":"\"` + strings.Repeat("{", 2000) + `"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tooDeep([]byte(tt.json)); got != tt.want {
				t.Errorf("tooDeep = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestScanRequestLeavesTheUnusualToTheSDK(t *testing.T) {
	tests := []struct {
		name, line string
		fast       bool // scanRequest takes it
	}{
		{"a plain call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"s":"}]\"{["}}}`, true},
		{"a plain notification", ` { "method" : "notifications/initialized" , "jsonrpc" : "2.0" } `, true},
		{"a string id", `{"jsonrpc":"2.0","id":"a-1","method":"ping"}`, true},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, true},
		{"an unknown member", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"other"}`, true},
		{"a response", `{"jsonrpc":"2.0","id":1,"result":{}}`, false},
		{"an escaped method", `{"jsonrpc":"2.0","id":1,"method":"\u0070ing"}`, false},
		{"an escaped key", `{"jsonrpc":"2.0","id":1,"method":"ping","\u006dethod":"other"}`, false},
		{"a repeated id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, false},
		{"an id too big for a float", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, false},
		{"an id that is an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, false},
		{"a method that is not a string", `{"jsonrpc":"2.0","id":1,"method":7}`, false},
		{"no version", `{"id":1,"method":"ping"}`, false},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":\"\xff\"}}", false},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := scanRequest([]byte(tt.line)); ok != tt.fast {
				t.Errorf("scanRequest took it: %v, want %v", ok, tt.fast)
			}
			// Either way, decodeLine answers as the SDK's decoder does.
			msg, reply := decodeLine([]byte(tt.line))
			exact, err := jsonrpc.DecodeMessage([]byte(tt.line))
			if (reply == nil) != (err == nil) {
				t.Errorf("decodeLine gave %v %s; the SDK gives %v %v", msg, reply, exact, err)
			}
		})
	}
}
