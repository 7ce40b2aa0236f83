//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the server in a process group of its own, so that
// stopping it also stops what it started (a shell or npx wrapper's child),
// and a Ctrl-C at the terminal reaches the client, which then shuts the
// server down in order.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return signalGroup(cmd, syscall.SIGKILL)
	}
}

// terminate asks the server's process group to exit.
func terminate(cmd *exec.Cmd) {
	_ = signalGroup(cmd, syscall.SIGTERM)
}

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		// The group may be gone while the leader is not yet reaped.
		return cmd.Process.Signal(sig)
	}
	return nil
}
