// Package jsonobj encodes JSON as a provider sent it (no HTML escaping),
// and adds and takes out members of JSON objects kept as raw bytes: what a
// provider sends beside the fields a dialect knows, and puts back when the
// message goes out again.
package jsonobj

import (
	"bytes"
	"encoding/json"
)

// Rest returns the members of the JSON object raw whose names are not in
// known, as an object; nil when there are none or raw is not an object.
func Rest(raw json.RawMessage, known ...string) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	for _, k := range known {
		delete(m, k)
	}
	if len(m) == 0 {
		return nil
	}
	out, err := Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

// With returns the object obj with the members of extra added, where obj
// does not have them already; obj as it is when extra is empty. It fails
// when either is not a JSON object.
func With(obj, extra json.RawMessage) (json.RawMessage, error) {
	if len(extra) == 0 {
		return obj, nil
	}
	var m, x map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(extra, &x); err != nil {
		return nil, err
	}
	for k, v := range x {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	return Marshal(m)
}

// Marshal encodes v as compact JSON without escaping <, > and &, so text
// goes back to a provider as close to how it came as JSON allows.
func Marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
