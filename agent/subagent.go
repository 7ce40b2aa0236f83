package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// DefaultMaxDepth is the nesting limit of sub-agents when
// [Options.MaxDepth] is 0.
const DefaultMaxDepth = 3

// SubAgent describes an agent that another agent can hand a part of its
// work to, as a tool: see [AsTool].
type SubAgent struct {
	// Name is the tool's name and the sub-agent's name in events, approvals
	// and traces. Required.
	Name string
	// Description tells the parent's model what the sub-agent is for and
	// what to give it. Empty means a plain sentence naming it.
	Description string
	// Schema is the input schema of the tool. Nil means an object with one
	// required string, "task".
	Schema json.RawMessage
	// Task turns the arguments the parent's model wrote into the sub-agent's
	// first message. Nil means the "task" string with the default Schema,
	// and the arguments' JSON with another.
	Task func(args json.RawMessage) (string, error)
	// Client talks to the sub-agent's model. Required.
	Client llm.Client
	// Options set up the sub-agent: its system prompt, model, autonomy,
	// step limit. Under a parent, the autonomy is lowered to the parent's
	// when it is higher; approvals go to the parent's Approver, events to
	// the parent's OnEvent, and the parent's CheckCall sees the calls too
	// (after the sub-agent's own); Approver, OnEvent and MaxDepth here are
	// then not used. Nil means the defaults.
	Options *Options
	// Tools are what the sub-agent may call; none means it only thinks.
	Tools []tool.Tool
}

// AsTool returns a tool that hands a task to a new agent made from s, runs
// it to its answer and returns the answer to the caller's model. Each call
// starts afresh, with its own conversation, so calls of the same tool may
// run at once.
//
// The tool's risk is the highest risk among s.Tools (Read when it has
// none), so the parent's autonomy decides whether it may start at all, and
// a sub-agent with only Read tools runs beside the other Read calls of a
// reply (see [Options.MaxParallel]).
//
// Called by an [Agent], the sub-agent never has more autonomy than the
// agent; asks the agent's [Approver], with [Call.Agent] naming it ("always"
// lasts for that sub-agent and tool for the life of the agent); sends its
// events to the agent's OnEvent with [Event.Agent] and [Event.Depth] set;
// adds its usage to the agent's outcome; is cancelled with it; and fails,
// without starting, deeper than [Options.MaxDepth]. Called from anywhere
// else (an MCP server serving it, say), it runs with s.Options as they are.
//
// AsTool panics when s has no Client, a name that is not a tool name, or a
// tool that [tool.Tool.Prepare] refuses: all programming errors.
func AsTool(s SubAgent) tool.Tool {
	if err := tool.CheckName(s.Name); err != nil {
		panic(fmt.Sprintf("agent.AsTool: %v", err))
	}
	if s.Client == nil {
		panic(fmt.Sprintf("agent.AsTool: sub-agent %q has no Client", s.Name))
	}
	sub := &subAgent{name: s.Name, client: s.Client, task: s.Task}
	if s.Options != nil {
		sub.opts = *s.Options
	}
	risk := tool.Read
	seen := map[string]bool{}
	for _, t := range s.Tools {
		p, err := t.Prepare()
		if err == nil && seen[p.Name] {
			err = fmt.Errorf("tool %q is given twice", p.Name)
		}
		if err != nil {
			panic(fmt.Sprintf("agent.AsTool: sub-agent %q: %v", s.Name, err))
		}
		seen[p.Name] = true
		risk = max(risk, p.Risk)
		sub.tools = append(sub.tools, p)
	}
	desc := s.Description
	if desc == "" {
		desc = fmt.Sprintf("Hands a task to the %s agent, which works on it with its own tools and returns its answer. It sees nothing of this conversation but the task.", s.Name)
	}
	schema := s.Schema
	if schema == nil {
		schema = taskSchema
		if sub.task == nil {
			sub.task = taskField
		}
	} else if sub.task == nil {
		sub.task = func(args json.RawMessage) (string, error) { return string(args), nil }
	}
	t, err := tool.Tool{Name: s.Name, Description: desc, Schema: schema, Risk: risk, Func: sub.call}.Prepare()
	if err != nil {
		panic(fmt.Sprintf("agent.AsTool: sub-agent %q: %v", s.Name, err))
	}
	return t
}

var taskSchema = json.RawMessage(`{"type":"object","properties":{"task":{"type":"string","description":"What the agent should do, with everything it needs to know: it sees nothing else of this conversation."}},"required":["task"],"additionalProperties":false}`)

func taskField(args json.RawMessage) (string, error) {
	var in struct {
		Task string `json:"task"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", fmt.Errorf("%w: %v", tool.ErrInvalidArgs, err)
	}
	return in.Task, nil
}

// subAgent is what a tool made by AsTool runs.
type subAgent struct {
	name   string
	client llm.Client
	opts   Options
	tools  []tool.Tool
	task   func(json.RawMessage) (string, error)
}

func (s *subAgent) call(ctx context.Context, args json.RawMessage) (string, error) {
	text, err := s.task(args)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("%w: the task for %s is empty: say what it should do", tool.ErrInvalidArgs, s.name)
	}
	opts := s.opts
	opts.Name = s.name
	parent := callerOf(ctx)
	if parent != nil {
		if depth := parent.depth + 1; depth > parent.root.maxDepth {
			return "", fmt.Errorf("sub-agent %s was not started: it would run at depth %d, and the limit is %d; do the task another way", s.name, depth, parent.root.maxDepth)
		}
		opts.Autonomy = lower(opts.Autonomy, parent.a.cfg.Autonomy)
		opts.Approver = parent.root.approverBelow()
		opts.CheckCall = chainChecks(opts.CheckCall, parent.a.cfg.CheckCall)
		opts.OnEvent = nil // events go to the root's
		if opts.Logger == nil {
			opts.Logger = parent.a.log
		}
	}
	a := New(s.client, &opts)
	a.Add(s.tools...)
	r := &run{a: a, max: a.cfg.MaxSteps}
	if parent == nil {
		r.top()
	} else {
		r.under(parent, s.name)
	}
	a.running.Lock()
	out, err := r.traced(ctx, text)
	a.running.Unlock()
	if parent != nil {
		parent.addSub(s.name, out)
	}
	if err != nil {
		return "", fmt.Errorf("sub-agent %s failed: %w", s.name, err)
	}
	switch out.Stop {
	case StopDone:
		if out.Text == "" {
			return "(" + s.name + " gave no answer)", nil
		}
		return out.Text, nil
	case StopStepLimit, StopMaxTokens:
		if out.Text == "" {
			return "", fmt.Errorf("sub-agent %s stopped before it answered: %s", s.name, out.Reason)
		}
		return fmt.Sprintf("%s\n\n[%s stopped before it finished: %s]", out.Text, s.name, out.Reason), nil
	case StopCancelled:
		return "", errors.New(out.Reason)
	}
	return "", fmt.Errorf("sub-agent %s refused: %s", s.name, out.Reason)
}

// family is where a run sits among the agents of one Run: the agent's own
// run at the top, or a sub-agent's below it.
type family struct {
	root     *run   // the top run; itself at the top
	depth    int    // 0 at the top
	path     string // the sub-agent's name, "outer/inner" when nested; "" at the top
	maxDepth int    // the top agent's limit
	batches  int    // batches of calls that ran together so far

	evmu  sync.Mutex // at the top: OnEvent calls one at a time
	askmu sync.Mutex // at the top: Approver calls one at a time
	umu   sync.Mutex // guards usage while calls run at once
}

// top makes r the top run of a family.
func (r *run) top() {
	r.root = r
	r.maxDepth = cmp.Or(r.a.cfg.MaxDepth, DefaultMaxDepth)
}

// under makes r the run of sub-agent name, called by parent.
func (r *run) under(parent *run, name string) {
	r.root = parent.root
	r.depth = parent.depth + 1
	r.path = name
	if parent.path != "" {
		r.path = parent.path + "/" + name
	}
	r.maxDepth = parent.maxDepth
}

// approverBelow returns the Approver of sub-agents under the top run r: it
// asks r's Approver, one request at a time, and remembers "always" per
// sub-agent and tool on r's agent. It is nil when r's agent has none.
func (r *run) approverBelow() Approver {
	ask := r.a.cfg.Approver
	if ask == nil {
		return nil
	}
	a := r.a
	return func(ctx context.Context, c Call) Decision {
		key := c.Agent + "\x00" + c.Name
		a.mu.Lock()
		always := a.always[key] >= c.Risk
		a.mu.Unlock()
		if always {
			return Always
		}
		r.askmu.Lock()
		defer r.askmu.Unlock()
		d := ask(ctx, c)
		if d == Always {
			a.mu.Lock()
			a.always[key] = max(a.always[key], c.Risk)
			a.mu.Unlock()
		}
		return d
	}
}

// lower returns the lesser of two autonomies.
func lower(a, b Autonomy) Autonomy {
	rank := func(x Autonomy) int {
		switch x {
		case ReadOnly:
			return 0
		case Ask:
			return 1
		case Edits:
			return 2
		case Auto:
			return 3
		}
		return 0
	}
	if rank(b) < rank(a) {
		return b
	}
	return a
}

// chainChecks returns a CheckCall that runs first, then second.
func chainChecks(first, second func(context.Context, Call) error) func(context.Context, Call) error {
	switch {
	case first == nil:
		return second
	case second == nil:
		return first
	}
	return func(ctx context.Context, c Call) error {
		if err := first(ctx, c); err != nil {
			return err
		}
		return second(ctx, c)
	}
}

// callerKey carries the run calling a tool in the tool's context.
type callerKey struct{}

func withCaller(ctx context.Context, r *run) context.Context {
	return context.WithValue(ctx, callerKey{}, r)
}

func callerOf(ctx context.Context) *run {
	r, _ := ctx.Value(callerKey{}).(*run)
	return r
}
