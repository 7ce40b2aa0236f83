//go:build !unix

package main

import (
	"os"
	"os/exec"
)

// ownGroup does nothing where there are no process groups to kill as one.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills the process pid.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
