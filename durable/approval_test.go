package durable_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/durable"
)

// command builds bridle-runs.
func command(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bridle-runs")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/bridle-runs").CombinedOutput(); err != nil {
		t.Fatalf("building bridle-runs: %v\n%s", err, out)
	}
	return bin
}

func TestApprovals(t *testing.T) {
	e, m, fx, _ := setup(t, "ask", 1)
	e.start(t, "node-a")
	c := newClient(t, e)
	bin := command(t)
	runs := func(t *testing.T, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-db", e.dsn, "-schema", e.schema}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bridle-runs %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	t.Run("a parked run holds no queue slot and resumes when another process approves", func(t *testing.T) {
		if _, err := c.Start(ctxFor(t), "parked", durable.Input{Text: "save parked"}); err != nil {
			t.Fatal(err)
		}
		r, err := c.Wait(ctxFor(t), "parked")
		if err != nil {
			t.Fatal(err)
		}
		if r.State != durable.Waiting || r.Pending == nil || r.Pending.Name != "save" {
			t.Fatalf("run is %s waiting on %+v; want waiting on save", r.State, r.Pending)
		}
		if fx.count("save", "parked") != 0 {
			t.Fatal("save ran before anyone approved it")
		}
		// The queue runs one run at a time: another run gets through
		// while the first waits.
		if _, err := c.Start(ctxFor(t), "other", durable.Input{Text: "look other"}); err != nil {
			t.Fatal(err)
		}
		finish(t, c, "other")

		if out := runs(t, "list"); !strings.Contains(out, "parked") || !strings.Contains(out, "waiting") {
			t.Errorf("bridle-runs list says:\n%s\nwant the parked run, waiting", out)
		}
		runs(t, "approve", "-by", "ops", "parked")
		res := finish(t, c, "parked")
		if got := fx.count("save", "parked"); got != 1 {
			t.Errorf("save ran %d times, want 1", got)
		}
		if want := "finished: save parked: value 7"; res.Outcome.Text != want {
			t.Errorf("the run answered %q, want %q", res.Outcome.Text, want)
		}
		evs := runs(t, "events", "parked")
		for _, want := range []string{`"type":"waiting"`, `"type":"decided"`, `"decision":"yes"`, `"text":"ops"`, `"type":"calling"`, `"type":"returned"`} {
			if !strings.Contains(evs, want) {
				t.Errorf("the stored events lack %s:\n%s", want, evs)
			}
		}
		if err := c.Decide(ctxFor(t), "parked", durable.Verdict{}); err == nil {
			t.Error("a second decision about a finished run was taken")
		}
	})

	t.Run("a call nobody decides about is declined at the deadline", func(t *testing.T) {
		if _, err := c.Start(ctxFor(t), "late", durable.Input{Text: "save late", ApprovalTimeout: 500 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		r, err := c.Wait(ctxFor(t), "late")
		if err != nil {
			t.Fatal(err)
		}
		if r.State == durable.Waiting && r.Deadline.IsZero() {
			t.Error("a waiting run with an approval timeout shows no deadline")
		}
		res := finish(t, c, "late")
		if fx.count("save", "late") != 0 {
			t.Error("save ran though nobody approved it")
		}
		if !strings.Contains(res.Outcome.Text, "did not allow") {
			t.Errorf("the model read %q; want it told the call was declined", res.Outcome.Text)
		}
		evs, err := c.Events(ctxFor(t), "late")
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, ev := range evs {
			found = found || ev.Type == "decided" && ev.Text == "deadline" && ev.Decision == "no"
		}
		if !found {
			t.Errorf("no decided event from the deadline in %+v", evs)
		}
	})

	t.Run("a waiting run can be cancelled", func(t *testing.T) {
		if _, err := c.Start(ctxFor(t), "dropped", durable.Input{Text: "save dropped"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Wait(ctxFor(t), "dropped"); err != nil {
			t.Fatal(err)
		}
		runs(t, "cancel", "dropped")
		r, err := c.Get(ctxFor(t), "dropped")
		if err != nil {
			t.Fatal(err)
		}
		if r.State != durable.Cancelled {
			t.Errorf("run is %s after cancel, want cancelled", r.State)
		}
		if err := c.Decide(ctxFor(t), "dropped", durable.Verdict{}); err == nil {
			t.Error("a decision about a cancelled run was taken")
		}
	})
	m.allValid(t)
}
