package tall_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/internal/tall"
)

// Projecting a block of two columns off a unit vector u: y −= u·(uᵀ·y),
// the step every eigensolver iteration takes against a known null vector.
func Example() {
	const n = 10000
	u := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: make([]float64, n)}
	y := blas64.General{Rows: n, Cols: 2, Stride: 2, Data: make([]float64, 2*n)}
	for i := 0; i < n; i++ {
		u.Data[i] = 0.01 // 1/√n: unit
		y.Data[2*i], y.Data[2*i+1] = 1, float64(i%2)
	}
	c := blas64.General{Rows: 1, Cols: 2, Stride: 2, Data: make([]float64, 2)}
	tall.TN(u, y, c) // c = uᵀ·y
	fmt.Printf("uᵀy = %.2f %.2f\n", c.Data[0], c.Data[1])
	tall.NN(-1, u, c, 1, y) // y −= u·c
	tall.TN(u, y, c)
	fmt.Printf("after: |uᵀy| < 1e-12: %v %v, squared norms %.0f\n", math.Abs(c.Data[0]) < 1e-12, math.Abs(c.Data[1]) < 1e-12, tall.ColumnNorms(y))
	// Output:
	// uᵀy = 100.00 50.00
	// after: |uᵀy| < 1e-12: true true, squared norms [0 2500]
}
