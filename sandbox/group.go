package sandbox

import (
	"os/exec"
	"sync/atomic"
)

// KillGroupOnCancel makes cmd the leader of a process group of its own
// ([OwnGroup]) and, when its context ends, kills the whole group
// ([KillGroup]) rather than the leader alone. The returned func reports
// whether that happened. Call it before cmd.Start.
func KillGroupOnCancel(cmd *exec.Cmd) (cancelled func() bool) {
	OwnGroup(cmd)
	var stopped atomic.Bool
	cmd.Cancel = func() error {
		stopped.Store(true)
		KillGroup(cmd.Process.Pid)
		return nil
	}
	return stopped.Load
}
