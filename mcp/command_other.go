//go:build !unix

package mcp

import "os/exec"

// ownProcessGroup does nothing where there are no process groups.
func ownProcessGroup(*exec.Cmd) {}

// terminate kills the server: without signals there is no gentler step
// left after its stdin was closed.
func terminate(cmd *exec.Cmd) {
	_ = cmd.Process.Kill()
}
