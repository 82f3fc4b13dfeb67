package barycentric_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/engine/internal/barycentric"
	"github.com/manifoldlab/manifold/engine/neighbors"
)

// The point (0.25, 0.25) rebuilt from the corners of the unit triangle:
// its barycentric coordinates ½, ¼, ¼.
func Example() {
	corners := blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: []float64{0, 0, 1, 0, 0, 1}}
	q := blas64.General{Rows: 1, Cols: 2, Stride: 2, Data: []float64{0.25, 0.25}}
	nb := &neighbors.Result{Ptr: []int{0, 3}, Ind: []int{0, 1, 2}, Dist: make([]float64, 3)}
	w, err := barycentric.Weights(context.Background(), corners, q, nb, 1e-12, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, vals := w.Row(0)
	fmt.Printf("%.4f\n", vals)
	// Output: [0.5000 0.2500 0.2500]
}
