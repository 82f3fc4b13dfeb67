package lanczos_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lanczos"
)

// K close to n: the basis fills the whole space.
func TestLargeK(t *testing.T) {
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
