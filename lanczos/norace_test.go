//go:build !race

package lanczos_test

const raceEnabled = false
