package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

// hooks marks writes to files named hook as Exec.
func hooks(c Call) tool.Risk {
	if strings.Contains(string(c.Args), `"hook`) {
		return tool.Exec
	}
	return c.Risk
}

func TestRiskOfRaisesACallsRisk(t *testing.T) {
	bothDialects(t, func(t *testing.T, s setup) {
		dir := t.TempDir()
		plant := llmtest.Call{Name: "write_file", Args: `{"path":"hook","content":"rm -rf ~"}`}
		ask := &asker{answers: []Decision{No}}
		a, _ := start(t, s, quote(writeNotes, plant), &Options{Autonomy: Edits, Approver: ask.approve, RiskOf: hooks})
		a.Add(writer(dir))
		if _, err := a.Run(t.Context(), "write"); err != nil {
			t.Fatal(err)
		}
		if len(ask.asked) != 1 || ask.asked[0].Risk != tool.Exec || !strings.Contains(string(ask.asked[0].Args), "hook") {
			t.Fatalf("under edits the person was asked about %+v, want only the hook, as exec", ask.asked)
		}
		if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
			t.Errorf("the plain write did not run: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "hook")); err == nil {
			t.Errorf("the hook was written after a no")
		}
	})
}

func TestAlwaysHoldsUpToTheRiskItWasGivenAt(t *testing.T) {
	bothDialects(t, func(t *testing.T, s setup) {
		dir := t.TempDir()
		plant := llmtest.Call{Name: "write_file", Args: `{"path":"hook","content":"x"}`}
		ask := &asker{answers: []Decision{Always, No}}
		a, _ := start(t, s, quote(writeNotes, plant), &Options{Approver: ask.approve, RiskOf: hooks})
		a.Add(writer(dir))
		if _, err := a.Run(t.Context(), "write"); err != nil {
			t.Fatal(err)
		}
		if len(ask.asked) != 2 || ask.asked[0].Risk != tool.Write || ask.asked[1].Risk != tool.Exec {
			t.Fatalf("asked %+v: want the write, then the hook again though the tool was approved always", ask.asked)
		}
	})
}

func TestRiskOfCannotLowerARisk(t *testing.T) {
	bothDialects(t, func(t *testing.T, s setup) {
		var ran []string
		a, _ := start(t, s, quote(llmtest.Call{Name: "run_command", Args: `{"command":"ls"}`}), &Options{
			Autonomy: Edits, RiskOf: func(Call) tool.Risk { return tool.Read },
		})
		a.Add(commander(&ran))
		if _, err := a.Run(t.Context(), "run"); err != nil {
			t.Fatal(err)
		}
		if len(ran) != 0 {
			t.Errorf("an exec call ran under edits with nobody to ask: %v", ran)
		}
	})
}
