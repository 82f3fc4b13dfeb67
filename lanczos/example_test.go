package lanczos_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lanczos"
)

// The three largest eigenvalues of a dense symmetric matrix, here the
// 1-D Laplacian tridiag(−1, 2, −1) of order 200, whose eigenvalues are
// 2 − 2·cos(jπ/201).
func Example() {
	const n = 200
	a := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		a.Data[i*n+i] = 2
		if i > 0 {
			a.Data[i*n+i-1], a.Data[(i-1)*n+i] = -1, -1
		}
	}
	res, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: a}, lanczos.Settings{K: 3})
	if err != nil {
		panic(err)
	}
	for i, v := range res.Values {
		exact := 2 - 2*math.Cos(float64(n-i)*math.Pi/(n+1))
		fmt.Printf("%.10f (exact %.10f)\n", v, exact)
	}
	fmt.Println(res.Status)
	// Output:
	// 3.9997557139 (exact 3.9997557139)
	// 3.9990229152 (exact 3.9990229152)
	// 3.9978017830 (exact 3.9978017830)
	// converged
}

// The smallest eigenpairs of an operator given as a function: the same
// Laplacian, never stored. Its smallest eigenvector is sin(iπ/(n+1)),
// normalized.
func ExampleFunc() {
	const n = 300
	lap := lanczos.Func{N: n, Mul: func(dst, x []float64) {
		for i := range dst {
			v := 2 * x[i]
			if i > 0 {
				v -= x[i-1]
			}
			if i < n-1 {
				v -= x[i+1]
			}
			dst[i] = v
		}
	}}
	res, err := lanczos.Solve(context.Background(), lap, lanczos.Settings{K: 2, Which: lanczos.Smallest})
	if err != nil {
		panic(err)
	}
	for i, v := range res.Values {
		fmt.Printf("λ%d = %.8f (exact %.8f)\n", i+1, v, 2-2*math.Cos(float64(i+1)*math.Pi/(n+1)))
	}
	// The sign convention makes the largest component positive: the
	// middle of the sine arch.
	fmt.Printf("y₁[n/2] = %.4f, √(2/(n+1)) = %.4f\n", res.Vectors.Data[(n/2)*res.Vectors.Stride], math.Sqrt(2.0/(n+1)))
	// Output:
	// λ1 = 0.00010893 (exact 0.00010893)
	// λ2 = 0.00043572 (exact 0.00043572)
	// y₁[n/2] = 0.0815, √(2/(n+1)) = 0.0815
}

// Shifted turns the smallest eigenvalues of A into the largest of σI − A
// (no factorization): with σ ≥ λmax the shifted operator is positive
// semidefinite.
func ExampleShifted() {
	diag := lanczos.Func{N: 100, Mul: func(dst, x []float64) {
		for i := range dst {
			dst[i] = float64(i+1) * x[i] // eigenvalues 1, 2, …, 100
		}
	}}
	res, err := lanczos.Solve(context.Background(), lanczos.Shifted{Op: diag, Sigma: 100}, lanczos.Settings{K: 2})
	if err != nil {
		panic(err)
	}
	for _, v := range res.Values {
		fmt.Printf("σ − θ = %.6f\n", 100-v)
	}
	// Output:
	// σ − θ = 1.000000
	// σ − θ = 2.000000
}
