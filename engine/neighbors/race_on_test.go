//go:build race

package neighbors_test

// raceOn: the race detector slows the searches about tenfold; the large
// recall cases run without it (they start the same goroutines as the
// small ones).
const raceOn = true
