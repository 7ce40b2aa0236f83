package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

func becomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("cannot become a child subreaper: %w", err)
	}
	return nil
}

// sweep kills and reaps the adopted orphans marked by runs that have
// ended, until none is left: killing one hands its own children to us.
// The caller holds r.mu.
func (r *Reaper) sweep(groups []int) {
	self := os.Getpid()
	for range 1000 {
		orphans := r.orphans(self, groups)
		if len(orphans) == 0 {
			return
		}
		for _, pid := range orphans {
			unix.Kill(pid, unix.SIGKILL)
		}
		for _, pid := range orphans {
			delete(r.seen, pid)
			var ws unix.WaitStatus
			for {
				_, err := unix.Wait4(pid, &ws, 0, nil)
				if !errors.Is(err, unix.EINTR) {
					break
				}
			}
		}
	}
}

// orphans lists the children of self that no running command accounts
// for and that carry the mark of a run of r that has ended, or that were
// seen so, or were in the process group of one of its commands (groups),
// and have exited since. Orphans of runs going on are noted.
func (r *Reaper) orphans(self int, groups []int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if _, ok := r.live[pid]; ok {
			continue
		}
		ppid, pgrp := stat(pid)
		if ppid != self {
			continue
		}
		m := mark(pid)
		switch {
		case m == "":
			// Exited (no environment left), or not ours to judge.
			if _, ok := r.seen[pid]; !ok && !slices.Contains(groups, pgrp) {
				continue
			}
		case !strings.HasPrefix(m, r.prefix):
			continue // marked by another program's Reaper
		case r.runs[m]:
			r.seen[pid] = struct{}{}
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// stat returns the parent pid and the process group of pid, or -1s.
func stat(pid int) (ppid, pgrp int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1, -1
	}
	// The command name in parentheses may hold anything; the fields
	// after its last ")" are "state ppid pgrp ...".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1, -1
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return -1, -1
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return -1, -1
	}
	return ppid, pgrp
}

// mark is the run mark in pid's environment, or "" (none, or unreadable:
// an exited process has no environment left). A process in the middle of
// execve shows an empty or torn environment for a moment, so it is read
// until two reads agree and end where a variable ends, for at most a
// second.
func mark(pid int) string {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	wait := 50 * time.Microsecond
	var last []byte
	for deadline := time.Now().Add(time.Second); ; {
		b, err := os.ReadFile(dir + "environ")
		if err != nil {
			return ""
		}
		for kv := range bytes.SplitSeq(b, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte(runVar+"=")); ok {
				return string(v)
			}
		}
		settled := len(b) > 0 && b[len(b)-1] == 0 && bytes.Equal(b, last)
		if settled || time.Now().After(deadline) {
			return ""
		}
		if st, err := os.ReadFile(dir + "stat"); err != nil || state(st) == 'Z' {
			return ""
		}
		if last != nil {
			time.Sleep(wait)
			wait = min(2*wait, 10*time.Millisecond)
		}
		last = b
	}
}

// state is the state letter of a /proc/PID/stat line.
func state(stat []byte) byte {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return 0
	}
	return stat[i+2]
}
