package lars_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/lars"
)

// The lasso path of a small regression. Variables 1 and 2 reach λ = 2
// together (a tie): they enter at two breakpoints with the same λ. The
// last breakpoint, λ = 0, is the least-squares fit.
func ExampleFit() {
	x := blas64.General{Rows: 5, Cols: 3, Stride: 3, Data: []float64{
		1, 0, 1,
		0, 1, 1,
		1, 1, 0,
		1, 0, 0,
		0, 1, 0,
	}}
	y := []float64{3, 1, 3, 2, 0}
	path, err := lars.Fit(context.Background(), x, y, lars.Settings{})
	if err != nil {
		panic(err)
	}
	for _, s := range path.Steps {
		fmt.Printf("λ = %6.3f active %v β = %.3f\n", s.Lambda, s.Active, s.Coef)
	}
	// Output:
	// λ =  8.000 active [0] β = [0.000]
	// λ =  2.000 active [0 1] β = [2.000 0.000]
	// λ =  2.000 active [0 1 2] β = [2.000 0.000 0.000]
	// λ =  0.000 active [0 1 2] β = [2.333 0.333 0.667]
}

// Sparse OIP needs a fixed number of non-zeros: MaxNonZero stops the path
// where a third variable would enter.
func ExampleSettings_maxNonZero() {
	x := blas64.General{Rows: 6, Cols: 4, Stride: 4, Data: []float64{
		1, 0, 0, 1,
		0, 1, 0, 1,
		0, 0, 1, 0,
		1, 1, 0, 0,
		0, 1, 1, 0,
		1, 0, 1, 1,
	}}
	y := []float64{4, 1, 0, 3, 1, 3}
	path, err := lars.Fit(context.Background(), x, y, lars.Settings{MaxNonZero: 2})
	if err != nil {
		panic(err)
	}
	fmt.Printf("stopped: %v at λ = %.4f\n", path.Stats.Reason, path.Steps[len(path.Steps)-1].Lambda)
	fmt.Printf("β = %.4f\n", path.Final())
	// Output:
	// stopped: cardinality reached at λ = 2.3333
	// β = [2.3333 0.0000 0.0000 0.3333]
}
