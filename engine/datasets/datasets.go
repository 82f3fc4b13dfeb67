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
	rng := rand.New(rand.NewPCG(seed, 0x5eed5))
	x := mat.NewDense(max(1, n), 3, nil)
	t := make([]float64, n)
	raw := x.RawMatrix()
	for i := 0; i < n; i++ {
		ti := 1.5 * math.Pi * (1 + 2*rng.Float64())
		t[i] = ti
		row := raw.Data[i*raw.Stride : i*raw.Stride+3]
		row[0] = ti * math.Cos(ti)
		row[1] = 21 * rng.Float64()
		row[2] = ti * math.Sin(ti)
	}
	addNoise(raw.Data[:3*n], noise, rng)
	if n == 0 {
		return &mat.Dense{}, t
	}
	return x, t
}

// SCurve returns n points of the S-curve in 3-D and its parameter t
// (scikit-learn's make_s_curve):
//
//	t = 3π(u − ½), u ~ U(0, 1)
//	x = sin t, y = 2v, z = sign(t)·(cos t − 1), v ~ U(0, 1)
//
// plus Gaussian noise of standard deviation noise.
func SCurve(n int, noise float64, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 0x5c07e))
	x := mat.NewDense(max(1, n), 3, nil)
	t := make([]float64, n)
	raw := x.RawMatrix()
	for i := 0; i < n; i++ {
		ti := 3 * math.Pi * (rng.Float64() - 0.5)
		t[i] = ti
		row := raw.Data[i*raw.Stride : i*raw.Stride+3]
		row[0] = math.Sin(ti)
		row[1] = 2 * rng.Float64()
		sign := 1.0
		if ti < 0 {
			sign = -1
		} else if ti == 0 {
			sign = 0
		}
		row[2] = sign * (math.Cos(ti) - 1)
	}
	addNoise(raw.Data[:3*n], noise, rng)
	if n == 0 {
		return &mat.Dense{}, t
	}
	return x, t
}

func addNoise(data []float64, noise float64, rng *rand.Rand) {
	if noise == 0 {
		return
	}
	for k := range data {
		data[k] += noise * rng.NormFloat64()
	}
}
