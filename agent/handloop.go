package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// The two functions below are what a loop written by hand needs from the
// agent to behave like it: the same tool descriptions for the model, and
// the same result for each call. [Agent.Run] uses them itself.

// ToolSpecs returns the descriptions the model is sent for tools, in their
// order: name, description and input schema (an empty object schema where
// a tool has none). It panics, as [Agent.Add] does, on a tool that
// [tool.Tool.Prepare] refuses.
func ToolSpecs(tools ...tool.Tool) []llm.ToolSpec {
	specs := make([]llm.ToolSpec, len(tools))
	for i, t := range tools {
		p, err := t.Prepare()
		if err != nil {
			panic(fmt.Sprintf("agent.ToolSpecs: %v", err))
		}
		specs[i] = spec(p)
	}
	return specs
}

func spec(t tool.Tool) llm.ToolSpec {
	return llm.ToolSpec{Name: t.Name, Description: t.Description, Schema: t.Schema}
}

// CallTool answers one tool call of a reply (a part of type
// [llm.PartToolCall]) with the tool of that name among tools, and returns
// the result part to send back, exactly as [Agent.Run] words it with the
// [Auto] autonomy and the default output cap: an unknown name, arguments
// that fail the schema, an error or a panic of the tool, and output over
// [DefaultMaxOutput] each become a failed result the model can read. It
// asks no one: a loop that needs approval decides before calling it.
func CallTool(ctx context.Context, tools []tool.Tool, call llm.Part) llm.Part {
	var found *tool.Tool
	names := make([]string, len(tools))
	for i := range tools {
		names[i] = tools[i].Name
		if tools[i].Name == call.Name && found == nil {
			found = &tools[i]
		}
	}
	if found == nil {
		return llm.ToolResult(call.ID, unknownTool(call.Name, names), true)
	}
	t, err := found.Prepare()
	if err != nil {
		return llm.ToolResult(call.ID, err.Error(), true)
	}
	if err := t.Validate(call.Args); err != nil {
		return llm.ToolResult(call.ID, err.Error(), true)
	}
	out, failed, _ := runTool(ctx, t, call, DefaultMaxOutput)
	return llm.ToolResult(call.ID, out, failed)
}

// unknownTool is what the model reads when it calls a name no tool has.
func unknownTool(name string, names []string) string {
	if len(names) == 0 {
		return fmt.Sprintf("unknown tool %q: there are no tools", name)
	}
	return fmt.Sprintf("unknown tool %q: the tools are: %s", name, strings.Join(names, ", "))
}

// runTool runs a call that may run and returns what the model reads,
// whether the call failed, and if so how: cancelled, tool_error or
// output_truncated.
func runTool(ctx context.Context, t tool.Tool, call llm.Part, max int) (out string, failed bool, kind string) {
	out, err := t.Call(ctx, call.Args)
	failed = err != nil
	switch {
	case err != nil && ctx.Err() != nil:
		out, kind = "cancelled: the user stopped the run while this call was running ("+err.Error()+")", "cancelled"
	case err != nil:
		out, kind = err.Error(), "tool_error"
		if out == "" {
			out = "the tool failed without saying why"
		}
	case out == "":
		out = "(no output)"
	}
	if len(out) > max {
		out, failed = truncate(out, max), true
		if kind == "" {
			kind = "output_truncated"
		}
	}
	return out, failed, kind
}
