package lanczos_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lanczos"
)

// randomSymmetric returns (G + Gᵀ)/2 for a standard normal n×n G, fully
// stored: a semicircle spectrum whose edge eigenvalues are close together
// (a hard case; eigsh needs hundreds of products at n = 5000).
func randomSymmetric(n int, seed uint64) blas64.General {
	rnd := rand.New(rand.NewPCG(seed, seed))
	a := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := rnd.NormFloat64()
			if i != j {
				v *= 0.7071067811865476
			}
			a.Data[i*n+j], a.Data[j*n+i] = v, v
		}
	}
	return a
}

func benchSolve(b *testing.B, op lanczos.Operator, s lanczos.Settings) {
	var res *lanczos.Result
	var err error
	for b.Loop() {
		res, err = lanczos.Solve(context.Background(), op, s)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Stats.MatVecs), "matvecs/op")
	b.ReportMetric(res.Stats.Flam/1e9/b.Elapsed().Seconds()*float64(b.N), "GFLAM/s")
}

// BenchmarkSolveDense: the top K of a dense random symmetric matrix
// through FullSymOp, single vector and blocks.
func BenchmarkSolveDense(b *testing.B) {
	const n = 2000
	a := randomSymmetric(n, 1)
	for _, k := range []int{2, 10} {
		for _, bs := range []int{1, 4} {
			b.Run(fmt.Sprintf("random/n=%d/k=%d/b=%d", n, k, bs), func(b *testing.B) {
				benchSolve(b, backend.FullSymOp{A: a}, lanczos.Settings{K: k, BlockSize: bs})
			})
		}
	}
}

// BenchmarkSolveTau: τ(D_G) of 2000 USPS digits (the Isomap and Isometric
// Projection eigenproblem), top 2 and top 10.
func BenchmarkSolveTau(b *testing.B) {
	const n = 2000
	tau := tauOfGeodesics(b, readUSPS(b, n), 10)
	for _, k := range []int{2, 10} {
		b.Run(fmt.Sprintf("usps/n=%d/k=%d", n, k), func(b *testing.B) {
			benchSolve(b, backend.FullSymOp{A: tau}, lanczos.Settings{K: k})
		})
	}
}

// BenchmarkSolveSparse: a cheap operator (the 5-point Laplacian of a
// 200×200 grid, n = 40000, through Func), where orthogonalization and not
// the products dominates.
func BenchmarkSolveSparse(b *testing.B) {
	const g = 200
	lap := lanczos.Func{N: g * g, Flam: 5 * g * g, Mul: func(dst, x []float64) {
		for i := 0; i < g; i++ {
			for j := 0; j < g; j++ {
				p := i*g + j
				v := 4 * x[p]
				if i > 0 {
					v -= x[p-g]
				}
				if i < g-1 {
					v -= x[p+g]
				}
				if j > 0 {
					v -= x[p-1]
				}
				if j < g-1 {
					v -= x[p+1]
				}
				dst[p] = v
			}
		}
	}}
	b.Run("laplacian2d/n=40000/k=4", func(b *testing.B) {
		benchSolve(b, lap, lanczos.Settings{K: 4, Tol: 1e-6})
	})
}
