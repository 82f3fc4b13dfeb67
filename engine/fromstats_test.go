package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/manifoldlab/manifold/engine/internal/discriminant"
	"github.com/manifoldlab/manifold/sparse"
)

// TestPCAFromCovariance checks the model built from gonum's mean and
// covariance against PCA.Fit on the same data (components, variances,
// Transform), its Save/Load round trip, and its errors.
func TestPCAFromCovariance(t *testing.T) {
	ctx := context.Background()
	x, _ := relData(200, 6, 3)
	n, d := x.Dims()
	fit := mustFit(t, ctx, PCA{Dim: 3, Solver: PCACovariance}.Fit, x)
	mean := make([]float64, d)
	for j := range mean {
		mean[j] = stat.Mean(mat.Col(nil, j, x), nil)
	}
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, x, nil) // independent of the engine: gonum/stat, divided by n−1
	m, err := PCAFromCovariance(ctx, mean, &cov, n, 3)
	if err != nil {
		t.Fatal(err)
	}
	loaded := reloaded(t, m)
	yw, _ := fit.Transform(ctx, x)
	yg, err := loaded.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(yw, yg, 1e-9) {
		t.Errorf("Transform differs from PCA.Fit's: max |Δ| %g", fromStatsMaxDiff(yw, yg))
	}
	for j, v := range fit.ExplainedVariance() {
		if g := m.ExplainedVariance()[j]; math.Abs(g-v) > 1e-10*v {
			t.Errorf("variance %d: %g, want %g", j, g, v)
		}
	}
	if e := loaded.Embedding(); e.RawMatrix().Rows != 1 || e.RawMatrix().Cols != 3 || mat.Norm(e, 1) != 0 {
		t.Errorf("embedding %v, want the mean's coordinates (1×3 zeros)", mat.Formatted(e))
	}
	if _, err := PCAFromCovariance(ctx, mean[:3], &cov, n, 2); !errors.Is(err, ErrShape) {
		t.Errorf("short mean: %v, want ErrShape", err)
	}
	if _, err := PCAFromCovariance(ctx, mean, &cov, 1, 2); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("n = 1: %v, want ErrTooFewSamples", err)
	}
	bad := append([]float64(nil), mean...)
	bad[2] = math.NaN()
	if _, err := PCAFromCovariance(ctx, bad, &cov, n, 2); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN mean: %v, want ErrNotFinite", err)
	}
	if _, err := PCAFromCovariance(ctx, mean, &cov, n, d+1); !errors.Is(err, ErrDimension) {
		t.Errorf("dim > D: %v, want ErrDimension", err)
	}
}

func fromStatsMaxDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1))
}

// ldaTestStats computes the statistics of x by classes directly: the mean,
// the total scatter by a two-pass sum, the class counts and means.
func ldaTestStats(x *mat.Dense, labels []int) LDAStats {
	n, d := x.Dims()
	y, classes, size := discriminant.Classes(labels)
	st := LDAStats{Mean: make([]float64, d), Classes: classes, Counts: size, ClassMeans: make([][]float64, len(classes))}
	for k := range st.ClassMeans {
		st.ClassMeans[k] = make([]float64, d)
	}
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			st.Mean[j] += v / float64(n)
			st.ClassMeans[y[i]][j] += v / float64(size[y[i]])
		}
	}
	s := mat.NewSymDense(d, nil)
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			sum := 0.0
			for i := 0; i < n; i++ {
				sum += (x.At(i, a) - st.Mean[a]) * (x.At(i, b) - st.Mean[b])
			}
			s.SetSym(a, b, sum)
		}
	}
	st.Scatter = s
	return st
}

// TestLDAFromStats checks the model built from statistics against
// LDA{Solver: LDASVD}.Fit on the same data — digits-like rows with two
// constant pixels and a pixel that is the sum of two others (a singular
// total scatter), and four classes — projections, eigenvalues, Transform
// and Predict, its Save/Load round trip, and its errors.
func TestLDAFromStats(t *testing.T) {
	ctx := context.Background()
	x, _ := relData(300, 9, 5)
	labels := make([]int, 300)
	for i := range labels {
		labels[i] = 10 * (i % 4) // labels 0, 10, 20, 30
		x.Set(i, 0, x.At(i, 0)+float64(i%4)*3)
		x.Set(i, 5, 2.5) // constant pixels
		x.Set(i, 6, -1)
		x.Set(i, 7, x.At(i, 1)+x.At(i, 2)) // dependent pixel
	}
	fit := mustFit(t, ctx, LDA{Labels: labels, Solver: LDASVD}.Fit, x)
	st := ldaTestStats(x, labels)
	m, err := LDAFromStats(ctx, st, 0)
	if err != nil {
		t.Fatal(err)
	}
	loaded := reloaded(t, m).(*LDAModel)
	if !mat.EqualApprox(loaded.Projection(), fit.Projection(), 1e-8*mat.Norm(fit.Projection(), math.Inf(1))) {
		t.Errorf("projection differs from LDA.Fit's:\n%v\n%v", mat.Formatted(loaded.Projection()), mat.Formatted(fit.Projection()))
	}
	for j, v := range fit.Eigenvalues() {
		if g := loaded.Eigenvalues()[j]; math.Abs(g-v) > 1e-9*v {
			t.Errorf("eigenvalue %d: %g, want %g", j, g, v)
		}
	}
	yw, _ := fit.Transform(ctx, x)
	yg, err := loaded.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if d := fromStatsMaxDiff(yw, yg); d > 1e-8*mat.Norm(yw, math.Inf(1)) {
		t.Errorf("Transform differs from LDA.Fit's by %g", d)
	}
	pw, _ := fit.Predict(ctx, x)
	pg, err := loaded.Predict(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pw {
		if pw[i] != pg[i] {
			t.Fatalf("prediction %d: %d, LDA.Fit's %d", i, pg[i], pw[i])
		}
	}
	bad := st
	bad.Counts = []int{75, 75, 75}
	if _, err := LDAFromStats(ctx, bad, 0); !errors.Is(err, ErrShape) {
		t.Errorf("three counts for four classes: %v", err)
	}
	bad = st
	bad.Classes = []int{0, 20, 10, 30}
	if _, err := LDAFromStats(ctx, bad, 0); !errors.Is(err, ErrLabels) {
		t.Errorf("labels not ascending: %v", err)
	}
	bad = st
	bad.Mean = append([]float64{math.NaN()}, st.Mean[1:]...)
	if _, err := LDAFromStats(ctx, bad, 0); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN mean: %v", err)
	}
	if _, err := LDAFromStats(ctx, st, 4); !errors.Is(err, ErrDimension) {
		t.Errorf("dim 4 of 4 classes: %v", err)
	}
}

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
