//go:build !unix

package sandbox

import (
	"os"
	"os/exec"
)

// OwnGroup does nothing where there are no process groups to kill as one.
func OwnGroup(cmd *exec.Cmd) {}

// KillGroup kills the process pid.
func KillGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
