package engine

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
)

// checkTransformRange refuses new points whose values are so large that
// their squared distances to the n training points of d features overflow
// (the bound of checkFitData), with an error wrapping ErrNotFinite, as Fit
// refuses such data.
func checkTransformRange(method string, g blas64.General, n int) error {
	d := g.Cols
	limit := math.Sqrt(math.MaxFloat64 / (8 * float64(max(n, d)) * float64(d)))
	for i := 0; i < g.Rows; i++ {
		for j, v := range g.Data[i*g.Stride : i*g.Stride+d] {
			if math.Abs(v) > limit {
				return fmt.Errorf("%s transform: %w: row %d, column %d is %.3g: squared distances to the training points overflow past about %.3g; rescale the data",
					method, ErrNotFinite, i, j, v, limit)
			}
		}
	}
	return nil
}

// checkTransformOutput returns an error wrapping ErrNotFinite when an
// output of Transform is NaN or Inf, naming the new point: a point so far
// from the training data that its coordinates overflow. Transform returns
// finite coordinates or an error, never NaN.
func checkTransformOutput(method string, y blas64.General) error {
	for i := 0; i < y.Rows; i++ {
		for j, v := range y.Data[i*y.Stride : i*y.Stride+y.Cols] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s transform: %w: new point %d maps to %v in coordinate %d: it is too far from the training data for the model's scale",
					method, ErrNotFinite, i, v, j)
			}
		}
	}
	return nil
}
