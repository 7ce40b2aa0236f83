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
func (r *Reaper) sweep(groups []int, since uint64) {
	self := os.Getpid()
	for range 1000 {
		orphans := r.orphans(self, groups, since)
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
// and have exited since, or that lead a session of their own with no
// mark left and started after the run's first command (since). Orphans
// of runs going on are noted.
func (r *Reaper) orphans(self int, groups []int, since uint64) []int {
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
		st := stat(pid)
		if st.ppid != self {
			continue
		}
		m := mark(pid)
		switch {
		case m == "":
			// Exited (no environment left), or not ours to judge. One
			// that leads a session of its own, started since the run
			// began, is one of its commands' children that left the
			// process group and is exiting or exited, as bwrap's own
			// child does when bwrap is killed or ends first; the
			// program's own children stay in its session.
			_, seen := r.seen[pid]
			left := st.sid == pid && since > 0 && st.start >= since
			if !seen && !left && !slices.Contains(groups, st.pgrp) {
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

// procStat is what the reaper reads of a process in /proc/PID/stat.
type procStat struct {
	ppid, pgrp, sid int    // parent, process group, session
	start           uint64 // start time, in clock ticks since boot
}

// stat reads pid's /proc/PID/stat; its ids are -1 when it cannot.
func stat(pid int) procStat {
	none := procStat{ppid: -1, pgrp: -1, sid: -1}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return none
	}
	// The command name in parentheses may hold anything; the fields
	// after its last ")" are "state ppid pgrp session ...", the start
	// time the 20th of them.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return none
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return none
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	sid, err3 := strconv.Atoi(f[3])
	start, err4 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return none
	}
	return procStat{ppid: ppid, pgrp: pgrp, sid: sid, start: start}
}

// startTime is pid's start time in clock ticks since boot, or 0.
func startTime(pid int) uint64 { return stat(pid).start }

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
