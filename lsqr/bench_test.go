package lsqr_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lsqr"
)

// benchProblem is a dense m×n Gaussian matrix with column scales from 1 to
// 10^-1.5 (cond(A) ≈ 40, about 400 iterations to 1e-8, like
// bench/scale/solvers/make_matrices.py) and k right-hand sides A·x + 1e-3·e.
func benchProblem(m, n, k int) (blas64.General, blas64.General) {
	rnd := rand.New(rand.NewPCG(7, 7))
	a := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			a.Data[i*n+j] = rnd.NormFloat64() * math.Pow(10, -1.5*float64(j)/float64(n-1))
		}
	}
	b := blas64.General{Rows: m, Cols: k, Stride: k, Data: make([]float64, m*k)}
	x, col := make([]float64, n), make([]float64, m)
	for c := 0; c < k; c++ {
		for i := range x {
			x[i] = rnd.NormFloat64()
		}
		backend.PureGo.Gemv(blas.NoTrans, 1, a, vec(x), 0, vec(col))
		for i := range col {
			b.Data[i*k+c] = col[i] + 1e-3*rnd.NormFloat64()
		}
	}
	return a, b
}

// BenchmarkSolveDense: the 5000×1000 dense problem of the side-by-side run
// with scipy, one and ten right-hand sides, through backend.GeneralOp (one
// fused pass over A per iteration) and through a plain function operator
// (two Gemv per iteration and right-hand side).
func BenchmarkSolveDense(b *testing.B) {
	const m, n = 5000, 1000
	a, bm := benchProblem(m, n, 10)
	s := lsqr.Settings{ATol: 1e-8, BTol: 1e-8, IterLim: 10000}
	for _, k := range []int{1, 10} {
		sub := blas64.General{Rows: m, Cols: k, Stride: bm.Stride, Data: bm.Data}
		for _, op := range []struct {
			name string
			op   lsqr.Operator
		}{{"GeneralOp", backend.GeneralOp{A: a}}, {"func", funcOp{a}}} {
			if k > 1 && op.name == "func" {
				continue // 25 s a run; the block case is GeneralOp's
			}
			b.Run(fmt.Sprintf("%dx%d/rhs=%d/%s", m, n, k, op.name), func(b *testing.B) {
				var res []lsqr.Result
				var err error
				for b.Loop() {
					res, err = lsqr.SolveMany(context.Background(), op.op, sub, s)
					if err != nil {
						b.Fatal(err)
					}
				}
				its := 0
				for _, r := range res {
					its = max(its, r.Iterations)
				}
				b.ReportMetric(float64(its), "iterations")
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/float64(its)*1e3, "ms/iteration")
			})
		}
	}
}
