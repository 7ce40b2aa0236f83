package llm

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Provider data: what a provider sends that only it understands, kept
// verbatim so that it can go back unchanged (see [PartProvider]).

// extraFields returns the members of the JSON object raw whose names are not
// in known, as an object; nil when there are none or raw is not an object.
func extraFields(raw json.RawMessage, known ...string) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	for k := range m {
		if slices.Contains(known, k) {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	out, err := marshal(m)
	if err != nil {
		return nil
	}
	return out
}

// withFields returns the object obj with the members of extra added, where
// obj does not have them already.
func withFields(obj, extra json.RawMessage) (json.RawMessage, error) {
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
	return marshal(m)
}

// keeps reports whether provider data on p may go to origin, telling drop
// when it may not.
func keeps(p Part, origin string, drop func(what, from string)) bool {
	if p.Origin == origin {
		return true
	}
	if drop != nil {
		what := string(p.Type)
		if p.Type == PartProvider {
			var head struct {
				Type string `json:"type"`
			}
			json.Unmarshal(p.Raw, &head)
			what = head.Type
		}
		drop(what, p.Origin)
	}
	return false
}

// citedPart returns a text part with its citations, stamped with origin
// when there are any.
func citedPart(text string, cites []Citation, origin string) Part {
	p := Text(text)
	if len(cites) > 0 {
		p.Citations, p.Origin = cites, origin
	}
	return p
}
