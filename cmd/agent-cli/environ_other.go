//go:build !linux

package main

// hideEnviron does nothing on systems other than Linux: agent-cli has no
// switch there that keeps other processes of the same user from reading
// its environment.
func hideEnviron() {}
