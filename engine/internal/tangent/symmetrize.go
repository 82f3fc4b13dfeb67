package tangent

import (
	"context"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/internal/dense"
)

// SymmetrizeSquared replaces the square td by ((td + tdᵀ)/2)∘2, TDPM's
// symmetric squared tangent distances (its diagonal 0), and returns its
// largest entry; tiles in parallel, ctx checked between tile rows.
func SymmetrizeSquared(ctx context.Context, td blas64.General) (float64, error) {
	n := td.Rows
	top := make([]float64, (n+dense.Tile-1)/dense.Tile) // by tile row
	err := dense.UpperTiles(ctx, n, func(row, i0, i1, j0, j1 int) {
		big := top[row]
		for i := i0; i < i1; i++ {
			if j0 == i0 {
				td.Data[i*td.Stride+i] = 0
			}
			for j := max(j0, i+1); j < j1; j++ {
				v := 0.5 * (td.Data[i*td.Stride+j] + td.Data[j*td.Stride+i])
				v *= v
				td.Data[i*td.Stride+j], td.Data[j*td.Stride+i] = v, v
				big = max(big, v)
			}
		}
		top[row] = big
	})
	m := 0.0
	for _, v := range top {
		m = max(m, v)
	}
	return m, err
}
