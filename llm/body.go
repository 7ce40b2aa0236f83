package llm

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/bridle-dev/bridle/internal/jsonobj"
)

// body is a JSON request body kept as its top-level fields, so that Extra
// and parameter repairs can edit it after the dialect has encoded it.
type body map[string]json.RawMessage

// set encodes v as the field key, keeping the first error in *err.
func (b body) set(err *error, key string, v any) {
	if *err != nil {
		return
	}
	raw, e := jsonobj.Marshal(v)
	if e != nil {
		*err = fmt.Errorf("llm: cannot encode the request's %s: %w", key, e)
		return
	}
	b[key] = raw
}

// merge copies fields over b; a nil value removes the field.
func (b body) merge(fields map[string]json.RawMessage) {
	for k, v := range fields {
		if v == nil {
			delete(b, k)
			continue
		}
		b[k] = v
	}
}

// encode returns the JSON object, keys sorted so the bytes are stable.
func (b body) encode() []byte {
	keys := make([]string, 0, len(b))
	n := 2
	for k, v := range b {
		keys = append(keys, k)
		n += len(k) + len(v) + 4
	}
	slices.Sort(keys)
	out := make([]byte, 0, n)
	out = append(out, '{')
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		kq, _ := json.Marshal(k) // a string always encodes
		out = append(out, kq...)
		out = append(out, ':')
		out = append(out, b[k]...)
	}
	return append(out, '}')
}

// str returns the field as a string, or "" when it is missing or not one.
func (b body) str(key string) string {
	var s string
	if json.Unmarshal(b[key], &s) != nil {
		return ""
	}
	return s
}

// encodeExtra encodes Config.Extra once, when the client is made.
func encodeExtra(extra map[string]any) (map[string]json.RawMessage, error) {
	if len(extra) == 0 {
		return nil, nil
	}
	out := make(map[string]json.RawMessage, len(extra))
	for k, v := range extra {
		if v == nil {
			out[k] = nil
			continue
		}
		raw, err := jsonobj.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("llm: Config.Extra[%q] cannot be encoded as JSON: %w", k, err)
		}
		out[k] = raw
	}
	return out, nil
}
