package llm

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/bridle-dev/bridle/internal/jsonobj"
)

// A repairRule fixes a request a provider refused because of one parameter.
// Rules edit the encoded body, after Extra was merged, so a repair wins over
// Extra too: the provider's refusal is the last word on what it accepts.
type repairRule struct {
	// name is shown as "repair: <name>".
	name string
	// param is the body field the rule is about.
	param string
	// words must appear in the refusal, besides param (e.g. a role name).
	words []string
	// aliases name the parameter in a refusal as well as param does.
	aliases []string
	// anyRefusal accepts a refusal that does not say the parameter is
	// unsupported, only that something is wrong with it.
	anyRefusal bool
	// opposite names the rule this one undoes, forgotten when this one is
	// learnt.
	opposite string
	// apply edits b and reports whether it changed anything.
	apply func(b body) bool
}

var (
	ruleMaxCompletion = &repairRule{name: "max_tokens → max_completion_tokens", param: "max_tokens",
		opposite: "max_completion_tokens → max_tokens", apply: rename("max_tokens", "max_completion_tokens")}
	ruleMaxTokens = &repairRule{name: "max_completion_tokens → max_tokens", param: "max_completion_tokens",
		opposite: ruleMaxCompletion.name, apply: rename("max_completion_tokens", "max_tokens")}
	ruleTemperature   = dropRule("temperature")
	ruleTopP          = dropRule("top_p")
	ruleTopK          = dropRule("top_k")
	ruleStreamOptions = dropRule("stream_options")
	ruleParallel      = dropRule("parallel_tool_calls")
	ruleReasoning     = dropRule("reasoning_effort")
	ruleToolChoiceAny = &repairRule{name: "tool_choice required → any", param: "tool_choice", anyRefusal: true, apply: requiredToAny}
	ruleSystemToDev   = roleRule("system", "developer")
	ruleDevToSystem   = roleRule("developer", "system")
	anthropicRepairs  = []*repairRule{ruleTemperature, ruleTopP, ruleTopK, ruleOutputConfig}
	openaiRepairs     = []*repairRule{ruleMaxCompletion, ruleMaxTokens, ruleTemperature, ruleTopP, ruleTopK, ruleStreamOptions, ruleParallel, ruleReasoning, ruleToolChoiceAny, ruleSystemToDev, ruleDevToSystem, ruleResponseFormat}
	refusalWords      = []string{"unsupported", "not supported", "does not support", "not allowed", "not permitted", "deprecated", "unrecognized", "unknown", "extra", "cannot", "only the default", "unexpected"}
)

func dropRule(param string) *repairRule {
	return &repairRule{name: "drop " + param, param: param, apply: func(b body) bool {
		_, ok := b[param]
		delete(b, param)
		return ok
	}}
}

func rename(from, to string) func(body) bool {
	return func(b body) bool {
		v, ok := b[from]
		if ok {
			delete(b, from)
			b[to] = v
		}
		return ok
	}
}

func requiredToAny(b body) bool {
	if b.str("tool_choice") != "required" {
		return false
	}
	b["tool_choice"] = json.RawMessage(`"any"`)
	return true
}

func roleRule(from, to string) *repairRule {
	return &repairRule{name: "role " + from + " → " + to, param: "role", words: []string{from},
		anyRefusal: true, opposite: "role " + to + " → " + from, apply: func(b body) bool {
			return renameRole(b, from, to)
		}}
}

// renameRole changes the role of every message that has role from.
func renameRole(b body, from, to string) bool {
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(b["messages"], &msgs) != nil {
		return false
	}
	changed := false
	for _, m := range msgs {
		var role string
		if json.Unmarshal(m["role"], &role) == nil && role == from {
			m["role"], _ = jsonobj.Marshal(to)
			changed = true
		}
	}
	if changed {
		b["messages"], _ = jsonobj.Marshal(msgs)
	}
	return changed
}

// repair looks for a rule that explains a 400 (or 422) refusal in err. If
// one changes the body, it is learnt for the model, reported, and true is
// returned so the request goes again. Each rule is tried once per request.
func (t *transport) repair(ctx context.Context, c *call, err error, tried map[string]bool, next int) bool {
	var e *APIError
	if !errors.As(err, &e) || (e.Status != 400 && e.Status != 422) {
		return false
	}
	rule := findRule(t.d.rules(), e, c.body, tried)
	if rule == nil {
		return false
	}
	tried[rule.name] = true
	c.data = c.body.encode()
	t.learn(c.model, rule)
	t.report(ctx, Retry{Attempt: next, Reason: "repair: " + rule.name, Err: e})
	return true
}

// findRule returns the rule for the parameter the refusal names first and
// applies it to b; nil when no rule explains the refusal.
func findRule(rules []*repairRule, e *APIError, b body, tried map[string]bool) *repairRule {
	msg := strings.ToLower(e.Message)
	refusing := containsAny(msg+" "+strings.ToLower(e.Code), refusalWords)
	type candidate struct {
		rule *repairRule
		pos  int
	}
	var cands []candidate
	for _, r := range rules {
		pos := r.mentioned(e, msg)
		if pos < 0 || tried[r.name] || !(refusing || r.anyRefusal) {
			continue
		}
		cands = append(cands, candidate{r, pos})
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return a.pos - b.pos })
	for _, c := range cands {
		if c.rule.apply(b) {
			return c.rule
		}
	}
	return nil
}

// mentioned returns where the refusal names the rule's parameter: 0 when
// the param field does, else 1 + its place in the message, or -1.
func (r *repairRule) mentioned(e *APIError, msg string) int {
	for _, w := range r.words {
		if wordIndex(msg, w) < 0 {
			return -1
		}
	}
	if e.Param == r.param || wordIndex(strings.ToLower(e.Param), r.param) >= 0 {
		return 0
	}
	if i := wordIndex(msg, r.param); i >= 0 {
		return 1 + i
	}
	for _, a := range r.aliases {
		if i := wordIndex(msg, a); i >= 0 {
			return 1 + i
		}
	}
	return -1
}

// wordIndex finds w in s where it is not part of a longer identifier.
func wordIndex(s, w string) int {
	for from := 0; from < len(s); {
		j := strings.Index(s[from:], w)
		if j < 0 {
			return -1
		}
		j += from
		end := j + len(w)
		if (j == 0 || !isIdent(s[j-1])) && (end == len(s) || !isIdent(s[end])) {
			return j
		}
		from = j + 1
	}
	return -1
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// learn remembers that requests for model need rule.
func (t *transport) learn(model string, rule *repairRule) {
	t.mu.Lock()
	defer t.mu.Unlock()
	names := slices.DeleteFunc(t.fixes[model], func(n string) bool {
		return n == rule.name || n == rule.opposite
	})
	t.fixes[model] = append(names, rule.name)
}

// applyKnownFixes applies the repairs learnt for model to b.
func (t *transport) applyKnownFixes(model string, b body) {
	t.mu.Lock()
	names := slices.Clone(t.fixes[model])
	t.mu.Unlock()
	for _, n := range names {
		for _, r := range t.d.rules() {
			if r.name == n {
				r.apply(b)
			}
		}
	}
}
