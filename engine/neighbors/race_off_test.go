//go:build !race

package neighbors_test

const raceOn = false
