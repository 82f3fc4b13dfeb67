package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// TestLSIFromGram checks the model built from XᵀX (formed by gonum,
// independently of the engine) against LSI.Fit on the same rows —
// dense with N ≥ D (LSI.Fit's XᵀX side), dense and sparse with N < D (its
// X·Xᵀ side) — components, singular values and Transform, its Save/Load
// round trip and one-row embedding, and its errors.
func TestLSIFromGram(t *testing.T) {
	ctx := context.Background()
	wide, _ := relData(12, 30, 4)
	tall, _ := relData(200, 7, 3)
	sp := mat.NewDense(40, 60, nil) // documents × terms, about 10 % non-zero counts
	rng := rand.New(rand.NewPCG(2, 9))
	for i := range 40 {
		for j := range 60 {
			if rng.IntN(10) == 0 {
				sp.Set(i, j, float64(1+rng.IntN(5)))
			}
		}
	}
	for _, tc := range []struct {
		name string
		x    *mat.Dense
		in   mat.Matrix
		dim  int
	}{
		{"tall dense", tall, tall, 3},
		{"wide dense", wide, wide, 4},
		{"sparse", sp, sparse.FromDense(sp), 5},
	} {
		n, _ := tc.x.Dims()
		fit, err := LSI{Dim: tc.dim, Seed: 1}.Fit(ctx, tc.in)
		if err != nil {
			t.Fatal(err)
		}
		var g mat.SymDense
		g.SymOuterK(1, tc.x.T())
		m, err := LSIFromGram(ctx, &g, n, tc.dim)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		loaded := reloaded(t, m).(*LSIModel)
		if !mat.EqualApprox(loaded.Components(), fit.Components(), 1e-9) {
			t.Errorf("%s: components differ from LSI.Fit's: max |Δ| %g", tc.name, fromStatsMaxDiff(loaded.Components(), fit.Components()))
		}
		for j, v := range fit.SingularValues() {
			if s := loaded.SingularValues()[j]; math.Abs(s-v) > 1e-10*v {
				t.Errorf("%s: singular value %d: %.17g, want %.17g", tc.name, j, s, v)
			}
		}
		yw, _ := fit.Transform(ctx, tc.in)
		yg, err := loaded.Transform(ctx, tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(yw, yg, 1e-9*mat.Norm(yw, math.Inf(1))) {
			t.Errorf("%s: Transform differs from LSI.Fit's: max |Δ| %g", tc.name, fromStatsMaxDiff(yw, yg))
		}
		if e := loaded.Embedding(); e.RawMatrix().Rows != 1 || e.RawMatrix().Cols != tc.dim || mat.Norm(e, 1) != 0 {
			t.Errorf("%s: embedding %v, want 1×%d zeros", tc.name, mat.Formatted(e), tc.dim)
		}
		if r := loaded.Report(); r.Method != "lsi" || r.N != n || r.Dim != tc.dim {
			t.Errorf("%s: report %+v", tc.name, r)
		}
	}

	var g mat.SymDense
	g.SymOuterK(1, tall.T())
	if _, err := LSIFromGram(ctx, &g, 0, 2); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("n = 0: %v, want ErrTooFewSamples", err)
	}
	if _, err := LSIFromGram(ctx, &g, 200, 8); !errors.Is(err, ErrDimension) {
		t.Errorf("dim > D: %v, want ErrDimension", err)
	}
	if _, err := LSIFromGram(ctx, &g, 2, 3); !errors.Is(err, ErrDimension) {
		t.Errorf("dim > N: %v, want ErrDimension", err)
	}
	if _, err := LSIFromGram(ctx, nil, 200, 2); !errors.Is(err, ErrEmpty) {
		t.Errorf("no gram: %v, want ErrEmpty", err)
	}
	bad := mat.NewSymDense(7, nil)
	bad.CopySym(&g)
	bad.SetSym(1, 2, math.Inf(1))
	if _, err := LSIFromGram(ctx, bad, 200, 2); !errors.Is(err, ErrNotFinite) {
		t.Errorf("Inf in gram: %v, want ErrNotFinite", err)
	}
	rank1 := mat.NewSymDense(3, []float64{1, 2, 3, 2, 4, 6, 3, 6, 9})
	if _, err := LSIFromGram(ctx, rank1, 10, 2); !errors.Is(err, ErrDimension) {
		t.Errorf("rank-1 gram, dim 2: %v, want ErrDimension", err)
	}
}
