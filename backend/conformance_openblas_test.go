//go:build openblas && cgo

package backend_test

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/backendtest"
)

// The C path without size dispatch, so the conformance suite's small and
// edge sizes reach OpenBLAS and LAPACKE too.
func TestConformanceOpenBLASDirect(t *testing.T) {
	backendtest.Run(t, backend.OpenBLASDirect)
}

// A product with a thin matrix runs in Go (thinGemvMax): the same bits as
// the pure-Go backend, where the C library's summation order differs.
// Wider ones still reach the C library.
func TestThinGemvInGo(t *testing.T) {
	for _, sh := range [][2]int{{30, 2000}, {2000, 30}, {64, 500}, {200, 300}} {
		m, n := sh[0], sh[1]
		a := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
		for i := range a.Data {
			a.Data[i] = math.Sin(float64(i)) / 3
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Cos(float64(i))
		}
		got, want := make([]float64, m), make([]float64, m)
		backend.Active().Gemv(blas.NoTrans, 1, a, blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: m, Inc: 1, Data: got})
		backend.PureGo.Gemv(blas.NoTrans, 1, a, blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: m, Inc: 1, Data: want})
		same := slices.Equal(got, want)
		if thin := min(m, n) <= 64; same != thin {
			t.Errorf("%d×%d: same bits as pure Go %v, want %v (thin: in Go)", m, n, same, thin)
		}
	}
}
