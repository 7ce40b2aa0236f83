package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// entry is a registered tool. server and real are set for a tool of an MCP
// server: the server's name for it may differ from the name the model sees.
type entry struct {
	t      tool.Tool
	server string
	real   string
}

// Add registers tools the model may call. It panics, naming the tool, on a
// name that is empty, invalid or already registered, a missing Func, or a
// schema that is not a JSON object schema: all programming errors. Tools
// added during a Run are offered from the next step.
func (a *Agent) Add(tools ...tool.Tool) {
	prepared := make([]*entry, len(tools))
	seen := map[string]bool{}
	for i, t := range tools {
		p, err := t.Prepare()
		if err != nil {
			if t.Name == "" {
				panic(fmt.Sprintf("agent.Add: tool %d of %d (description %q): %v", i+1, len(tools), clip.String(t.Description, 40), err))
			}
			panic(fmt.Sprintf("agent.Add: %v", err))
		}
		if seen[p.Name] {
			panic(fmt.Sprintf("agent.Add: tool %q is given twice", p.Name))
		}
		seen[p.Name] = true
		prepared[i] = &entry{t: p}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range prepared {
		if a.tools[e.t.Name] != nil {
			panic(fmt.Sprintf("agent.Add: tool %q is already registered", e.t.Name))
		}
	}
	a.register(prepared)
}

// register adds prepared entries whose names are known to be free. The
// caller holds a.mu.
func (a *Agent) register(es []*entry) {
	for _, e := range es {
		a.tools[e.t.Name] = e
		a.order = append(a.order, e)
	}
	specs := make([]llm.ToolSpec, len(a.order))
	for i, e := range a.order {
		specs[i] = spec(e.t)
	}
	a.specs = specs // a new slice: requests already made keep theirs
}

func (a *Agent) lookup(name string) *entry {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tools[name]
}

func (a *Agent) names() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	names := make([]string, len(a.order))
	for i, e := range a.order {
		names[i] = e.t.Name
	}
	return names
}

// call decides about one call and runs it if it may run. It returns what
// the model reads and whether the call failed (or did not run).
func (r *run) call(ctx context.Context, p llm.Part) (string, bool) {
	ctx, span := r.startTool(ctx, p)
	defer span.End()
	e, c, out, ok := r.admit(ctx, p)
	if !ok {
		return out, true
	}
	// Write calls come here, never to a batch: their checkpoint is taken
	// just before they run.
	done, why := r.checkpoint(ctx, c)
	if why != "" {
		toolFailed(ctx, "declined", why)
		r.emit(Event{Type: EventDeclined, Call: c, Why: why})
		return why, true
	}
	r.emit(Event{Type: EventCalling, Call: c})
	out, failed := r.invoke(ctx, e, c, p)
	done()
	r.emit(Event{Type: EventReturned, Call: c, Output: out, Failed: failed})
	return out, failed
}

// admit finds the tool of a call, checks its arguments and decides whether
// it may run. When it may not, it says so to OnEvent and returns what the
// model reads, and ok false.
func (r *run) admit(ctx context.Context, p llm.Part) (e *entry, c Call, out string, ok bool) {
	a := r.a
	e = a.lookup(p.Name)
	if e == nil {
		out := unknownTool(p.Name, a.names())
		c := Call{ID: p.ID, Name: p.Name, Args: p.Args, Risk: tool.Exec, Agent: r.path}
		toolFailed(ctx, "unknown_tool", out)
		r.emit(Event{Type: EventReturned, Call: c, Output: out, Failed: true})
		return nil, c, out, false
	}
	c = Call{ID: p.ID, Name: p.Name, Args: p.Args, Risk: e.t.Risk, Agent: r.path}
	toolRisk(ctx, c.Risk)
	if err := e.t.Validate(p.Args); err != nil {
		out := err.Error()
		toolFailed(ctx, "invalid_arguments", out)
		r.emit(Event{Type: EventReturned, Call: c, Output: out, Failed: true})
		return e, c, out, false
	}
	c.Risk = a.riskOf(c, e.t.Risk)
	if why := r.decide(ctx, c); why != "" {
		a.log.Debug("agent: call declined", "tool", c.Name, "risk", c.Risk, "why", why)
		toolFailed(ctx, "declined", why)
		r.emit(Event{Type: EventDeclined, Call: c, Why: why})
		return e, c, why, false
	}
	return e, c, "", true
}

// invoke runs a call that may run and returns what the model reads and
// whether the call failed. It sends no events: its callers do.
func (r *run) invoke(ctx context.Context, e *entry, c Call, p llm.Part) (string, bool) {
	a := r.a
	out, failed, kind := runTool(ctx, e.t, p, a.cfg.MaxOutput)
	if failed {
		toolFailed(ctx, kind, out)
	}
	toolOutput(ctx, out)
	if e.server != "" {
		a.log.Debug("agent: call", "tool", c.Name, "server", e.server, "server_tool", e.real, "risk", c.Risk, "failed", failed)
	} else {
		a.log.Debug("agent: call", "tool", c.Name, "risk", c.Risk, "failed", failed)
	}
	return out, failed
}

// decide applies CheckCall, then autonomy and approval. It returns why the
// call may not run, in words for the model, or "" when it may.
func (r *run) decide(ctx context.Context, c Call) string {
	a := r.a
	if check := a.cfg.CheckCall; check != nil {
		if err := check(ctx, c); err != nil {
			toolDecision(ctx, "refused")
			return "refused: " + reason(err)
		}
	}
	run, ask := a.cfg.Autonomy.allows(c.Risk)
	if run {
		toolDecision(ctx, "auto")
		return ""
	}
	if !ask {
		toolDecision(ctx, "refused")
		return fmt.Sprintf("The user did not allow this call: the agent is read-only and %s can %s. Continue without it, or tell the user what you would have done.", c.Name, verb(c.Risk))
	}
	a.mu.Lock()
	always := a.always[c.Name] >= c.Risk
	a.mu.Unlock()
	if always {
		toolDecision(ctx, "always")
		return ""
	}
	if a.cfg.Approver == nil {
		toolDecision(ctx, "no_approver")
		return fmt.Sprintf("The user did not allow this call: %s can %s, which needs the user's approval, and there is no one to ask. Continue without it, or tell the user what you would have done.", c.Name, verb(c.Risk))
	}
	d := a.cfg.Approver(ctx, c)
	toolDecision(ctx, d.String())
	if ctx.Err() != nil {
		return "cancelled: the user stopped the run before this call ran"
	}
	switch d {
	case Always:
		a.mu.Lock()
		a.always[c.Name] = max(a.always[c.Name], c.Risk)
		a.mu.Unlock()
		return ""
	case Yes:
		return ""
	}
	return "The user did not allow this call. Do not try it again; continue without it, or ask the user what to do instead."
}

func verb(r tool.Risk) string {
	if r == tool.Write {
		return "change stored data"
	}
	return "run code or act outside"
}

// truncate cuts s to at most max bytes, on a character boundary, and says
// how much was cut.
func truncate(s string, max int) string {
	n := clip.Boundary(s, max)
	return fmt.Sprintf("%s\n\n[output truncated: %d of %d bytes cut; the limit is %d bytes. Ask for less, or for a part at a time.]", s[:n], len(s)-n, len(s), max)
}

// mcpName returns the name the model sees for tool t of server s:
// mcp__<s>__<t>. A name that is too long or has characters providers refuse
// is made fit the same way every time: the characters are replaced with '_',
// the name is cut, and a hash of the full name keeps it distinct.
func mcpName(s, t string) string {
	full := "mcp__" + s + "__" + t
	if tool.CheckName(full) == nil {
		return full
	}
	b := []byte(full)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	sum := sha256.Sum256([]byte(full))
	suffix := "_" + hex.EncodeToString(sum[:4])
	if keep := tool.MaxNameLen - len(suffix); len(b) > keep {
		b = b[:keep]
	}
	return string(b) + suffix
}
