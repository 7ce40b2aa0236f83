package main

import "testing"

func TestTest(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, testdataRoot(t))
	runCases(t, s, "go_test", []toolCase{
		{"passing tests are counted", map[string]any{"path": "clean"},
			expect{prefix: "PASS: 1 passed, 0 failed, 0 skipped (packages: 1 ok, 0 failed, 1 without tests)", has: []string{"ok    example.com/clean/greet"}}},
		{"a failing test is shown with its output", map[string]any{"path": "failing"},
			expect{prefix: "FAIL: 1 passed, 1 failed, 1 skipped", has: []string{
				"--- FAIL: TestAdd (example.com/failing)\n    calc_test.go:7: Add(2, 2) = 5, want 4\n",
				"skipped:\n  TestLater (example.com/failing): calc_test.go:18: not written yet\n",
				"FAIL  example.com/failing",
			}, hasNot: []string{"=== RUN", "TestSub ("}}},
		{"run selects the tests", map[string]any{"path": "failing", "run": "TestSub"},
			expect{prefix: "PASS: 1 passed, 0 failed, 0 skipped"}},
		{"a test file means its package", map[string]any{"path": "failing/calc_test.go", "run": "^TestAdd$"},
			expect{prefix: "FAIL: 0 passed, 1 failed, 0 skipped"}},
		{"a build failure gives the diagnostics", map[string]any{"path": "typeerror"},
			expect{prefix: "FAIL: 0 passed, 0 failed, 0 skipped (packages: 0 ok, 1 failed", has: []string{
				"--- BUILD FAILED: example.com/typeerror\ntypeerror/main.go:6:14: cannot use",
				"FAIL  example.com/typeerror [build failed]",
			}}},
		{"a run pattern that looks like a flag is refused", map[string]any{"path": "failing", "run": "-exec=evil"},
			expect{fails: true, has: []string{"starts with '-'"}}},
		{"a path outside the root is refused", map[string]any{"path": "../"},
			expect{fails: true, has: []string{"outside the project root"}}},
		{"a missing path is required", map[string]any{},
			expect{fails: true, has: []string{`missing required argument "path"`}}},
	})
}

func TestTestStopsATestThatNeverEnds(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "go.mod", "module example.com/hang\n\ngo 1.25\n")
	write(t, root, "hang_test.go", `package hang

import (
	"testing"
	"time"
)

func TestQuick(t *testing.T) {}

func TestHang(t *testing.T) {
	t.Run("forever", func(t *testing.T) { time.Sleep(time.Hour) })
}
`)
	s := newTestServer(t, root)
	text, failed := call(t, s, "go_test", map[string]any{"path": ".", "timeout_seconds": 1})
	expect{
		prefix: "FAIL: 1 passed, 0 failed, 0 skipped, 1 did not finish",
		has:    []string{"--- DID NOT FINISH: TestHang/forever (example.com/hang)\npanic: test timed out after 1s"},
	}.check(t, text, failed)
}
