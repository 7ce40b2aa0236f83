//go:build !linux

package sandbox

// becomeSubreaper does nothing: only Linux hands orphans to a chosen
// ancestor. FreeBSD's procctl(PROC_REAP_ACQUIRE) would be the port.
func becomeSubreaper() error { return nil }

// sweep does nothing where orphans go to init.
func (r *Reaper) sweep(groups []int, since uint64) {}

// startTime is 0: only Linux needs it, to tell orphans apart.
func startTime(pid int) uint64 { return 0 }
