//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// TestFitSample fits Isomap and Landmark Isomap on a 300-row sample of 900
// rows in uneven shards (one empty), with bad rows mixed in, and checks
// the model files against an independent in-process run: the 300 rows of
// least key (sampleKey over all good rows, sorted directly) fitted by the
// engine give the same embedding and the same Transform of all 900 rows.
func TestFitSample(t *testing.T) {
	ctx := context.Background()
	x, _ := rollData(900, 4, 21)
	var rows []Row
	for i := range 900 {
		rows = append(rows, Row{ID: fmt.Sprint("r", i%450), X: x.RawRowView(i)}) // duplicate IDs
	}
	bad := []Row{{ID: "nan", X: []float64{1, math.NaN(), 1, 1}}, {ID: "text", Err: "unparsable"}}
	shards := [][]Row{rows[:5], {}, append(append([]Row{}, rows[5:600]...), bad...), rows[600:]}

	// The reference sample: every good row's key, the 300 least.
	const size = 300
	ref := Sample{Size: size, D: 4}
	for i := range 900 {
		ref.Keys = append(ref.Keys, sampleKey(7, x.RawRowView(i)))
		ref.Flat = append(ref.Flat, x.RawRowView(i)...)
	}
	xs, err := ref.Matrix()
	if err != nil {
		t.Fatal(err)
	}

	for _, fit := range []SampleFit{
		{Method: "isomap", K: 8, Size: size, Seed: 7},
		{Method: "landmark-isomap", K: 8, Landmarks: 40, Size: size, Seed: 7},
	} {
		got := runFit(t, shards, 2, func(s beam.Scope, rows beam.PCollection, path string) beam.PCollection {
			return FitSample(s, rows, fit, path)
		})
		want, err := fitOnSample(ctx, fit, xs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(got.Embedding().RawMatrix().Data, want.Embedding().RawMatrix().Data); d != 0 {
			t.Errorf("%s: embedding differs from the in-process fit of the sample by %.3g", fit.Method, d)
		}
		yg, err := got.Transform(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		yw, _ := want.Transform(ctx, x)
		if d := relDiff(yg.RawMatrix().Data, yw.RawMatrix().Data); d > 1e-12 {
			t.Errorf("%s: Transform differs by %.3g", fit.Method, d)
		}
	}
}

// TestFitSampleSupervised fits LDA on a stratified sample of 80 of 693
// labelled rows (four classes of 500, 150, 40 and 3 rows: the strata are
// the classes) and supervised LPP on a uniform sample of 150, over uneven
// shards (one empty) with a NaN row, an unparsable row and a row whose
// label is not an integer mixed in (the three dead letters), and compares
// each model file with the engine's own fit (engine.LDA, engine.LPP with
// Labels) of the sample drawn independently (referenceSample: the keys
// sorted directly, Allocate's counts per class): the Transform of all 693
// rows equal to 1e-12 (LDA: principal angles ≤ 1e-8°), every class in the
// LDA sample, the rare one included (TestLabeledSketch: the labelled
// sketch alone).
func TestFitSampleSupervised(t *testing.T) {
	ctx := context.Background()
	x, y := labeledData()
	n, _ := x.Dims()
	var rows []Row
	for i := range n {
		rows = append(rows, Row{ID: fmt.Sprint("r", i), X: x.RawRowView(i), Label: strconv.Itoa(y[i])})
	}
	bad := []Row{{ID: "nan", X: []float64{1, math.NaN(), 1, 1, 1}, Label: "10"}, {ID: "text", Err: "unparsable"},
		{ID: "cat", X: []float64{1, 2, 3, 4, 5}, Label: "cat"}}
	shards := [][]Row{rows[:7], {}, append(append([]Row{}, rows[7:400]...), bad...), rows[400:]}

	for _, tc := range []struct {
		fit  SampleFit
		want func(xs *mat.Dense, ys []int) (engine.Model, error)
	}{
		{SampleFit{Method: "lda", Size: 80, Seed: 5, Stratify: true, Supervised: true}, func(xs *mat.Dense, ys []int) (engine.Model, error) {
			return asModel(engine.LDA{Labels: ys}.Fit(ctx, xs))
		}},
		{SampleFit{Method: "lpp", K: 6, Size: 150, Seed: 5, Supervised: true}, func(xs *mat.Dense, ys []int) (engine.Model, error) {
			return asModel(engine.LPP{K: 6, Labels: ys, Seed: 5}.Fit(ctx, xs))
		}},
	} {
		got := runFit(t, shards, 3, func(s beam.Scope, rows beam.PCollection, path string) beam.PCollection {
			return FitSample(s, rows, tc.fit, path)
		})
		xs, ys := referenceSample(t, x, y, tc.fit)
		want, err := tc.want(xs, ys)
		if err != nil {
			t.Fatal(err)
		}
		yg, err := got.Transform(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		yw, _ := want.Transform(ctx, x)
		d := relDiff(yg.RawMatrix().Data, yw.RawMatrix().Data)
		if d > 1e-12 {
			t.Errorf("%s: Transform differs from the engine's fit of the same sample by %.3g", tc.fit.Method, d)
		}
		t.Logf("%s on a sample of %d rows: Transform of %d rows differs from the in-process fit of the same sample by %.3g (relative)", tc.fit.Method, len(ys), n, d)
		if tc.fit.Method == "lda" {
			if c := got.(*engine.LDAModel).Classes(); !slices.Equal(c, []int{10, 20, 30, 40}) {
				t.Errorf("classes in the sample %v, want all four", c)
			}
			checkLDA(t, got, xs, ys)
		}
	}

}
