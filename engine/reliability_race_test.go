//go:build race

package engine_test

// raceEnabled: the race detector slows the code 2–20×, so timing bounds
// are not checked.
const raceEnabled = true
