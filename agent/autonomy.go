package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/tool"
)

// Autonomy says which tool calls run without asking. Whatever the autonomy,
// [Options.CheckCall] is consulted first.
//
//	autonomy   Read   Write   Exec
//	read-only  run    refuse  refuse
//	ask        run    ask     ask
//	edits      run    run     ask
//	auto       run    run     run
type Autonomy int

// The autonomies. The zero value is [Ask].
const (
	// Ask runs Read tools and asks before Write and Exec tools.
	Ask Autonomy = iota
	// ReadOnly runs Read tools and refuses the rest without asking.
	ReadOnly
	// Edits runs Read and Write tools and asks before Exec tools.
	Edits
	// Auto runs every tool without asking.
	Auto
)

// String returns "ask", "read-only", "edits" or "auto", the words
// [ParseAutonomy] reads.
func (a Autonomy) String() string {
	switch a {
	case Ask:
		return "ask"
	case ReadOnly:
		return "read-only"
	case Edits:
		return "edits"
	case Auto:
		return "auto"
	}
	return fmt.Sprintf("Autonomy(%d)", int(a))
}

// ParseAutonomy reads "read-only", "ask", "edits" or "auto", in any case.
func ParseAutonomy(s string) (Autonomy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read-only", "readonly":
		return ReadOnly, nil
	case "ask":
		return Ask, nil
	case "edits":
		return Edits, nil
	case "auto":
		return Auto, nil
	}
	return Ask, fmt.Errorf("unknown autonomy %q: use read-only, ask, edits or auto", s)
}

// Call is a tool call as the guardrails and the approver see it.
type Call struct {
	// ID is the provider's id of the call.
	ID string
	// Name is the tool's name as the model knows it (an MCP tool's is
	// mcp__<server>__<tool>).
	Name string
	// Args is the JSON object the model wrote. The hooks and the approver
	// see it after it passed the tool's schema.
	Args json.RawMessage
	// Risk is the tool's risk.
	Risk tool.Risk
	// Agent names the sub-agent making the call ([Event.Agent]); empty for
	// the agent's own calls.
	Agent string
}

// Decision is a person's answer to an approval request. The zero value is
// [No].
type Decision int

// The decisions.
const (
	// No declines the call; the model is told, and the turn goes on.
	No Decision = iota
	// Yes runs this call.
	Yes
	// Always runs this call and every later call of the same tool, for the
	// life of the agent.
	Always
)

// String returns "no", "yes" or "always".
func (d Decision) String() string {
	switch d {
	case No:
		return "no"
	case Yes:
		return "yes"
	case Always:
		return "always"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Approver asks a person whether a call may run. It is called from
// [Agent.Run], one call at a time, and should return [No] when ctx is done.
// It also hears the calls of sub-agents, with [Call.Agent] naming them.
type Approver func(ctx context.Context, c Call) Decision

// allows reports whether autonomy a lets a call of risk r run on its own
// (run), asks a person first (ask), or refuses it outright (neither).
func (a Autonomy) allows(r tool.Risk) (run, ask bool) {
	switch a {
	case Auto:
		return true, false
	case Edits:
		return r <= tool.Write, r > tool.Write
	case ReadOnly:
		return r == tool.Read, false
	default:
		return r == tool.Read, r != tool.Read
	}
}
