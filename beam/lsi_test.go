//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/sparse"
)

// TestFitLSI fits LSI over uneven shards (one empty) of sparse documents
// (rows of 40 terms, mostly zeros: the products of the non-zero entries
// only) and of dense rows (the rank-k update), with a NaN and an
// unparsable row mixed in, and compares the model file with engine.LSI's
// in-process fit of the good rows (sparse.CSR input for the documents):
// principal angles ≤ 1e-8°, singular values to 1e-10, Transform to 1e-9
// after the columns' signs are aligned, the one-row embedding.
func TestFitLSI(t *testing.T) {
	ctx := context.Background()
	const n, d, dim = 1100, 40, 4
	docs, dense := lsiDocs(n, d, 11)
	for _, tc := range []struct {
		name string
		x    *mat.Dense
		in   mat.Matrix
	}{
		{"sparse", docs, sparse.FromDense(docs)},
		{"dense", dense, dense},
	} {
		var rows []Row
		for i := range n {
			rows = append(rows, Row{ID: "r", X: tc.x.RawRowView(i)})
		}
		nanRow := make([]float64, d)
		nanRow[3] = math.NaN()
		bad := []Row{{ID: "nan", X: nanRow}, {ID: "text", Err: "unparsable"}}
		shards := [][]Row{rows[:1], {}, append(append([]Row{}, rows[1:600]...), bad...), rows[600:]}
		loaded := runFit(t, shards, 2, func(s beam.Scope, rows beam.PCollection, path string) beam.PCollection {
			return FitLSI(s, rows, dim, path)
		})
		got := loaded.(*engine.LSIModel)
		want, err := engine.LSI{Dim: dim, Seed: 1}.Fit(ctx, tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if a := maxPrincipalAngle(got.Components(), want.Components()); a > 1e-8 {
			t.Errorf("%s: largest principal angle %.3g° > 1e-8°", tc.name, a)
		}
		for j, v := range want.SingularValues() {
			if g := got.SingularValues()[j]; math.Abs(g-v) > 1e-10*v {
				t.Errorf("%s: singular value %d: %.17g, want %.17g", tc.name, j, g, v)
			}
		}
		yw, _ := want.Transform(ctx, tc.in)
		yg, err := got.Transform(ctx, tc.in)
		if err != nil {
			t.Fatal(err)
		}
		alignSigns(yg, yw)
		if !mat.EqualApprox(yw, yg, 1e-9*mat.Norm(yw, math.Inf(1))) {
			t.Errorf("%s: Transform of the distributed model differs from the in-process fit's", tc.name)
		}
		if e := got.Embedding(); e.RawMatrix().Rows != 1 || mat.Norm(e, 1) != 0 || got.Report().N != n {
			t.Errorf("%s: embedding %v of a fit on %d rows", tc.name, mat.Formatted(e), got.Report().N)
		}
	}
}

// TestFitLSITooWide: rows wider than MaxLSITerms fail the Gram pipeline
// with an error that names the limit and why (TestLSIStatsTooWide: before
// any D×D matrix is allocated).
func TestFitLSITooWide(t *testing.T) {
	wide := make([]float64, MaxLSITerms+1)
	wide[0] = 1
	p, s := beam.NewPipelineWithRoot()
	rows := beam.CreateList(s, []Row{{ID: "a", X: wide}, {ID: "b", X: wide}})
	FitLSI(s, rows, 2, t.TempDir()+"/m.bin")
	err := ptest.Run(p)
	if err == nil || !strings.Contains(err.Error(), "MaxLSITerms = 4096") || !strings.Contains(err.Error(), "Gram matrix") {
		t.Errorf("pipeline over %d-wide rows: %v", len(wide), err)
	}
}
