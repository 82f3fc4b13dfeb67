package manifoldbeam

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
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
		want, err := sampleFitters[fit.Method](ctx, fit, xs, nil)
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
		t.Errorf("lda on a sample without labels: %v", err)
	}
	if err := CheckSampleFit(SampleFit{Method: "isomap", Supervised: true}); !errors.Is(err, ErrFit) {
		t.Errorf("isomap with labels: %v", err)
	}
	if err := CheckSampleFit(SampleFit{Method: "lda", Supervised: true}); err != nil {
		t.Errorf("lda with labels: %v", err)
	}
}

// labeledData returns rows of 5 features in four classes of 500, 150, 40
// and 3 rows (labels 10, 20, 30, 40; the class shifts the mean), shuffled.
func labeledData() (*mat.Dense, []int) {
	sizes := []int{500, 150, 40, 3}
	rng := rand.New(rand.NewPCG(12, 12))
	var flat []float64
	var labels []int
	for k, sz := range sizes {
		for range sz {
			for j := range 5 {
				flat = append(flat, float64((k+1)*(j%3))+float64(j+1)*rng.NormFloat64())
			}
			labels = append(labels, 10*(k+1))
		}
	}
	n := len(labels)
	perm := rng.Perm(n)
	x := mat.NewDense(n, 5, nil)
	y := make([]int, n)
	for i, p := range perm {
		x.SetRow(i, flat[p*5:(p+1)*5])
		y[i] = labels[p]
	}
	return x, y
}

// referenceSample draws, directly from the keys, the sample FitSample
// should draw from the rows of x with classes y: per class (stratified)
// or over all rows (uniform), the rows of least (key, values), then all
// of them in (key, values, class) order.
func referenceSample(t *testing.T, x *mat.Dense, y []int, fit SampleFit) (*mat.Dense, []int) {
	t.Helper()
	type row struct {
		key   uint64
		x     []float64
		label int
	}
	byKey := func(a, b row) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		if c := slices.Compare(a.x, b.x); c != 0 {
			return c
		}
		return cmp.Compare(a.label, b.label)
	}
	groups := map[string][]row{}
	n, d := x.Dims()
	for i := range n {
		g := ""
		if fit.Stratify {
			g = strconv.Itoa(y[i])
		}
		groups[g] = append(groups[g], row{sampleKey(fit.Seed, x.RawRowView(i)), x.RawRowView(i), y[i]})
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	slices.Sort(names) // the strata in byte order, as StratifiedSample's
	counts := make([]int64, len(names))
	for k, g := range names {
		counts[k] = int64(len(groups[g]))
	}
	alloc := []int{min(fit.Size, n)}
	if fit.Stratify {
		var err error
		if alloc, err = Allocate(counts, fit.Size); err != nil {
			t.Fatal(err)
		}
	}
	var picked []row
	for k, g := range names {
		rs := groups[g]
		slices.SortFunc(rs, byKey)
		picked = append(picked, rs[:alloc[k]]...)
	}
	slices.SortFunc(picked, byKey)
	xs := mat.NewDense(len(picked), d, nil)
	ys := make([]int, len(picked))
	for i, r := range picked {
		xs.SetRow(i, r.x)
		ys[i] = r.label
	}
	return xs, ys
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
// LDA sample, the rare one included. The labelled sketch does not depend
// on the split of the rows into accumulators nor on the merge order.
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

	// The labelled sketch is the same whatever the split and merge order.
	fn := &labeledSampleCombineFn{Size: 30, Seed: 3}
	whole := fn.CreateAccumulator()
	for i := range n {
		whole = fn.AddInput(whole, Labeled{Label: y[i], X: x.RawRowView(i)})
	}
	wx, wy, err := fn.ExtractOutput(whole).Rows()
	if err != nil {
		t.Fatal(err)
	}
	rx, ry := referenceSample(t, x, y, SampleFit{Size: 30, Seed: 3})
	if !mat.Equal(wx, rx) || !slices.Equal(wy, ry) {
		t.Errorf("the labelled sketch differs from the reference sample")
	}
	for _, parts := range []int{2, 5, 40} {
		accs := make([]Sample, parts)
		for c := range accs {
			accs[c] = fn.CreateAccumulator()
		}
		for i := range n {
			accs[(i*7)%parts] = fn.AddInput(accs[(i*7)%parts], Labeled{Label: y[i], X: x.RawRowView(i)})
		}
		m := accs[parts-1]
		for c := parts - 2; c >= 0; c-- {
			m = fn.MergeAccumulators(accs[c], m)
		}
		gx, gy, err := fn.ExtractOutput(m).Rows()
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(gx, wx) || !slices.Equal(gy, wy) {
			t.Errorf("%d parts: a different labelled sample", parts)
		}
	}
}
