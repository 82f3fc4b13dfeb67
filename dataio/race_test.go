//go:build race

package dataio

// raceEnabled: the race detector slows code 5–20×; tests that start no
// goroutine skip under it.
const raceEnabled = true
