//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// TestFitPCA fits PCA over uneven shards (one empty) of data far from the
// origin (mean 1e4, where naive sums of squares lose digits), with a NaN
// and an unparsable row mixed in, and compares the model file with
// engine.PCA's in-process fit of the good rows: principal angles ≤ 1e-8°,
// variances and Transform to 1e-9.
func TestFitPCA(t *testing.T) {
	ctx := context.Background()
	const n, d, dim = 1500, 7, 3
	rng := rand.New(rand.NewPCG(5, 5))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, 1e4+float64(d-j)*rng.NormFloat64())
		}
	}
	var rows []Row
	for i := range n {
		rows = append(rows, Row{ID: "r", X: x.RawRowView(i)})
	}
	bad := []Row{{ID: "nan", X: []float64{1, math.NaN(), 1, 1, 1, 1, 1}}, {ID: "text", Err: "unparsable"}}
	shards := [][]Row{rows[:1], {}, append(append([]Row{}, rows[1:700]...), bad...), rows[700:]}
	loaded := runFit(t, shards, 2, func(s beam.Scope, rows beam.PCollection, path string) beam.PCollection {
		return FitPCA(s, rows, dim, path)
	})
	got := loaded.(*engine.PCAModel)
	want, err := engine.PCA{Dim: dim, Solver: engine.PCACovariance}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if a := maxPrincipalAngle(got.Components(), want.Components()); a > 1e-8 {
		t.Errorf("largest principal angle %.3g° > 1e-8°", a)
	}
	for j, v := range want.ExplainedVariance() {
		if g := got.ExplainedVariance()[j]; math.Abs(g-v) > 1e-9*v {
			t.Errorf("variance %d: %.17g, want %.17g", j, g, v)
		}
	}
	yw, _ := want.Transform(ctx, x)
	yg, err := got.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(yw, yg, 1e-9*mat.Norm(yw, math.Inf(1))) {
		t.Error("Transform of the distributed model differs from the in-process fit's")
	}
}
