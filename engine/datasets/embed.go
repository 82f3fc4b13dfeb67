package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Embed maps the rows of x (n×d) into dim ≥ d dimensions by a random
// orthogonal map (the d orthonormal columns of Q, dim×d, from Gram–Schmidt
// on Gaussian vectors drawn by seed: y = Q·x, so every distance is kept)
// and adds Gaussian noise of standard deviation noise to every one of the
// dim coordinates. A 3-D swiss roll so embedded in 784 dimensions keeps
// its 2-D manifold: a neighbour search sees 784 features but an intrinsic
// dimension of 2. It returns an error if dim < d or noise is negative or
// not finite.
func Embed(x mat.Matrix, dim int, noise float64, seed uint64) (*mat.Dense, error) {
	n, d := x.Dims()
	if dim < d || d == 0 {
		return nil, fmt.Errorf("datasets: embed %d columns in %d dimensions (need 1 ≤ columns ≤ dim)", d, dim)
	}
	if !(noise >= 0) || math.IsInf(noise, 1) {
		return nil, fmt.Errorf("datasets: noise %v (need a finite standard deviation ≥ 0)", noise)
	}
	q := Orthonormal(dim, d, seed)
	y := mat.NewDense(n, dim, nil)
	raw := y.RawMatrix()
	row := make([]float64, d)
	for i := 0; i < n; i++ {
		mat.Row(row, i, x)
		out := raw.Data[i*raw.Stride : i*raw.Stride+dim]
		for r := 0; r < dim; r++ {
			s := 0.0
			for c, v := range row {
				s += q[r*d+c] * v
			}
			out[r] = s
		}
	}
	if noise > 0 {
		rng := rand.New(rand.NewPCG(seed, 0x4015e))
		for i := 0; i < n; i++ {
			for r := range raw.Data[i*raw.Stride : i*raw.Stride+dim] {
				raw.Data[i*raw.Stride+r] += noise * rng.NormFloat64()
			}
		}
	}
	return y, nil
}

// Orthonormal returns a random dim×d matrix with orthonormal columns,
// row-major: Gaussian columns drawn by seed, orthonormalised by modified
// Gram–Schmidt applied twice (which keeps QᵀQ = I to rounding). d ≤ dim.
func Orthonormal(dim, d int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0x0e7a0))
	q := make([]float64, dim*d)
	for c := 0; c < d; c++ {
		for {
			for r := 0; r < dim; r++ {
				q[r*d+c] = rng.NormFloat64()
			}
			for pass := 0; pass < 2; pass++ {
				for p := 0; p < c; p++ {
					s := 0.0
					for r := 0; r < dim; r++ {
						s += q[r*d+p] * q[r*d+c]
					}
					for r := 0; r < dim; r++ {
						q[r*d+c] -= s * q[r*d+p]
					}
				}
			}
			s := 0.0
			for r := 0; r < dim; r++ {
				s += q[r*d+c] * q[r*d+c]
			}
			if s > 1e-20 {
				s = 1 / math.Sqrt(s)
				for r := 0; r < dim; r++ {
					q[r*d+c] *= s
				}
				break
			}
		}
	}
	return q
}
