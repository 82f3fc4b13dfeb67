package engine

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// TestPCAFromCovariance checks the model built from gonum's mean and
// covariance against PCA.Fit on the same data (components, variances,
// Transform), its Save/Load round trip, and its errors.
func TestPCAFromCovariance(t *testing.T) {
	ctx := context.Background()
	x, _ := relData(200, 6, 3)
	n, d := x.Dims()
	fit, err := PCA{Dim: 3, Solver: PCACovariance}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
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
	y, classes, size := classIndex(labels)
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
	fit, err := LDA{Labels: labels, Solver: LDASVD}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
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
