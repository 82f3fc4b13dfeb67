package main

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// The embedded default data set of embed and demo: a swiss roll of
// demoPoints points, the same on every run.
const (
	demoPoints = 2000
	demoSeed   = 1
)

// swissRoll returns n points of the swiss roll in 3-D and the roll
// parameter t of each, with scikit-learn's make_swiss_roll formula
// (noise 0):
//
//	t = 1.5π(1 + 2u), x = t·cos t, y = 21·v, z = t·sin t, u, v ~ U(0, 1)
//
// drawn from a PCG generator seeded with seed.
//
// engine/datasets.SwissRoll (being written) has the same formula; once it is
// on main this body becomes `return datasets.SwissRoll(n, 0, seed)`.
func swissRoll(n int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed5))
	x := mat.NewDense(n, 3, nil)
	t := make([]float64, n)
	for i := 0; i < n; i++ {
		ti := 1.5 * math.Pi * (1 + 2*rng.Float64())
		t[i] = ti
		x.Set(i, 0, ti*math.Cos(ti))
		x.Set(i, 1, 21*rng.Float64())
		x.Set(i, 2, ti*math.Sin(ti))
	}
	return x, t
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
