//go:build race

package main

// raceEnabled builds the programs under test with the race detector when
// the tests run with it.
const raceEnabled = true
