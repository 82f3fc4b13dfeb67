package lsqr_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/lsqr"
	"github.com/manifoldlab/manifold/sparse"
)

// A *sparse.CSR is an operator, with block products for several
// right-hand sides, and its NNZ() feeds the flam count: the same solutions
// as the dense matrix and as QR.
func TestSparseCSR(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	const m, n = 300, 120
	a := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
	for i := range a.Data {
		if rnd.Float64() < 0.08 {
			a.Data[i] = rnd.NormFloat64()
		}
	}
	for j := 0; j < n; j++ { // full column rank
		a.Data[j*n+j] += 3
	}
	csr := sparse.FromDense(mat.NewDense(m, n, a.Data))
	b := randVec(rnd, m)
	want := qrSolve(t, a, b)
	s := lsqr.Settings{ATol: 1e-14, BTol: 1e-14}
	res, err := lsqr.Solve(context.Background(), csr, b, s)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(res.X, want); d > 1e-10 {
		t.Errorf("CSR: x is %.2e from the QR solution", d)
	}
	if res.Flam != flam.LSQRSparse(m, n, csr.NNZ(), res.Iterations) {
		t.Errorf("flam %v, want %v", res.Flam, flam.LSQRSparse(m, n, csr.NNZ(), res.Iterations))
	}
	dense, err := lsqr.Solve(context.Background(), backend.GeneralOp{A: a}, b, s)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Iterations - dense.Iterations; d < -1 || d > 1 {
		t.Errorf("CSR %d iterations, dense %d", res.Iterations, dense.Iterations)
	}
	// Three right-hand sides through the CSR block products.
	bm := blas64.General{Rows: m, Cols: 3, Stride: 3, Data: make([]float64, 3*m)}
	for i := range bm.Data {
		bm.Data[i] = rnd.NormFloat64()
	}
	many, err := lsqr.SolveMany(context.Background(), csr, bm, s)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 3; j++ {
		bj := make([]float64, m)
		for i := range bj {
			bj[i] = bm.Data[i*3+j]
		}
		if d := relDiff(many[j].X, qrSolve(t, a, bj)); d > 1e-10 {
			t.Errorf("CSR block, right-hand side %d: %.2e from QR", j, d)
		}
	}
}
