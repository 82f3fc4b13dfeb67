//go:build race

package backend

// raceEnabled: the race detector slows the code 2–20×; timing bounds are
// not checked under it.
const raceEnabled = true
