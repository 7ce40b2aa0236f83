package main

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"testing"

	"github.com/bridle-dev/bridle/sandbox"
	"github.com/bridle-dev/bridle/sandbox/sandboxtest"
	"golang.org/x/sys/unix"
)

// startsChild starts a sleep with an argument no other process has, in
// the same session or, with setsid, in a session of its own (as a daemon
// does), and then either waits forever or exits at once, leaving it
// behind.
const startsChild = `package main

import (
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	c := exec.Command("sleep", %q)
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: %v}
	if err := c.Start(); err != nil {
		panic(err)
	}
	fmt.Println("started")
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
	for _, mode := range []sandbox.Mode{sandbox.Off, sandbox.On} {
		t.Run("with --sandbox "+mode.String(), func(t *testing.T) {
			t.Parallel()
			if mode == sandbox.On {
				sandboxtest.Need(t)
			}
			s, err := newServer(testdataRoot(t), newConfinement(mode), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				name          string
				setsid, exits bool
				want          string
			}{
				{"a program stopped at the time limit takes its child with it", false, false, "did not finish within 1s"},
				{"a program that exits leaving a child behind takes it with it", false, true, "exit code: 0"},
				{"a child that made a session of its own goes when the program exits", true, true, "exit code: 0"},
				{"a child that made a session of its own goes when the program is stopped", true, false, "did not finish within 1s"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					n, err := rand.Int(rand.Reader, big.NewInt(1e9))
					if err != nil {
						t.Fatal(err)
					}
					marker := fmt.Sprintf("1000.%09d", n)
					text, failed := call(t, s, "go_run", map[string]any{
						"code":            fmt.Sprintf(startsChild, marker, tc.setsid, tc.exits),
						"timeout_seconds": 1,
					})
					expect{has: []string{tc.want, "started"}}.check(t, text, failed)
					for _, pid := range processesWith(t, marker) {
						if !gone(t, pid) {
							t.Errorf("process %d (sleep %s) is still running", pid, marker)
							unix.Kill(pid, unix.SIGKILL)
						}
					}
				})
			}
		})
	}
}

// processesWith lists the processes that have arg among their arguments.
func processesWith(t *testing.T, arg string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc here")
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(cmdline, []byte("\x00"+arg+"\x00")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// gone reports whether pid has ended (a zombie has ended), waiting for it
// through a pidfd at most a few seconds: a process killed with SIGKILL
// dies a moment after the signal is sent.
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
