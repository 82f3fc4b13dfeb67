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
	for _, tc := range lsiStatsCases() {
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
		checkLSIFromStats(t, tc.name, m, fit, tc.in, n)
	}

	tall, _ := relData(200, 7, 3)
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
	rng := rand.New(rand.NewPCG(2, 9))
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
	for _, tc := range lsiStatsCases() {
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
			checkLSIFromStats(t, tc.name+", "+bname, m, fit, tc.in, n)
			if b := m.Report().Params["basis"]; b != l {
				t.Errorf("%s, %s: report's basis %v, want %d", tc.name, bname, b, l)
			}
		}
	}

	tall, _ := relData(200, 7, 3)
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

// lsiStatsCase is one data set of the LSI statistics tests: the rows x
// and their input to LSI.Fit (x, or x as a *sparse.CSR).
type lsiStatsCase struct {
	name string
	x    *mat.Dense
	in   mat.Matrix
	dim  int
}

// lsiStatsCases are dense rows with N ≥ D (LSI.Fit's XᵀX side), dense
// and sparse rows with N < D (its X·Xᵀ side).
func lsiStatsCases() []lsiStatsCase {
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
	return []lsiStatsCase{
		{"tall dense", tall, tall, 3},
		{"wide dense", wide, wide, 4},
		{"sparse", sp, sparse.FromDense(sp), 5},
	}
}

// checkLSIFromStats checks m, built from statistics of the n rows in,
// saved and loaded back, against fit (LSI.Fit of the same rows):
// components to 1e-9, singular values to 1e-10, Transform to 1e-9, a
// one-row zero embedding and the report.
func checkLSIFromStats(t *testing.T, name string, m, fit *LSIModel, in mat.Matrix, n int) {
	t.Helper()
	dim := fit.Dim()
	loaded := reloaded(t, m).(*LSIModel)
	if !mat.EqualApprox(loaded.Components(), fit.Components(), 1e-9) {
		t.Errorf("%s: components differ from LSI.Fit's: max |Δ| %g", name, fromStatsMaxDiff(loaded.Components(), fit.Components()))
	}
	for j, v := range fit.SingularValues() {
		if s := loaded.SingularValues()[j]; math.Abs(s-v) > 1e-10*v {
			t.Errorf("%s: singular value %d: %.17g, want %.17g", name, j, s, v)
		}
	}
	yw, yg := transformed(t, fit, in), transformed(t, loaded, in)
	if !mat.EqualApprox(yw, yg, 1e-9*mat.Norm(yw, math.Inf(1))) {
		t.Errorf("%s: Transform differs from LSI.Fit's: max |Δ| %g", name, fromStatsMaxDiff(yw, yg))
	}
	if e := loaded.Embedding(); e.RawMatrix().Rows != 1 || e.RawMatrix().Cols != dim || mat.Norm(e, 1) != 0 {
		t.Errorf("%s: embedding %v, want 1×%d zeros", name, mat.Formatted(e), dim)
	}
	if r := loaded.Report(); r.Method != "lsi" || r.N != n || r.Dim != dim {
		t.Errorf("%s: report %+v", name, r)
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
