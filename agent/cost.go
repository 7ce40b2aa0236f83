package agent

import (
	"maps"

	"github.com/bridle-dev/bridle/llm"
)

// Costs breaks the usage of a run, or of an agent, down by model and by
// tool. Every reply is priced from [Options.Models], then the table of
// package llm ([llm.LookupModel]); tokens of a model with no known price
// are counted as unpriced, never as free (see [llm.Cost]).
type Costs struct {
	// Models is the usage and cost of each model that answered, by the id
	// the provider gave (compaction summaries included).
	Models map[string]llm.Usage `json:"models,omitempty"`
	// Tools is the cost of the replies that called each tool, by the name
	// the model uses; a reply that made several calls is split evenly
	// between them. Replies that called no tool are in no entry.
	Tools map[string]llm.Cost `json:"tools,omitempty"`
	// Servers is Tools summed by MCP server, for tools of a connected
	// server.
	Servers map[string]llm.Cost `json:"servers,omitempty"`
}

// Costs returns the breakdown of the usage of every run of the agent; its
// total is [Agent.Usage].
func (a *Agent) Costs() Costs {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.costs.clone()
}

func (c Costs) clone() Costs {
	return Costs{Models: maps.Clone(c.Models), Tools: maps.Clone(c.Tools), Servers: maps.Clone(c.Servers)}
}

// add counts usage u of model, spent on a reply that made the given calls.
func (c *Costs) add(model string, u llm.Usage, calls []*entry) {
	if c.Models == nil {
		c.Models = map[string]llm.Usage{}
	}
	c.Models[model] = c.Models[model].Add(u)
	if len(calls) == 0 {
		return
	}
	share := llm.Cost{USD: u.Cost.USD / float64(len(calls))}
	// Unpriced tokens are split too, the remainder to the first call.
	share.Unpriced = u.Cost.Unpriced / len(calls)
	for i, e := range calls {
		s := share
		if i == 0 {
			s.Unpriced += u.Cost.Unpriced % len(calls)
		}
		if c.Tools == nil {
			c.Tools = map[string]llm.Cost{}
		}
		c.Tools[e.t.Name] = c.Tools[e.t.Name].Add(s)
		if e.server != "" {
			if c.Servers == nil {
				c.Servers = map[string]llm.Cost{}
			}
			c.Servers[e.server] = c.Servers[e.server].Add(s)
		}
	}
}

// price fills in the cost of a reply's usage and returns the model it is
// counted under.
func (a *Agent) price(resp *llm.Response) string {
	model := resp.Model
	if model == "" {
		a.mu.Lock()
		model = a.lastModel()
		a.mu.Unlock()
	}
	a.mu.Lock()
	info := a.info(model)
	a.mu.Unlock()
	if info.Price != nil {
		resp.Usage.Cost = info.Price.Cost(resp.Usage)
	} else {
		resp.Usage.Cost = llm.Cost{Unpriced: resp.Usage.Input + resp.Usage.Output}
	}
	return model
}

// info returns what is known of a model, looked up once. The caller holds
// a.mu.
func (a *Agent) info(model string) llm.ModelInfo {
	if m, ok := a.infos[model]; ok {
		return m
	}
	m, _ := a.cfg.Models.Lookup(model)
	if a.infos == nil {
		a.infos = map[string]llm.ModelInfo{}
	}
	a.infos[model] = m
	return m
}

// account counts a reply's usage, priced, in the run and in the agent, and
// relates the request's size to its tokens.
func (r *run) account(resp *llm.Response, calls []llm.Part) {
	model, es := r.a.account(resp, calls)
	r.a.calibrate(r.sent, resp.Usage)
	r.spend(model, resp.Usage, es)
}

// spend counts usage u of model in the run.
func (r *run) spend(model string, u llm.Usage, calls []*entry) {
	r.umu.Lock()
	r.usage = r.usage.Add(u)
	r.costs.add(model, u, calls)
	r.umu.Unlock()
}

// addSub counts the run of sub-agent name in the run and the agent: its
// usage by model, and its whole cost under the tool that started it.
// Sub-agents running at once add theirs concurrently.
func (r *run) addSub(name string, out Outcome) {
	r.umu.Lock()
	r.usage = r.usage.Add(out.Usage)
	r.costs.merge(name, out)
	r.umu.Unlock()
	a := r.a
	a.mu.Lock()
	a.usage = a.usage.Add(out.Usage)
	a.costs.merge(name, out)
	a.mu.Unlock()
}

// merge adds a sub-agent's outcome: its models' usage, its servers' costs,
// and its total cost under the tool name that started it.
func (c *Costs) merge(name string, out Outcome) {
	for m, u := range out.Costs.Models {
		if c.Models == nil {
			c.Models = map[string]llm.Usage{}
		}
		c.Models[m] = c.Models[m].Add(u)
	}
	for s, v := range out.Costs.Servers {
		if c.Servers == nil {
			c.Servers = map[string]llm.Cost{}
		}
		c.Servers[s] = c.Servers[s].Add(v)
	}
	if c.Tools == nil {
		c.Tools = map[string]llm.Cost{}
	}
	c.Tools[name] = c.Tools[name].Add(out.Usage.Cost)
}

// account counts a reply's usage, priced, in the agent. A call of an
// unknown tool is counted under its name.
func (a *Agent) account(resp *llm.Response, calls []llm.Part) (string, []*entry) {
	model := a.price(resp)
	es := make([]*entry, len(calls))
	for i, p := range calls {
		if es[i] = a.lookup(p.Name); es[i] == nil {
			es[i] = &entry{}
			es[i].t.Name = p.Name
		}
	}
	a.mu.Lock()
	a.usage = a.usage.Add(resp.Usage)
	a.costs.add(model, resp.Usage, es)
	if resp.Model != "" {
		a.model = resp.Model
	}
	a.mu.Unlock()
	return model, es
}
