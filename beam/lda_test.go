//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// TestFitLDA fits LDA over uneven shards (one empty) of four classes far
// from the origin (mean 1e4), with a constant feature (a singular total
// scatter) and a NaN row, an unparsable row and a row without an integer
// label mixed in, and compares the model file with engine.LDA's in-process
// fit (the SVD solver) of the good rows: principal angles ≤ 1e-8°,
// eigenvalues to 1e-9, the same predictions.
func TestFitLDA(t *testing.T) {
	const n, d = 1200, 6
	rng := rand.New(rand.NewPCG(8, 8))
	x := mat.NewDense(n, d, nil)
	labels := make([]int, n)
	var rows []Row
	for i := range n {
		labels[i] = 7 * (i % 4)
		for j := range d - 1 {
			x.Set(i, j, 1e4+float64(j+1)*rng.NormFloat64()+float64((i%4)*(j%3)))
		}
		x.Set(i, d-1, 3) // constant
		rows = append(rows, Row{ID: "r", X: x.RawRowView(i), Label: strconv.Itoa(labels[i])})
	}
	bad := []Row{{ID: "nan", X: []float64{1, math.NaN(), 1, 1, 1, 1}, Label: "0"}, {ID: "text", Err: "unparsable"},
		{ID: "nolabel", X: []float64{1, 2, 3, 4, 5, 6}, Label: "cat"}}
	shards := [][]Row{rows[:3], {}, append(append([]Row{}, rows[3:500]...), bad...), rows[500:]}
	loaded := runFit(t, shards, 3, func(s beam.Scope, rows beam.PCollection, path string) beam.PCollection {
		return FitLDA(s, rows, 0, path)
	})
	checkLDA(t, loaded, x, labels)
}

// checkLDA compares the LDA model loaded with engine.LDA's in-process fit
// (the SVD solver) of x and labels: principal angles ≤ 1e-8°, eigenvalues
// to 1e-9, the same predictions of x.
func checkLDA(t *testing.T, loaded engine.Model, x *mat.Dense, labels []int) {
	t.Helper()
	ctx := context.Background()
	_, d := x.Dims()
	got := loaded.(*engine.LDAModel)
	want, err := engine.LDA{Labels: labels, Solver: engine.LDASVD}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	var qg, qw mat.QR
	qg.Factorize(got.Projection())
	qw.Factorize(want.Projection())
	var og, ow mat.Dense
	qg.QTo(&og)
	qw.QTo(&ow)
	k := want.Projection().RawMatrix().Cols
	a := maxPrincipalAngle(og.Slice(0, d, 0, k), ow.Slice(0, d, 0, k))
	if a > 1e-8 {
		t.Errorf("largest principal angle %.3g° > 1e-8°", a)
	}
	t.Logf("largest principal angle to the in-process LDA: %.3g°", a)
	for j, v := range want.Eigenvalues() {
		if g := got.Eigenvalues()[j]; math.Abs(g-v) > 1e-9*v {
			t.Errorf("eigenvalue %d: %.17g, want %.17g", j, g, v)
		}
	}
	pw, _ := want.Predict(ctx, x)
	pg, err := got.Predict(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pw {
		if pw[i] != pg[i] {
			t.Fatalf("prediction %d: %d, in-process %d", i, pg[i], pw[i])
		}
	}
}
