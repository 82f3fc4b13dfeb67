package main

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
)

// The embedded default data set of embed and demo: a swiss roll of
// demoPoints points, the same on every run.
const (
	demoPoints = 2000
	demoSeed   = 1
)

// swissRoll returns n points of the swiss roll in 3-D (noise 0) and the roll
// parameter t of each: engine/datasets.SwissRoll, scikit-learn's
// make_swiss_roll formula.
func swissRoll(n int, seed uint64) (*mat.Dense, []float64) {
	return datasets.SwissRoll(n, 0, seed)
}

// rollClasses cuts the roll parameter into k classes of equal length along
// the roll, the labels the demo gives supervised methods.
func rollClasses(t []float64, k int) ([]int, []string) {
	lo, hi := 1.5*math.Pi, 4.5*math.Pi
	class := make([]int, len(t))
	for i, v := range t {
		class[i] = min(k-1, max(0, int(float64(k)*(v-lo)/(hi-lo))))
	}
	names := make([]string, k)
	for c := range names {
		names[c] = string(rune('A' + c))
	}
	return class, names
}
