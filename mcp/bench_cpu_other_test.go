//go:build !unix

package mcp

import "time"

// cpuTime cannot measure CPU time on this system.
func cpuTime(int) (time.Duration, bool) { return 0, false }
