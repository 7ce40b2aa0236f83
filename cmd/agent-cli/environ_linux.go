package main

import "golang.org/x/sys/unix"

// hideEnviron makes agent-cli's own environment, which holds the provider
// keys, unreadable to the other processes of the person: its child
// processes get an allow-listed environment, but without this a server or
// a program the model runs could read /proc/PARENT/environ. A process
// that is not dumpable has its /proc files owned by root, and writes no
// core file. Failing is not fatal: the children's own environment is
// still clean.
func hideEnviron() {
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
