package tangent

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
)

// curved returns n points near a 2-dimensional surface in d features
// (d ≥ 3), centred roughly on the origin, with a little noise in every
// feature so that no tangent space is exact.
func curved(n, d int, seed uint64) blas64.General {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := dense.New(n, d)
	for i := 0; i < n; i++ {
		u, v := 2*rng.Float64()-1, 2*rng.Float64()-1
		row := x.Data[i*d : (i+1)*d]
		for a := range row {
			f := float64(a + 1)
			row[a] = math.Sin(f*u+0.3*f) + math.Cos(f*v-0.2*f)*u + 0.01*rng.NormFloat64()
		}
	}
	return x
}

// randomNeighbours gives each of n points k distinct others chosen at
// random: Spaces and the distance kernels take any sets.
func randomNeighbours(n, k int, seed uint64) *neighbors.Result {
	rng := rand.New(rand.NewPCG(seed, 9))
	nb := &neighbors.Result{Ptr: []int{0}}
	for i := 0; i < n; i++ {
		seen := map[int]bool{i: true}
		for len(seen) <= k {
			j := rng.IntN(n)
			if !seen[j] {
				seen[j] = true
				nb.Ind = append(nb.Ind, j)
				nb.Dist = append(nb.Dist, 0) // unread
			}
		}
		nb.Ptr = append(nb.Ptr, len(nb.Ind))
	}
	return nb
}

// gram is XXᵀ entry by entry.
func gram(x blas64.General) blas64.General {
	n, d := x.Rows, x.Cols
	g := dense.New(n, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for a := 0; a < d; a++ {
				s += x.Data[i*x.Stride+a] * x.Data[j*x.Stride+a]
			}
			g.Data[i*n+j] = s
		}
	}
	return g
}
