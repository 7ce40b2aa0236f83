package bench

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clockTick is the unit of the CPU times in /proc/PID/stat (USER_HZ, 100
// on every Linux build in use).
const clockTick = 10 * time.Millisecond

// cpuTime returns the CPU time (user and system, all threads, finished
// ones included) that process pid has used so far, and false where /proc
// is not there.
func cpuTime(pid int) (time.Duration, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces: count fields
	// after its closing parenthesis. utime and stime are fields 14 and 15.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * clockTick, true
}

// serverCPU measures the CPU time a server process spends on the calls of
// a benchmark: call start before the timed loop and stop after it, which
// reports it per call as "srv-µs/call". On a loaded machine this is the
// steadier figure: waiting for a core does not count.
type serverCPU struct {
	pid   int
	start time.Duration
	ok    bool
}

func startServerCPU(pid int) *serverCPU {
	c := &serverCPU{pid: pid}
	c.start, c.ok = cpuTime(pid)
	return c
}

func (c *serverCPU) stop(b *testing.B, calls int) {
	end, ok := cpuTime(c.pid)
	if !c.ok || !ok || calls == 0 {
		return
	}
	b.ReportMetric(float64((end-c.start).Microseconds())/float64(calls), "srv-µs/call")
}
