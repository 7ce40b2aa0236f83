//go:build unix

package mcp

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) used so far by this
// process and, when pid is not 0, by that child process too; ok is false
// when it cannot be measured here.
func cpuTime(pid int) (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	d = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	if pid == 0 {
		return d, true
	}
	// Linux: fields 14 and 15 of /proc/PID/stat, in clock ticks (100 a
	// second on every usual kernel).
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return d + time.Duration(utime+stime)*10*time.Millisecond, true
}
