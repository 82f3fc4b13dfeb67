package lsqr_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lsqr"
)

// Random shapes (tall, wide, tiny), damping and several right-hand sides
// against the direct solutions.
func TestRandomShapes(t *testing.T) {
	rnd := rand.New(rand.NewPCG(41, 42))
	for trial := 0; trial < 100; trial++ { // 400 passed when this test was written
		m, n := 1+rnd.IntN(60), 1+rnd.IntN(60)
		a := randGeneral(rnd, m, n)
		b := randVec(rnd, m)
		damp := 0.0
		if rnd.IntN(2) == 0 {
			damp = rnd.Float64() * 3
		}
		var want []float64
		if damp > 0 {
			want = ridgeSolve(t, a, b, damp)
		} else {
			want = pinvSolve(t, a, b)
		}
		k := 1 + rnd.IntN(3)
		bm := blas64.General{Rows: m, Cols: k, Stride: k, Data: make([]float64, m*k)}
		for i := 0; i < m; i++ {
			bm.Data[i*k] = b[i]
			for j := 1; j < k; j++ {
				bm.Data[i*k+j] = rnd.NormFloat64()
			}
		}
		name := fmt.Sprintf("trial %d %d×%d damp %.2f k=%d", trial, m, n, damp, k)
		res, err := lsqr.SolveMany(context.Background(), backend.GeneralOp{A: a}, bm, lsqr.Settings{Damp: damp, ATol: 1e-15, BTol: 1e-15, IterLim: 2000})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !res[0].Status.Converged() {
			t.Errorf("%s: %v after %d", name, res[0].Status, res[0].Iterations)
		}
		if d := relDiff(res[0].X, want); d > 1e-8 {
			t.Errorf("%s: %.2e from the direct solution (%v, %d it)", name, d, res[0].Status, res[0].Iterations)
		}
	}
}
