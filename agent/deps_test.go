package agent

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAgentLinksNoMCP checks that a program using the agent without MCP
// links none of the MCP SDK: the agent takes tool sources through
// ToolSource, not package mcp.
func TestAgentLinksNoMCP(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.CommandContext(t.Context(), goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for dep := range strings.Lines(string(out)) {
		dep = strings.TrimSpace(dep)
		if strings.HasPrefix(dep, "github.com/modelcontextprotocol/") || dep == "github.com/bridle-dev/bridle/mcp" {
			t.Errorf("package agent depends on %s", dep)
		}
	}
}
