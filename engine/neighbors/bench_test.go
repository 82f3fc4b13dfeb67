package neighbors_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
)

// kNN, k = 10, of 100,000 swiss-roll points in 3-D (target ≤ 1.5 s on 2
// cores). The k-d tree is what Auto picks here.
func BenchmarkKNN3D(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		x, _ := datasets.SwissRoll(n, 0, 1)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := neighbors.KNN(ctx, x, 10, neighbors.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func gaussian(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 2))
	data := make([]float64, n*d)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	return mat.NewDense(n, d, data)
}

// Brute-force kNN of 10,000 points in 784-D (MNIST-sized), reported in
// GFLAM/s of the m·n·D distance work, beside the Gemm of the same shape
// (BenchmarkGemm784): the target is ≥ 60 % of the Gemm rate.
func BenchmarkBrute784(b *testing.B) {
	const n, d = 10_000, 784
	x := gaussian(n, d, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := neighbors.KNN(ctx, x, 10, neighbors.Options{Algorithm: neighbors.Brute}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(flam.KNNBrute(n, n, d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLAM/s")
}

// The reference: C (n×n) = X·Xᵀ in 512×512 tiles, the same flam as the
// brute force, on the active backend.
func BenchmarkGemm784(b *testing.B) {
	const n, d = 10_000, 784
	x := gaussian(n, d, 1).RawMatrix()
	c := blas64.General{Rows: 2048, Cols: 2048, Stride: 2048, Data: make([]float64, 2048*2048)}
	impl := backend.Active()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for i0 := 0; i0 < n; i0 += 2048 {
			for j0 := 0; j0 < n; j0 += 2048 {
				xi := blas64.General{Rows: min(2048, n-i0), Cols: d, Stride: d, Data: x.Data[i0*d:]}
				xj := blas64.General{Rows: min(2048, n-j0), Cols: d, Stride: d, Data: x.Data[j0*d:]}
				ct := blas64.General{Rows: xi.Rows, Cols: xj.Rows, Stride: 2048, Data: c.Data}
				impl.Gemm(blas.NoTrans, blas.Trans, 1, xi, xj, 0, ct)
			}
		}
	}
	b.ReportMetric(flam.Gemm(n, n, d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLAM/s")
}

// NN-descent, k = 15, on the 9298 USPS digits (256 features;
// skipped without ../shared/data) and on a swiss roll embedded in 784
// dimensions.
func BenchmarkKNNApprox(b *testing.B) {
	roll, _ := datasets.SwissRoll(20000, 0.05, 1)
	r784, err := datasets.Embed(roll, 784, 0.01, 1)
	if err != nil {
		b.Fatal(err)
	}
	inputs := []struct {
		name string
		x    func() *mat.Dense
	}{{"usps-9298x256", func() *mat.Dense { return usps(b, 9298) }}, {"roll-20000x784", func() *mat.Dense { return r784 }}}
	for _, in := range inputs {
		b.Run(in.name+"/nn-descent", func(b *testing.B) {
			x := in.x()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := neighbors.KNNApprox(ctx, x, 15, neighbors.ApproxOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Approximate queries, one row at a time (QueryRow, the request path):
// 2000 rows of a swiss roll embedded in 256 dimensions against an index of
// 20,000 others, k = 10 at width 16. Its best-first walk is the frontier's
// and the kept candidates' heaps.
func BenchmarkQueryRow(b *testing.B) {
	roll, _ := datasets.SwissRoll(22000, 0.05, 1)
	x, err := datasets.Embed(roll, 256, 0.01, 1)
	if err != nil {
		b.Fatal(err)
	}
	ix, _, err := neighbors.NewIndex(ctx, x.Slice(0, 20000, 0, 256), 10, neighbors.ApproxOptions{})
	if err != nil {
		b.Fatal(err)
	}
	js, ds := make([]int, 10), make([]float64, 10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for q := 20000; q < 22000; q++ {
			if err := ix.QueryRow(ctx, x.RawRowView(q), js, ds, 16); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(2000*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
