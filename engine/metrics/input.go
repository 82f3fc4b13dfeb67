package metrics

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// denseRows returns the rows of x as a row-major blas64.General (a view of
// a *mat.Dense, a copy otherwise), refusing empty input and NaN or Inf.
func denseRows(x mat.Matrix) (blas64.General, error) {
	if x == nil {
		return blas64.General{}, fmt.Errorf("%w: nil matrix", ErrInput)
	}
	var g blas64.General
	switch m := x.(type) {
	case *mat.Dense:
		if m.IsEmpty() {
			return g, fmt.Errorf("%w: empty matrix", ErrInput)
		}
		g = m.RawMatrix()
	case *sparse.CSR:
		g = m.ToDense().RawMatrix()
	default:
		r, c := x.Dims()
		g = blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				g.Data[i*c+j] = x.At(i, j)
			}
		}
	}
	if g.Rows == 0 || g.Cols == 0 {
		return g, fmt.Errorf("%w: %d×%d matrix", ErrInput, g.Rows, g.Cols)
	}
	for i := 0; i < g.Rows; i++ {
		for j, v := range g.Data[i*g.Stride : i*g.Stride+g.Cols] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return g, fmt.Errorf("%w: entry (%d, %d) is %v", ErrInput, i, j, v)
			}
		}
	}
	return g, nil
}

// rowsOf returns the listed rows of g as a new *mat.Dense.
func rowsOf(g blas64.General, idx []int) *mat.Dense {
	out := mat.NewDense(len(idx), g.Cols, nil)
	raw := out.RawMatrix()
	for r, i := range idx {
		copy(raw.Data[r*raw.Stride:r*raw.Stride+g.Cols], g.Data[i*g.Stride:i*g.Stride+g.Cols])
	}
	return out
}
