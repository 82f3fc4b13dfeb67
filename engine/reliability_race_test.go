//go:build race

package engine

// raceEnabled: the race detector slows the code 2–20×, so timing bounds
// are not checked.
const raceEnabled = true
