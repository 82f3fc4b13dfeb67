package lanczos_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lanczos"
)

// K close to n: the basis fills the whole space.
func TestLargeK(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(23, 24))
	for _, c := range []struct{ n, k, b int }{{80, 70, 1}, {80, 79, 1}, {90, 45, 4}, {70, 64, 3}} {
		lam := make([]float64, c.n)
		for i := range lam {
			lam[i] = rnd.NormFloat64()
		}
		a := withSpectrum(rnd, lam)
		w, z := denseEig(t, a)
		for _, which := range []lanczos.Which{lanczos.Largest, lanczos.Smallest} {
			res, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: a}, lanczos.Settings{K: c.k, Which: which, BlockSize: c.b})
			if err != nil {
				t.Fatalf("%+v: %v", c, err)
			}
			checkAgainstDense(t, fmt.Sprintf("n=%d/K=%d/b=%d/%v", c.n, c.k, c.b, which), a, w, z, which, res)
		}
	}
}

// Random orders, K, block and basis sizes, spectra and ends against the
// dense solver.
func TestRandomShapes(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(31, 32))
	trials := 40 // 300 passed when this test was written
	maxN := 215
	if raceEnabled {
		trials, maxN = 4, 120
	}
	for trial := 0; trial < trials; trial++ {
		n := 65 + rnd.IntN(maxN-65)
		k := 1 + rnd.IntN(n-1)
		b := 1 + rnd.IntN(5)
		fams := spectra(rnd, n)
		fam := []string{"definite", "indefinite", "clustered", "repeated"}[rnd.IntN(4)]
		if fam == "repeated" && b < 3 {
			b = 3 // multiplicity 3 needs a block of 3
		}
		a := withSpectrum(rnd, fams[fam])
		w, z := denseEig(t, a)
		which := lanczos.Which(rnd.IntN(2))
		m := 0
		if rnd.IntN(2) == 0 {
			m = 2*k + b + rnd.IntN(20)
		}
		name := fmt.Sprintf("trial %d n=%d k=%d b=%d m=%d %s %v", trial, n, k, b, m, fam, which)
		res, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: a}, lanczos.Settings{K: k, BlockSize: b, BasisSize: m, Which: which, Seed: uint64(trial)})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}

		checkAgainstDense(t, name, a, w, z, which, res)
	}
}

// An operator of norm 2^±600 (≈ 1e±180): its Ritz residuals, whose squares
// overflow or underflow, are estimated without them — before, the
// eigenpairs never converged at 2^600 and "converged" at once, wrong, at
// 2^−600. The eigenpairs are those of the unscaled matrix, scaled.
func TestOperatorScale(t *testing.T) {
	rnd := rand.New(rand.NewPCG(41, 42))
	n := 120
	lam := make([]float64, n)
	for i := range lam {
		lam[i] = float64(i+1) + 0.1*rnd.Float64()
	}
	a := withSpectrum(rnd, lam)
	w, _ := denseEig(t, a)
	for _, e := range []int{600, -600} {
		as := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		for i, v := range a.Data {
			as.Data[i] = math.Ldexp(v, e)
		}
		for _, which := range []lanczos.Which{lanczos.Largest, lanczos.Smallest} {
			res, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: as}, lanczos.Settings{K: 4, Which: which, Seed: 1})
			if err != nil {
				t.Fatalf("2^%d %v: %v", e, which, err)
			}
			for i, v := range res.Values {
				want := w[i]
				if which == lanczos.Largest {
					want = w[n-1-i]
				}
				if got := math.Ldexp(v, -e); math.Abs(got-want) > 1e-9*float64(n) {
					t.Errorf("2^%d %v: eigenvalue %d is %.12g·2^%d, want %.12g", e, which, i, got, e, want)
				}
			}
		}
	}
}
