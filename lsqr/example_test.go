package lsqr_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lsqr"
)

// A straight-line fit y ≈ c₀ + c₁·t to five points: the least-squares
// solution of an overdetermined system with a dense matrix.
func Example() {
	t := []float64{0, 1, 2, 3, 4}
	y := []float64{1.1, 2.9, 5.2, 7.1, 8.8}
	a := blas64.General{Rows: 5, Cols: 2, Stride: 2, Data: make([]float64, 10)}
	for i, ti := range t {
		a.Data[2*i], a.Data[2*i+1] = 1, ti
	}
	res, err := lsqr.Solve(context.Background(), backend.GeneralOp{A: a}, y, lsqr.Settings{ATol: 1e-12, BTol: 1e-12})
	if err != nil {
		panic(err)
	}
	fmt.Printf("c₀ = %.4f, c₁ = %.4f\n", res.X[0], res.X[1])
	fmt.Printf("‖r‖ = %.4f after %d iterations: %v\n", res.RNorm, res.Iterations, res.Status)
	// Output:
	// c₀ = 1.1000, c₁ = 1.9600
	// ‖r‖ = 0.3033 after 2 iterations: least-squares solution to the tolerance
}

// Ridge regression (Cai, He & Han, AAAI 2007 eq. 10): damping α = Damp²
// shrinks the solution. The operator here is a function: the 1-D
// difference operator (A·x)_i = x_{i+1} − x_i, never stored.
func ExampleFunc() {
	const n = 6
	diff := lsqr.Func{Rows: n - 1, Cols: n,
		Mul: func(dst, x []float64) {
			for i := range dst {
				dst[i] = x[i+1] - x[i]
			}
		},
		MulTrans: func(dst, y []float64) {
			clear(dst)
			for i, v := range y {
				dst[i+1] += v
				dst[i] -= v
			}
		}}
	b := []float64{1, 1, 1, 1, 1} // x rises by one per step
	for _, damp := range []float64{0, 1} {
		res, err := lsqr.Solve(context.Background(), diff, b, lsqr.Settings{Damp: damp, ATol: 1e-12, BTol: 1e-12})
		if err != nil {
			panic(err)
		}
		fmt.Printf("damp %g: x = %.3f\n", damp, res.X)
	}
	// Output:
	// damp 0: x = [-2.500 -1.500 -0.500 0.500 1.500 2.500]
	// damp 1: x = [-0.611 -0.222 -0.056 0.056 0.222 0.611]
}

// Several right-hand sides share one pass over the matrix per iteration.
func ExampleSolveMany() {
	a := blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: []float64{1, 0, 0, 1, 1, 1}}
	// Columns: b₁ = A·(1, 2) (consistent), b₂ = (1, 0, 0) (not).
	b := blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: []float64{1, 1, 2, 0, 3, 0}}
	res, err := lsqr.SolveMany(context.Background(), backend.GeneralOp{A: a}, b, lsqr.Settings{ATol: 1e-12, BTol: 1e-12})
	if err != nil {
		panic(err)
	}
	for _, r := range res {
		fmt.Printf("x = %.4f (%v)\n", r.X, r.Status)
	}
	// Output:
	// x = [1.0000 2.0000] (A·x = b solved to the tolerances)
	// x = [0.6667 -0.3333] (least-squares solution to the tolerance)
}
