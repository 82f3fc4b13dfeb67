//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"
)

// TestFitSampleStratified fits PCA on a stratified sample of 40 of the 400
// rows on prism, over two different shardings (uneven, one empty shard, a
// NaN and an unparsable row mixed in), and checks both model files against
// the engine's fit of the stratified sample drawn in-process: the same
// embedding (hence the same rows, in the same order) and 40 rows.
func TestFitSampleStratified(t *testing.T) {
	ctx := context.Background()
	strat, _ := stratData()
	var rows []Row
	for i, r := range strat {
		rows = append(rows, Row{ID: fmt.Sprint("r", i), X: r.X, Label: r.Stratum})
	}
	bad := []Row{{ID: "nan", X: []float64{0, math.NaN(), 1}, Label: "a"}, {ID: "text", Err: "unparsable", Label: "b"}}
	fn := &stratifiedCombineFn{Size: 40, Seed: 4}
	acc := fn.CreateAccumulator()
	for _, r := range strat {
		acc = fn.AddInput(acc, r)
	}
	ref, _, err := acc.Draw()
	if err != nil {
		t.Fatal(err)
	}
	xs, err := ref.Matrix()
	if err != nil {
		t.Fatal(err)
	}
	fit := SampleFit{Method: "pca", Size: 40, Seed: 4, Stratify: true}
	want, err := fitOnSample(ctx, fit, xs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, shards := range map[string][][]Row{
		"uneven":  {rows[:3], {}, append(append([]Row{}, rows[3:250]...), bad...), rows[250:]},
		"stripes": {append(append([]Row{}, bad...), rows[200:]...), rows[:7], rows[7:200]},
	} {
		got := runFit(t, shards, 2, func(s beam.Scope, rows beam.PCollection, path string) beam.PCollection {
			return FitSample(s, rows, fit, path)
		})
		if got.Report().N != 40 {
			t.Errorf("%s: fitted on %d rows, want 40", name, got.Report().N)
		}
		if !mat.Equal(got.Embedding(), want.Embedding()) {
			t.Errorf("%s: embedding differs from the in-process fit of the stratified sample", name)
		}
	}
}
