//go:build race

package lanczos_test

// raceEnabled shrinks the largest tests under the race detector (about 10×
// slower), which CI runs on 2 cores.
const raceEnabled = true
