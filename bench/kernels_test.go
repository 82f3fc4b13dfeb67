package bench

import (
	"context"
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
)

// Benchmarks of the backend kernels, one sub-benchmark per backend and size,
// named like BenchmarkGemm/impl=openblas/n=2000 and reporting GFLAM/s (and
// GB/s for the memory-bound kernels).

func reportRate(b *testing.B, flamPerOp float64) {
	b.ReportMetric(flamPerOp*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLAM/s")
}

func forImpls(b *testing.B, sizes []int, skip func(impl backend.Impl, n int) bool, run func(b *testing.B, impl backend.Impl, n int)) {
	for _, impl := range backend.Impls() {
		for _, n := range sizes {
			if skip != nil && skip(impl, n) {
				continue
			}
			b.Run(fmt.Sprintf("impl=%s/n=%d", impl.Name(), n), func(b *testing.B) { run(b, impl, n) })
		}
	}
}

func BenchmarkGemm(b *testing.B) {
	forImpls(b, []int{500, 1000, 2000, 4000}, nil, func(b *testing.B, impl backend.Impl, n int) {
		x, y := RandGeneral(1, n, n), RandGeneral(2, n, n)
		c := RandGeneral(3, n, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			impl.Gemm(blas.NoTrans, blas.NoTrans, 1, x, y, 0, c)
		}
		reportRate(b, flam.Gemm(n, n, n))
	})
}

// BenchmarkGonumGemm is gonum's own Dgemm called directly, the reference the
// pure-Go Gemm must stay within 10 % of.
func BenchmarkGonumGemm(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x, y := RandGeneral(1, n, n), RandGeneral(2, n, n)
			c := RandGeneral(3, n, n)
			var impl gonumblas.Implementation
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				impl.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x.Data, n, y.Data, n, 0, c.Data, n)
			}
			reportRate(b, flam.Gemm(n, n, n))
		})
	}
}

func BenchmarkSyrk(b *testing.B) {
	forImpls(b, []int{1000, 2000}, nil, func(b *testing.B, impl backend.Impl, n int) {
		x := RandGeneral(1, n, n)
		c := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			impl.Syrk(blas.NoTrans, 1, x, 0, c)
		}
		reportRate(b, flam.Syrk(n, n))
	})
}

func BenchmarkSymm(b *testing.B) {
	forImpls(b, []int{1000, 2000}, nil, func(b *testing.B, impl backend.Impl, n int) {
		a := RandSym(1, n)
		x, c := RandGeneral(2, n, n), RandGeneral(3, n, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			impl.Symm(blas.Left, 1, a, x, 0, c)
		}
		reportRate(b, flam.Symm(n, n))
	})
}

func BenchmarkGemv(b *testing.B) {
	forImpls(b, []int{1000, 4000}, nil, func(b *testing.B, impl backend.Impl, n int) {
		a := RandGeneral(1, n, n)
		x := blas64.Vector{N: n, Inc: 1, Data: RandGeneral(2, 1, n).Data}
		y := blas64.Vector{N: n, Inc: 1, Data: make([]float64, n)}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			impl.Gemv(blas.NoTrans, 1, a, x, 0, y)
		}
		reportRate(b, flam.Gemv(n, n))
		b.ReportMetric(8*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
}

func BenchmarkSymv(b *testing.B) {
	forImpls(b, []int{1000, 4000}, nil, func(b *testing.B, impl backend.Impl, n int) {
		a := RandSym(1, n)
		x := blas64.Vector{N: n, Inc: 1, Data: RandGeneral(2, 1, n).Data}
		y := blas64.Vector{N: n, Inc: 1, Data: make([]float64, n)}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			impl.Symv(1, a, x, 0, y)
		}
		reportRate(b, flam.Symv(n))
	})
}

// BenchmarkSyevrTop10 computes the 10 largest eigenpairs by index range.
func BenchmarkSyevrTop10(b *testing.B) {
	forImpls(b, []int{1000, 2000, 3000}, nil, func(b *testing.B, impl backend.Impl, n int) {
		src := RandSym(1, n)
		a := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Lower, Data: make([]float64, n*n)}
		w := make([]float64, 10)
		z := blas64.General{Rows: n, Cols: 10, Stride: 10, Data: make([]float64, n*10)}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			copy(a.Data, src.Data)
			b.StartTimer()
			if err := impl.Syevr(a, n-10, n, w, z); err != nil {
				b.Fatal(err)
			}
		}
		reportRate(b, flam.Syevr(n, 10))
	})
}

// BenchmarkSyevd is the full decomposition with vectors. The pure-Go one
// (gonum's Dsyev) is skipped above n = 1000: 57 s at n = 2000.
func BenchmarkSyevd(b *testing.B) {
	skip := func(impl backend.Impl, n int) bool { return impl.Name() == "purego" && n > 1000 }
	forImpls(b, []int{1000, 2000, 3000}, skip, func(b *testing.B, impl backend.Impl, n int) {
		src := RandSym(1, n)
		a := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Lower, Data: make([]float64, n*n)}
		w := make([]float64, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			copy(a.Data, src.Data)
			b.StartTimer()
			if err := impl.Syevd(a, w, true); err != nil {
				b.Fatal(err)
			}
		}
		reportRate(b, flam.Syevd(n, true))
	})
}

func BenchmarkGesdd(b *testing.B) {
	forImpls(b, []int{500}, nil, func(b *testing.B, impl backend.Impl, n int) {
		m := 4 * n
		src := RandGeneral(1, m, n)
		a := RandGeneral(1, m, n)
		s := make([]float64, n)
		u := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
		vt := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			copy(a.Data, src.Data)
			b.StartTimer()
			if err := impl.Gesdd(a, s, u, vt); err != nil {
				b.Fatal(err)
			}
		}
		reportRate(b, flam.SVD(m, n))
	})
}

func BenchmarkPotrf(b *testing.B) {
	forImpls(b, []int{2000}, nil, func(b *testing.B, impl backend.Impl, n int) {
		src := SPD(1, n)
		a := SPD(1, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			copy(a.Data, src.Data)
			b.StartTimer()
			if err := impl.Potrf(a); err != nil {
				b.Fatal(err)
			}
		}
		reportRate(b, flam.Potrf(n))
	})
}

// BenchmarkSqDist is the distance kernel on 5000 points of dimension 784
// (MNIST-sized) against themselves; the target is ≥ 70 % (OpenBLAS)
// and ≥ 60 % (pure Go) of the Gemm rate. Its rate is reported against the
// Gemm-formula flam m·n·D, the work a plain Gemm of the same shapes does.
func BenchmarkSqDist(b *testing.B) {
	forImpls(b, []int{5000}, nil, func(b *testing.B, impl backend.Impl, n int) {
		const dim = 784
		x := RandGeneral(1, n, dim)
		d := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		b.Run("self", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := backend.SqDistCtx(context.Background(), impl, d, x, x, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, flam.Gemm(n, n, dim))
		})
		y := RandGeneral(2, n, dim)
		b.Run("cross", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := backend.SqDistCtx(context.Background(), impl, d, x, y, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, flam.Gemm(n, n, dim))
		})
		b.Run("gemm", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				impl.Gemm(blas.NoTrans, blas.Trans, -2, x, y, 0, d)
			}
			reportRate(b, flam.Gemm(n, n, dim))
		})
	})
}

// BenchmarkDoubleCenter is in-place double centering of a 10000² matrix with
// precomputed row means, against a plain copy of the same bytes (stream).
func BenchmarkDoubleCenter(b *testing.B) {
	const n = 10000
	s := RandGeneral(1, n, n)
	means := backend.RowMeans(s)
	b.Run("n=10000", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = backend.DoubleCenterCtx(context.Background(), s, means)
		}
		b.ReportMetric(flam.BytesDoubleCenter(n, 8)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
	b.Run("stream-copy", func(b *testing.B) {
		dst := make([]float64, n*n)
		copy(dst, s.Data) // first touch outside the timing
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			backend.ParallelFor(n, 64, func(lo, hi int) { copy(dst[lo*n:hi*n], s.Data[lo*n:hi*n]) })
		}
		b.ReportMetric(16*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
}
