package engine

import (
	"bytes"
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
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
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
