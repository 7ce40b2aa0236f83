package agent

import (
	"context"
	"fmt"

	"github.com/bridle-dev/bridle/llm"
)

// resultPrompt asks for the run's answer in the form of the result type.
const resultPrompt = "Give your final answer now as one JSON value that matches the schema, with no other text."

// Result runs question as [Agent.Run] does and, when the run ends with
// [StopDone], asks the model once more, with the whole conversation and
// without running tools, for its answer as a T: a JSON value matching T's
// schema, inferred as tool.New infers a tool's (see [llm.OutputFor]), then
// decoded with [llm.Decode]. The request and the answer join the history,
// the answer is the Outcome's Text, and its tokens count in the Outcome and
// the agent's usage. Switches, retries and repairs of that request are
// [EventRetrying] events like the run's.
//
// When the run stops otherwise, Result returns T's zero value with the
// Outcome and no error: there is no answer to decode. The error is Run's,
// a failure to reach the model, or an [*llm.OutputError] holding the text
// when the answer does not match T.
func Result[T any](ctx context.Context, a *Agent, question string) (T, Outcome, error) {
	var zero T
	out, err := a.Run(ctx, question)
	if err != nil || out.Stop != StopDone {
		return zero, out, err
	}
	if !a.running.TryLock() {
		return zero, out, ErrBusy
	}
	defer a.running.Unlock()

	req := a.request()
	// The tools stay declared, as Anthropic wants them with tool calls in
	// the history, but none may be called.
	req.ToolChoice = llm.ToolChoice{Mode: llm.ToolNone}
	req.Messages = append(req.Messages, llm.UserText(resultPrompt))
	req.Output = llm.OutputFor[T]("result", "the answer to the person's request")
	if f := a.cfg.OnEvent; f != nil {
		ctx = llm.WithRetryObserver(ctx, func(rt llm.Retry) { f(Event{Type: EventRetrying, Retry: rt, Step: out.Steps + 1}) })
	}
	resp, err := a.client.Send(ctx, req)
	if err != nil {
		return zero, out, fmt.Errorf("agent: asking the model for the result: %w", err)
	}
	out.Steps++
	model, _ := a.account(resp, nil)
	out.Usage = out.Usage.Add(resp.Usage)
	out.Costs.add(model, resp.Usage, nil)
	out.Text = resp.Text()

	// Only the answer's text joins the history: a tool call here would be
	// left without a result.
	answer := llm.Message{Role: llm.Assistant}
	for _, p := range resp.Parts {
		if p.Type != llm.PartToolCall {
			answer.Parts = append(answer.Parts, p)
		}
	}
	if out.Text != "" {
		a.mu.Lock()
		a.history = append(a.history, llm.UserText(resultPrompt), answer)
		a.mu.Unlock()
	}
	v, err := llm.Decode[T](resp)
	return v, out, err
}
