//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// OwnGroup makes cmd, once started, the leader of a new process group, so
// that it and everything it starts can be killed together with
// [KillGroup]. Call it before cmd.Start; it keeps the rest of
// cmd.SysProcAttr.
func OwnGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// KillGroup kills every process in the group led by pid. A group that is
// already gone is not an error.
func KillGroup(pid int) {
	syscall.Kill(-pid, syscall.SIGKILL)
}
