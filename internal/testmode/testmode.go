package testmode

import (
	"os"
	"testing"
)

// Env is the environment variable that selects the tier: MANIFOLD_TEST=full runs every test at
// its full size.
const Env = "MANIFOLD_TEST"

// Quick reports whether the quick tier runs: the default, and always under -short (the flag CI's
// OpenBLAS and race steps pass), unless MANIFOLD_TEST=full asks for every test at full size.
// Call it from tests only, after flag parsing (as testing.Short).
func Quick() bool {
	return testing.Short() || os.Getenv(Env) != "full"
}

// Skip skips t in the quick tier, saying what the test does (what) and how to run it.
func Skip(t testing.TB, what string) {
	t.Helper()
	if Quick() {
		t.Skipf("%s: the quick tier (the default, and -short: CI's OpenBLAS and race steps) skips it; %s=full runs it", what, Env)
	}
}
