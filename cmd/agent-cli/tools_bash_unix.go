//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a new process group, so that it and
// everything it starts can be killed together.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process in the group led by pid. A group that is
// already gone is not an error.
func killGroup(pid int) {
	syscall.Kill(-pid, syscall.SIGKILL)
}
