package dense_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/internal/dense"
)

// The Gram matrix X·Xᵀ of two rows, both triangles, and a compact copy of
// the first row picked from the matrix.
func Example() {
	x := blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: []float64{1, 2, 3, 4}}
	g := dense.New(2, 2)
	if err := dense.GramUpper(context.Background(), x, g); err != nil {
		fmt.Println(err)
		return
	}
	row := dense.New(1, 2)
	if err := dense.CopyRowsCtx(context.Background(), row, x, []int{1}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Data, row.Data)
	// Output: [5 11 11 25] [3 4]
}
