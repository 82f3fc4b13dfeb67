package bench

import (
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
)

// Best runs f reps times and returns the fastest wall time in seconds.
func Best(reps int, f func()) float64 {
	b := 1e300
	for i := 0; i < max(1, reps); i++ {
		t0 := time.Now()
		f()
		b = min(b, time.Since(t0).Seconds())
	}
	return b
}

// GemmRate returns the best rate, in flam per second, of an n×n×n Gemm
// on impl over reps runs: the machine's measured compute peak for that
// backend (bench/tables/kernels prints it; the flam audit divides by it).
func GemmRate(impl backend.Impl, n, reps int) float64 {
	a, b, c := RandGeneral(1, n, n), RandGeneral(2, n, n), RandGeneral(3, n, n)
	t := Best(reps, func() { impl.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c) })
	return flam.Gemm(n, n, n) / t
}

// StreamBandwidth returns the bandwidth of a parallel copy of an n×n
// float64 matrix in bytes per second (read + write counted), best of 5:
// the machine's measured memory bound.
func StreamBandwidth(n int) float64 {
	src := make([]float64, n*n)
	dst := make([]float64, n*n)
	for i := range src {
		src[i] = float64(i)
	}
	copy(dst, src) // first touch
	t := Best(5, func() {
		backend.ParallelFor(n, 64, func(lo, hi int) { copy(dst[lo*n:hi*n], src[lo*n:hi*n]) })
	})
	return 16 * float64(n) * float64(n) / t
}
