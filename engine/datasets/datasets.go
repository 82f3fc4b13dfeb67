package datasets

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// SwissRoll returns n points of the swiss roll in 3-D as the rows of an n×3
// matrix, and the roll parameter t of each point (the coordinate along the
// spiral, the ground truth an embedding should recover):
//
//	t = 1.5π(1 + 2u), u ~ U(0, 1)
//	x = t·cos t, y = 21·v, z = t·sin t, v ~ U(0, 1)
//
// plus Gaussian noise of standard deviation noise on every coordinate
// (scikit-learn's make_swiss_roll). The same seed gives the same points.
func SwissRoll(n int, noise float64, seed uint64) (*mat.Dense, []float64) {
	return generate(n, noise, rand.New(rand.NewPCG(seed, 0x5eed5)), func(rng *rand.Rand, row []float64) float64 {
		t := 1.5 * math.Pi * (1 + 2*rng.Float64())
		row[0] = t * math.Cos(t)
		row[1] = 21 * rng.Float64()
		row[2] = t * math.Sin(t)
		return t
	})
}

// SCurve returns n points of the S-curve in 3-D and its parameter t
// (scikit-learn's make_s_curve):
//
//	t = 3π(u − ½), u ~ U(0, 1)
//	x = sin t, y = 2v, z = sign(t)·(cos t − 1), v ~ U(0, 1)
//
// plus Gaussian noise of standard deviation noise.
func SCurve(n int, noise float64, seed uint64) (*mat.Dense, []float64) {
	return generate(n, noise, rand.New(rand.NewPCG(seed, 0x5c07e)), func(rng *rand.Rand, row []float64) float64 {
		t := 3 * math.Pi * (rng.Float64() - 0.5)
		row[0] = math.Sin(t)
		row[1] = 2 * rng.Float64()
		sign := 1.0
		if t < 0 {
			sign = -1
		} else if t == 0 {
			sign = 0
		}
		row[2] = sign * (math.Cos(t) - 1)
		return t
	})
}

// generate fills n rows of 3 coordinates with point (which returns the
// parameter t), then adds the noise, all from rng.
func generate(n int, noise float64, rng *rand.Rand, point func(*rand.Rand, []float64) float64) (*mat.Dense, []float64) {
	t := make([]float64, n)
	if n == 0 {
		return &mat.Dense{}, t
	}
	x := mat.NewDense(n, 3, nil)
	raw := x.RawMatrix()
	for i := range t {
		t[i] = point(rng, raw.Data[i*raw.Stride:i*raw.Stride+3])
	}
	if noise != 0 {
		for k := range raw.Data[:3*n] {
			raw.Data[k] += noise * rng.NormFloat64()
		}
	}
	return x, t
}
