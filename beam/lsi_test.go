package manifoldbeam

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/sparse"
)

// lsiDocs returns n sparse "documents" over d terms (about one entry in
// eight non-zero, counts 1–6, a few terms more frequent than others) and
// n dense rows of d features (positive, uneven scales).
func lsiDocs(n, d int, seed uint64) (docs, dense *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 3))
	docs = mat.NewDense(n, d, nil)
	dense = mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			if rng.IntN(8*(1+j%3)) < 2 {
				docs.Set(i, j, float64(1+rng.IntN(6)))
			}
			dense.Set(i, j, 5+float64(d-j)*rng.NormFloat64())
		}
	}
	return docs, dense
}

// alignSigns flips the columns of y to the signs of want's (the largest-
// magnitude entry of each column of want decides).
func alignSigns(y, want *mat.Dense) {
	r, c := want.Dims()
	for j := range c {
		k := 0
		for i := range r {
			if math.Abs(want.At(i, j)) > math.Abs(want.At(k, j)) {
				k = i
			}
		}
		if y.At(k, j)*want.At(k, j) < 0 {
			for i := range r {
				y.Set(i, j, -y.At(i, j))
			}
		}
	}
}

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

// TestLSIStatsMerge: the merged Gram matrix equals XᵀX computed directly
// (gonum) for every split of rows, sparse and dense mixed, between two
// accumulators merged either way round, with blocks folded mid-way (600
// rows, blocks of statsBlock); rows of differing widths are an error.
func TestLSIStatsMerge(t *testing.T) {
	const n, d = 600, 12
	docs, dense := lsiDocs(n, d, 5)
	x := mat.NewDense(n, d, nil)
	for i := range n {
		src := docs
		if i%3 == 0 {
			src = dense
		}
		x.SetRow(i, src.RawRowView(i))
	}
	var ref mat.SymDense
	ref.SymOuterK(1, x.T())
	var fn lsiCombineFn
	for split := 0; split <= n; split += 130 {
		for _, swap := range []bool{false, true} {
			// Accumulators are consumed by a merge (as in Beam): fresh ones
			// for each order.
			a, b := fn.CreateAccumulator(), fn.CreateAccumulator()
			for i := range n {
				r := append([]float64(nil), x.RawRowView(i)...)
				if i < split {
					a = fn.AddInput(a, r)
				} else {
					b = fn.AddInput(b, r)
				}
			}
			if swap {
				a, b = b, a
			}
			rows, g, err := fn.ExtractOutput(fn.MergeAccumulators(a, b)).GramMatrix()
			if err != nil {
				t.Fatal(err)
			}
			if rows != n || !mat.EqualApprox(g, &ref, 1e-12*mat.Norm(&ref, math.Inf(1))) {
				var diff mat.Dense
				diff.Sub(g, &ref)
				t.Errorf("split %d (swapped %v): %d rows, Gram matrix differs from XᵀX by %g", split, swap, rows, mat.Norm(&diff, math.Inf(1)))
			}
		}
	}
	a := fn.AddInput(fn.AddInput(fn.CreateAccumulator(), []float64{1, 2}), []float64{1, 2, 3})
	if _, _, err := a.GramMatrix(); !errors.Is(err, ErrFit) {
		t.Errorf("rows of widths 2 and 3: %v", err)
	}
	if _, _, err := fn.CreateAccumulator().GramMatrix(); !errors.Is(err, engine.ErrTooFewSamples) {
		t.Errorf("no rows: %v", err)
	}
}

// TestFitLSITooWide: rows wider than MaxLSITerms fail the pipeline with
// an error that names the limit and why, before any D×D matrix is
// allocated.
func TestFitLSITooWide(t *testing.T) {
	wide := make([]float64, MaxLSITerms+1)
	wide[0] = 1
	var fn lsiCombineFn
	a := fn.AddInput(fn.CreateAccumulator(), wide)
	if a.Gram != nil || a.Block != nil || !strings.Contains(a.Err, "MaxLSITerms = 4096") {
		t.Fatalf("accumulator of a %d-wide row: err %q", len(wide), a.Err)
	}
	p, s := beam.NewPipelineWithRoot()
	rows := beam.CreateList(s, []Row{{ID: "a", X: wide}, {ID: "b", X: wide}})
	FitLSI(s, rows, 2, t.TempDir()+"/m.bin")
	err := ptest.Run(p)
	if err == nil || !strings.Contains(err.Error(), "MaxLSITerms = 4096") || !strings.Contains(err.Error(), "Gram matrix") {
		t.Errorf("pipeline over %d-wide rows: %v", len(wide), err)
	}
}
