//go:build openblas && cgo

package bench

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// BenchmarkDispatch measures small calls in pure Go against the same calls
// sent straight to OpenBLAS (no dispatch), to place the thresholds in
// backend/openblas.go where the C library starts to win.
func BenchmarkDispatch(b *testing.B) {
	impls := []backend.Impl{backend.PureGo, backend.OpenBLASDirect}
	for _, n := range []int{4, 8, 16, 24, 32, 48, 64, 96} {
		x, y, c := RandGeneral(1, n, n), RandGeneral(2, n, n), RandGeneral(3, n, n)
		for _, impl := range impls {
			b.Run(fmt.Sprintf("Gemm/n=%d/impl=%s", n, impl.Name()), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					impl.Gemm(blas.NoTrans, blas.NoTrans, 1, x, y, 0, c)
				}
			})
		}
	}
	for _, n := range []int{16, 32, 64, 128, 256, 512, 1024, 2048} {
		a := RandGeneral(1, n, n)
		x := blas64.Vector{N: n, Inc: 1, Data: RandGeneral(2, 1, n).Data}
		y := blas64.Vector{N: n, Inc: 1, Data: make([]float64, n)}
		for _, impl := range impls {
			b.Run(fmt.Sprintf("Gemv/n=%d/impl=%s", n, impl.Name()), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					impl.Gemv(blas.NoTrans, 1, a, x, 0, y)
				}
			})
		}
	}
	for _, n := range []int{4, 8, 16, 32, 64} {
		src := RandSym(1, n)
		a := RandSym(1, n)
		w := make([]float64, n)
		for _, impl := range impls {
			b.Run(fmt.Sprintf("Syevd/n=%d/impl=%s", n, impl.Name()), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					copy(a.Data, src.Data)
					if err := impl.Syevd(a, w, true); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
