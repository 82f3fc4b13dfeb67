package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// jacobiEigen against the backend's symmetric eigensolver: eigenvalues,
// A·v = λ·v and VᵀV = I, on random, graded and rank-deficient matrices.
func TestJacobiEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{1, 2, 5, 12, 30} {
		for kind := 0; kind < 3; kind++ {
			a := make([]float64, k*k)
			switch kind {
			case 0: // random symmetric
				for i := 0; i < k; i++ {
					for j := i; j < k; j++ {
						a[i*k+j] = rng.NormFloat64()
						a[j*k+i] = a[i*k+j]
					}
				}
			default: // Gram matrix of k points in 3 (rank ≤ 3) or 2k dimensions, graded
				d := 3
				if kind == 2 {
					d = 2 * k
				}
				x := make([]float64, k*d)
				for i := range x {
					x[i] = rng.NormFloat64() * math.Pow(10, -float64(i%d)/2)
				}
				for i := 0; i < k; i++ {
					for j := 0; j < k; j++ {
						s := 0.0
						for c := 0; c < d; c++ {
							s += x[i*d+c] * x[j*d+c]
						}
						a[i*k+j] = s
					}
				}
			}
			orig := append([]float64(nil), a...)
			w, v := make([]float64, k), make([]float64, k*k)
			jacobiEigen(append([]float64(nil), a...), k, w, v)
			ref := make([]float64, k)
			sym := blas64.Symmetric{N: k, Stride: k, Uplo: blas.Upper, Data: append([]float64(nil), a...)}
			if err := backend.PureGo.Syevd(sym, ref, false); err != nil {
				t.Fatal(err)
			}
			scale := math.Max(math.Abs(ref[0]), math.Abs(ref[k-1]))
			got := append([]float64(nil), w...)
			for i := 1; i < k; i++ { // sort ascending
				for j := i; j > 0 && got[j] < got[j-1]; j-- {
					got[j], got[j-1] = got[j-1], got[j]
				}
			}
			for i := range ref {
				if math.Abs(got[i]-ref[i]) > 1e-13*scale {
					t.Errorf("k=%d kind %d: eigenvalue %d = %v, backend %v", k, kind, i, got[i], ref[i])
				}
			}
			for j := 0; j < k; j++ {
				for i := 0; i < k; i++ {
					r := -w[j] * v[i*k+j]
					for c := 0; c < k; c++ {
						r += orig[i*k+c] * v[c*k+j]
					}
					if math.Abs(r) > 1e-12*scale {
						t.Fatalf("k=%d kind %d: residual %g for eigenpair %d", k, kind, r, j)
					}
				}
				for l := 0; l < k; l++ {
					dot := 0.0
					for i := 0; i < k; i++ {
						dot += v[i*k+j] * v[i*k+l]
					}
					want := 0.0
					if j == l {
						want = 1
					}
					if math.Abs(dot-want) > 1e-13 {
						t.Fatalf("k=%d kind %d: VᵀV[%d,%d] = %v", k, kind, j, l, dot)
					}
				}
			}
		}
	}
}
