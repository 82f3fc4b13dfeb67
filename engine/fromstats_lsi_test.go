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

// TestLSIFromRange checks the model built from a range basis Q and the
// projected Gram matrix QᵀXᵀXQ (formed by gonum) against LSI.Fit on the
// same rows, dense (tall and wide) and sparse: with Q = I (the whole term
// space), with Q the ℓ = dim + 3 leading right singular vectors of X
// (gonum's SVD) and with that Q rotated within its span (the Ritz step
// does not depend on the basis of the subspace) — components to 1e-9,
// singular values to 1e-10, Transform to 1e-9, the Save/Load round trip
// and one-row embedding — and its errors.
func TestLSIFromRange(t *testing.T) {
	ctx := context.Background()
	wide, _ := relData(12, 30, 4)
	tall, _ := relData(200, 7, 3)
	sp := mat.NewDense(40, 60, nil)
	rng := rand.New(rand.NewPCG(2, 9))
	for i := range 40 {
		for j := range 60 {
			if rng.IntN(10) == 0 {
				sp.Set(i, j, float64(1+rng.IntN(5)))
			}
		}
	}
	// randomOrthogonal returns an l×l orthogonal matrix (QR of a Gaussian).
	randomOrthogonal := func(l int) *mat.Dense {
		g := mat.NewDense(l, l, nil)
		for i := range l {
			for j := range l {
				g.Set(i, j, rng.NormFloat64())
			}
		}
		var qr mat.QR
		qr.Factorize(g)
		var q mat.Dense
		qr.QTo(&q)
		return &q
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
		n, d := tc.x.Dims()
		fit, err := LSI{Dim: tc.dim, Seed: 1}.Fit(ctx, tc.in)
		if err != nil {
			t.Fatal(err)
		}
		var svd mat.SVD
		if !svd.Factorize(tc.x, mat.SVDThin) {
			t.Fatal("svd failed")
		}
		var v mat.Dense
		svd.VTo(&v)
		l := min(tc.dim+3, d)
		top := mat.DenseCopyOf(v.Slice(0, d, 0, l))
		var rotated mat.Dense
		rotated.Mul(top, randomOrthogonal(l))
		bases := map[string]*mat.Dense{"identity": identityDense(d), "leading singular vectors": top, "rotated": &rotated}
		for bname, q := range bases {
			_, l := q.Dims()
			var xq mat.Dense
			xq.Mul(tc.x, q)
			var c mat.SymDense
			c.SymOuterK(1, xq.T())
			m, err := LSIFromRange(ctx, q, &c, n, tc.dim)
			if err != nil {
				t.Fatalf("%s, %s: %v", tc.name, bname, err)
			}
			loaded := reloaded(t, m).(*LSIModel)
			if !mat.EqualApprox(loaded.Components(), fit.Components(), 1e-9) {
				t.Errorf("%s, %s: components differ from LSI.Fit's: max |Δ| %g", tc.name, bname, fromStatsMaxDiff(loaded.Components(), fit.Components()))
			}
			for j, v := range fit.SingularValues() {
				if s := loaded.SingularValues()[j]; math.Abs(s-v) > 1e-10*v {
					t.Errorf("%s, %s: singular value %d: %.17g, want %.17g", tc.name, bname, j, s, v)
				}
			}
			yw, _ := fit.Transform(ctx, tc.in)
			yg, err := loaded.Transform(ctx, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(yw, yg, 1e-9*mat.Norm(yw, math.Inf(1))) {
				t.Errorf("%s, %s: Transform differs from LSI.Fit's: max |Δ| %g", tc.name, bname, fromStatsMaxDiff(yw, yg))
			}
			if e := loaded.Embedding(); e.RawMatrix().Rows != 1 || e.RawMatrix().Cols != tc.dim || mat.Norm(e, 1) != 0 {
				t.Errorf("%s, %s: embedding %v, want 1×%d zeros", tc.name, bname, mat.Formatted(e), tc.dim)
			}
			if r := loaded.Report(); r.Method != "lsi" || r.N != n || r.Dim != tc.dim || m.Report().Params["basis"] != l {
				t.Errorf("%s, %s: report %+v", tc.name, bname, r)
			}
		}
	}

	q := identityDense(7)
	var g mat.SymDense
	g.SymOuterK(1, tall.T())
	if _, err := LSIFromRange(ctx, q, &g, 0, 2); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("n = 0: %v, want ErrTooFewSamples", err)
	}
	if _, err := LSIFromRange(ctx, q, &g, 200, 8); !errors.Is(err, ErrDimension) {
		t.Errorf("dim > ℓ: %v, want ErrDimension", err)
	}
	if _, err := LSIFromRange(ctx, nil, &g, 200, 2); !errors.Is(err, ErrEmpty) {
		t.Errorf("no basis: %v, want ErrEmpty", err)
	}
	if _, err := LSIFromRange(ctx, identityDense(8), &g, 200, 2); !errors.Is(err, ErrShape) {
		t.Errorf("8×8 basis, 7×7 projected gram: %v, want ErrShape", err)
	}
	if _, err := LSIFromRange(ctx, mat.NewDense(3, 7, nil), &g, 200, 2); !errors.Is(err, ErrShape) {
		t.Errorf("basis wider than tall: %v, want ErrShape", err)
	}
	twice := identityDense(7)
	twice.Scale(2, twice)
	if _, err := LSIFromRange(ctx, twice, &g, 200, 2); !errors.Is(err, ErrBadSetting) {
		t.Errorf("basis 2·I: %v, want ErrBadSetting", err)
	}
	nan := identityDense(7)
	nan.Set(3, 3, math.NaN())
	if _, err := LSIFromRange(ctx, nan, &g, 200, 2); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN in the basis: %v, want ErrNotFinite", err)
	}
	bad := mat.NewSymDense(7, nil)
	bad.CopySym(&g)
	bad.SetSym(1, 2, math.Inf(1))
	if _, err := LSIFromRange(ctx, q, bad, 200, 2); !errors.Is(err, ErrNotFinite) {
		t.Errorf("Inf in the projected gram: %v, want ErrNotFinite", err)
	}
}

// identityDense returns the n×n identity.
func identityDense(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}
