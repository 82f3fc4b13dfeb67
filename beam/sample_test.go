package manifoldbeam

import (
	"context"
	"errors"
	"fmt"
	"math"
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
		want, err := sampleFitters[fit.Method](ctx, fit, xs)
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

// TestSampleSketch: the sample is the same whatever the split of the rows
// into accumulators and the order of the merges, and equals the rows of
// least key; rows of differing widths and an empty input are errors.
func TestSampleSketch(t *testing.T) {
	x, _ := rollData(200, 3, 4)
	fn := &sampleCombineFn{Size: 25, Seed: 9}
	whole := fn.CreateAccumulator()
	for i := range 200 {
		whole = fn.AddInput(whole, x.RawRowView(i))
	}
	want, err := fn.ExtractOutput(whole).Matrix()
	if err != nil {
		t.Fatal(err)
	}
	for _, parts := range []int{2, 3, 7, 50} {
		accs := make([]Sample, parts)
		for c := range accs {
			accs[c] = fn.CreateAccumulator()
		}
		for i := range 200 {
			c := (i * 31) % parts
			accs[c] = fn.AddInput(accs[c], x.RawRowView(i))
		}
		m := accs[parts-1]
		for c := parts - 2; c >= 0; c-- { // merged in reverse
			m = fn.MergeAccumulators(accs[c], m)
		}
		got, err := fn.ExtractOutput(m).Matrix()
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, want) {
			t.Errorf("%d parts: a different sample", parts)
		}
	}
	// The sample is the 25 rows of least key.
	for i := range 200 {
		k := sampleKey(9, x.RawRowView(i))
		in := false
		for r := range 25 {
			if mat.Equal(mat.NewVecDense(3, want.RawRowView(r)), mat.NewVecDense(3, x.RawRowView(i))) {
				in = true
			}
		}
		if in != (k <= fn.ExtractOutput(whole).Keys[24]) {
			t.Fatalf("row %d (key %d): in the sample %v", i, k, in)
		}
	}
	bad := fn.AddInput(fn.AddInput(fn.CreateAccumulator(), []float64{1, 2}), []float64{1, 2, 3})
	if _, err := bad.Matrix(); !errors.Is(err, ErrFit) {
		t.Errorf("rows of widths 2 and 3: %v", err)
	}
	if _, err := fn.CreateAccumulator().Matrix(); !errors.Is(err, engine.ErrTooFewSamples) {
		t.Errorf("no rows: %v", err)
	}
	if err := CheckSampleFit(SampleFit{Method: "lda"}); !errors.Is(err, ErrFit) {
		t.Errorf("lda on a sample: %v", err)
	}
}
