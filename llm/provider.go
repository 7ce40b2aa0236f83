package llm

import (
	"encoding/json"
)

// Provider data: what a provider sends that only it understands, kept
// verbatim so that it can go back unchanged (see [PartProvider]).

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
