//go:build race

package sparse_test

// raceEnabled: the race detector slows code 5–20×, so latency bounds are
// not asserted under it.
const raceEnabled = true
