package admm

import (
	"context"
	"errors"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// Tiny shapes must work (or fail with an error), never panic.
func TestTinyShapes(t *testing.T) {
	ctx := context.Background()
	for _, sh := range [][2]int{{1, 1}, {3, 1}, {1, 3}, {2, 2}} {
		s := blas64.General{Rows: sh[0], Cols: sh[1], Stride: sh[1], Data: make([]float64, sh[0]*sh[1])}
		for i := range s.Data {
			s.Data[i] = float64(10 * (i + 1))
		}
		res, err := LRR(ctx, s, LRRSettings{MaxIter: 200})
		if err != nil && !errors.Is(err, ErrNotConverged) {
			t.Errorf("LRR %v: %v", sh, err)
		}
		if res == nil {
			t.Errorf("LRR %v: no result", sh)
		}
		net, err := NewElasticNet(backend.GeneralOp{A: s}, s.Data[:sh[0]])
		if err != nil {
			t.Fatalf("NewElasticNet %v: %v", sh, err)
		}
		if _, err := net.Solve(ctx, 1, NetSettings{}, nil); err != nil {
			t.Errorf("ElasticNet %v: %v", sh, err)
		}
	}
}
