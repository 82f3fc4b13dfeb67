package lars_test

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/lars"
)

// Tiny shapes and trivial responses must work, never panic.
func TestTinyShapes(t *testing.T) {
	ctx := context.Background()
	for _, sh := range [][2]int{{1, 1}, {3, 1}, {1, 3}, {2, 2}} {
		x := blas64.General{Rows: sh[0], Cols: sh[1], Stride: sh[1], Data: make([]float64, sh[0]*sh[1])}
		for i := range x.Data {
			x.Data[i] = float64(i%3) + 1
		}
		y := make([]float64, sh[0])
		for i := range y {
			y[i] = float64(i) + 1
		}
		for _, s := range []lars.Settings{{}, {MaxNonZero: 1}, {LAR: true}} {
			if _, err := lars.Fit(ctx, x, y, s); err != nil {
				t.Errorf("%v %+v: %v", sh, s, err)
			}
		}
		// y = 0: the path is the single point β = 0.
		p, err := lars.Fit(ctx, x, make([]float64, sh[0]), lars.Settings{})
		if err != nil || len(p.Steps) != 1 {
			t.Errorf("%v, y = 0: err %v, %d breakpoints", sh, err, len(p.Steps))
		}
	}
}
