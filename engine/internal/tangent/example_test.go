package tangent_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/engine/internal/tangent"
	"github.com/manifoldlab/manifold/engine/neighbors"
)

// The tangent space at the origin from four neighbours on the first axis
// of 3 features is that axis: the tangent distance of (3, 4, 0) to it is
// 4, of a point on the axis 0, and of (0, 0, 2) its distance 2.
func Example() {
	x := blas64.General{Rows: 5, Cols: 3, Stride: 3, Data: []float64{
		0, 0, 0, // the point whose tangent space we want
		-2, 0, 0,
		-1, 0, 0,
		1, 0, 0,
		2, 0, 0,
	}}
	// Row 0's neighbours are rows 1–4 (the distances are not read).
	nb := &neighbors.Result{Ptr: []int{0, 4}, Ind: []int{1, 2, 3, 4}, Dist: make([]float64, 4)}
	const t = 1 // a line
	p, err := tangent.Spaces(context.Background(), x, nb, t, blas64.General{}, nil)
	if err != nil {
		panic(err)
	}
	centre := blas64.General{Rows: 1, Cols: 3, Stride: 3, Data: x.Data[:3]}
	y := blas64.General{Rows: 3, Cols: 3, Stride: 3, Data: []float64{
		3, 4, 0,
		5, 0, 0,
		0, 0, 2,
	}}
	td := blas64.General{Rows: 1, Cols: 3, Stride: 3, Data: make([]float64, 3)}
	err = tangent.Distances(context.Background(), td, centre, y, p, tangent.Anchors(centre, p, t), t, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.6f\n", td.Data)
	// Output:
	// [4.000000 0.000000 2.000000]
}
