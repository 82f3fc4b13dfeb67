//go:build !race

package sparse_test

const raceEnabled = false
