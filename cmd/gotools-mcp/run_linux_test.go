package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// startsChild starts a long sleep, prints its own pid and the sleep's, and
// then either waits forever or exits at once, leaving the sleep behind.
const startsChild = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	c := exec.Command("sleep", "1000")
	if err := c.Start(); err != nil {
		panic(err)
	}
	fmt.Printf("pids %%d %%d\n", os.Getpid(), c.Process.Pid)
	if %v {
		return
	}
	for {
		time.Sleep(time.Hour)
	}
}
`

func TestRunLeavesNoProcessBehind(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, testdataRoot(t))
	for _, tc := range []struct {
		name  string
		exits bool
		want  string
	}{
		{"a program stopped at the time limit takes its child with it", false, "did not finish within 1s"},
		{"a program that exits leaving a child behind takes it with it", true, "exit code: 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text, failed := call(t, s, "go_run", map[string]any{
				"code":            fmt.Sprintf(startsChild, tc.exits),
				"timeout_seconds": 1,
			})
			expect{has: []string{tc.want}}.check(t, text, failed)
			var parent, child int
			if _, err := fmt.Sscanf(text[max(0, strings.Index(text, "pids")):], "pids %d %d", &parent, &child); err != nil {
				t.Fatalf("no pids in the answer: %v\n%s", err, text)
			}
			for _, pid := range []int{parent, child} {
				if !gone(t, pid) {
					t.Errorf("process %d is still running", pid)
				}
			}
		})
	}
}

// gone reports whether pid has ended (a zombie has ended), waiting for it
// through a pidfd at most a few seconds: execute returns once the pipes
// closed, which a dying process does a moment before it is dead.
func gone(t *testing.T, pid int) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true
	}
	if err != nil {
		t.Skipf("no pidfd here: %v", err)
	}
	defer unix.Close(fd)
	n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 5000)
	return err == nil && n == 1
}
