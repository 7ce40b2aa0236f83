package sandbox

import (
	"crypto/rand"
	"os"
	"os/exec"
	"strconv"
	"sync"
)

// runVar is the environment variable that marks the processes of one run,
// so that a [Reaper] knows which run an orphan came from.
const runVar = "BRIDLE_SANDBOX_RUN"

// Reaper makes sure that nothing a command started outlives it, even a
// process that left the command's process group and session (setsid, a
// daemon's double fork). On Linux the process becomes a child subreaper:
// processes orphaned below it are handed to it rather than to init, and
// when a run ends every one of them that carries that run's mark (an
// environment variable its commands pass down) is killed and reaped, as is
// every one that exited in a session of its own since the run began (the
// process bwrap leaves when it is killed or ends first).
// Elsewhere a Reaper only tracks runs, and what leaves the process group
// of a command survives it.
//
// What escapes: a process that clears its environment before its run ends
// is not recognised, and one that leaves its command's process group and
// exits by itself before its run ends may stay a zombie until the program
// exits. Inside a [Confine]d command neither can happen: its whole PID
// namespace ends with it.
type Reaper struct {
	mu     sync.Mutex
	prefix string           // starts every mark this Reaper gives
	live   map[int]string   // pid of each running command → its run's mark
	runs   map[string]bool  // marks of the runs going on
	seen   map[int]struct{} // orphans seen marked by this Reaper, to reap
}

var subreaper = sync.OnceValues(func() (*Reaper, error) {
	if err := becomeSubreaper(); err != nil {
		return nil, err
	}
	return &Reaper{
		prefix: strconv.Itoa(os.Getpid()) + "-",
		live:   map[int]string{},
		runs:   map[string]bool{},
		seen:   map[int]struct{}{},
	}, nil
})

// Subreaper returns the process's one Reaper: being a subreaper is a
// property of the whole process. On Linux the first call makes the
// process a child subreaper for the rest of its life.
func Subreaper() (*Reaper, error) { return subreaper() }

// Run is one run of a command under a [Reaper].
type Run struct {
	r     *Reaper
	mark  string
	pids  []int
	since uint64 // start time of its first command, in clock ticks since boot
}

// NewRun begins a run. Start its commands with [Run.Start], and call
// [Run.End] when the last of them has been waited for.
func (r *Reaper) NewRun() *Run {
	mark := r.prefix + rand.Text()
	r.mu.Lock()
	r.runs[mark] = true
	r.mu.Unlock()
	return &Run{r: r, mark: mark}
}

// Start starts cmd as part of the run, marking its environment.
func (run *Run) Start(cmd *exec.Cmd) error {
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env[:len(env):len(env)], runVar+"="+run.mark)
	r := run.r
	// Held from fork to registration, so that a sweep never takes the
	// new child for an orphan.
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	r.live[cmd.Process.Pid] = run.mark
	if run.since == 0 {
		run.since = startTime(cmd.Process.Pid)
	}
	run.pids = append(run.pids, cmd.Process.Pid)
	return nil
}

// End kills and reaps whatever the run's commands left behind. The
// commands themselves must have been waited for.
func (run *Run) End() {
	r := run.r
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, pid := range run.pids {
		if r.live[pid] == run.mark { // else the pid was reused
			delete(r.live, pid)
		}
	}
	delete(r.runs, run.mark)
	r.sweep(run.pids, run.since)
	run.pids = nil
}
