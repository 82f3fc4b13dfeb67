package admm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// orthonormal returns an n×k matrix with orthonormal columns.
func orthonormal(rnd *rand.Rand, n, k int) blas64.General {
	q := randGeneral(rnd, n, k)
	tau := make([]float64, k)
	backend.Active().Geqrf(q, tau)
	backend.Active().Orgqr(q, tau)
	return q
}

// withSpectrum returns U·diag(s)·Vᵀ (n×n) for random orthonormal U, V.
func withSpectrum(rnd *rand.Rand, n int, s []float64) blas64.General {
	u := orthonormal(rnd, n, n)
	v := orthonormal(rnd, n, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			u.Data[i*n+j] *= s[j]
		}
	}
	a := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	backend.Active().Gemm(blas.NoTrans, blas.Trans, 1, u, v, 0, a)
	return a
}

// spectrum: r values in [2τ, 10τ] above the threshold τ = 1, the rest in
// [0, gap·τ].
func spectrum(rnd *rand.Rand, n, r int, gap float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		if i < r {
			s[i] = 2 + 8*rnd.Float64()
		} else {
			s[i] = gap * rnd.Float64()
		}
	}
	return s
}

// The partial SVT must agree with the full one (and the full one with the
// closed form U·diag(max(σ−τ, 0))·Vᵀ) on matrices with a known spectrum,
// including a block that has to grow and a spectrum crowding τ.
func TestSVTPartialMatchesFull(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		n, r int
		gap  float64
	}{
		{80, 3, 0.5}, {80, 15, 0.9}, {120, 40, 0.5}, {60, 0, 0.9}, {50, 50, 0},
	} {
		t.Run(fmt.Sprintf("n=%d r=%d gap=%g", c.n, c.r, c.gap), func(t *testing.T) {
			s := spectrum(rnd, c.n, c.r, c.gap)
			a := withSpectrum(rnd, c.n, s)
			// Closed form: the spectrum shifted by τ = 1 on the same vectors
			// is Θ₁(A); compare through the nuclear norm and the result.
			want := 0.0
			for _, v := range s {
				want += max(0, v-1)
			}
			full := NewSVT(c.n, SVTFull, nil, 1)
			part := NewSVT(c.n, SVTPartial, nil, 1)
			df := blas64.General{Rows: c.n, Cols: c.n, Stride: c.n, Data: make([]float64, c.n*c.n)}
			dp := blas64.General{Rows: c.n, Cols: c.n, Stride: c.n, Data: make([]float64, c.n*c.n)}
			lf, nf, err := full.Apply(df, a, 1)
			if err != nil {
				t.Fatal(err)
			}
			lp, np, err := part.Apply(dp, a, 1)
			if err != nil {
				t.Fatal(err)
			}
			if lf.Rank() != c.r || lp.Rank() != c.r {
				t.Errorf("rank: full %d, partial %d, want %d", lf.Rank(), lp.Rank(), c.r)
			}
			if math.Abs(nf-want) > 1e-10*max(1, want) || math.Abs(np-want) > 1e-8*max(1, want) {
				t.Errorf("‖Θ(A)‖_*: full %.12g, partial %.12g, want %.12g", nf, np, want)
			}
			d := 0.0
			for i := range df.Data {
				d = max(d, math.Abs(df.Data[i]-dp.Data[i]))
			}
			if d > 1e-8*max(1, s[0]) {
				t.Errorf("max |partial − full| = %.3g", d)
			}
			t.Logf("partial: %d sweeps, %d fallbacks", part.Sweeps, part.Fallbacks)
			if part.Fallbacks != 0 {
				t.Errorf("partial SVT fell back to the full SVD")
			}
			// Warm start: a small perturbation converges in fewer sweeps.
			sw := part.Sweeps
			for i := range a.Data {
				a.Data[i] += 1e-6 * rnd.NormFloat64()
			}
			if _, _, err := part.Apply(dp, a, 1); err != nil {
				t.Fatal(err)
			}
			t.Logf("warm start after a 1e-6 perturbation: %d sweeps", part.Sweeps-sw)
			if c.r > 0 && part.Sweeps-sw > sw {
				t.Errorf("warm start took %d sweeps, the cold start %d", part.Sweeps-sw, sw)
			}
		})
	}
}

// BenchmarkSVT compares the full SVD with the partial method on n×n
// matrices with r singular values above τ (warm-started, as inside LRR).
func BenchmarkSVT(b *testing.B) {
	for _, c := range []struct{ n, r int }{{100, 5}, {100, 20}, {100, 40}, {300, 10}, {300, 60}, {1000, 10}, {1000, 40}, {1000, 150}} {
		rnd := rand.New(rand.NewPCG(uint64(c.n), uint64(c.r)))
		a := withSpectrum(rnd, c.n, spectrum(rnd, c.n, c.r, 0.5))
		dst := blas64.General{Rows: c.n, Cols: c.n, Stride: c.n, Data: make([]float64, c.n*c.n)}
		for _, m := range []SVTMethod{SVTFull, SVTPartial} {
			if m == SVTFull && c.n == 1000 && testmode.Quick() {
				continue
			}
			b.Run(fmt.Sprintf("n=%d/r=%d/%v", c.n, c.r, m), func(b *testing.B) {
				svt := NewSVT(c.n, m, nil, 1)
				if _, _, err := svt.Apply(dst, a, 1); err != nil { // warm up the start block
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					a.Data[i%len(a.Data)] += 1e-9 // a nearby matrix, as in an ADMM
					if _, _, err := svt.Apply(dst, a, 1); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(svt.Sweeps)/float64(b.N+1), "sweeps/op")
			})
		}
	}
}
