package manifoldbeam

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

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
	if err := CheckSampleFit(SampleFit{Method: "pca", Supervised: true}); !errors.Is(err, ErrFit) {
		t.Errorf("pca with labels: %v", err)
	}
	if err := CheckSampleFit(SampleFit{Method: "umap"}); !errors.Is(err, ErrFit) {
		t.Errorf("an unknown method: %v", err)
	}
	if got := strings.Join(SupervisedMethods(), " "); got != "isomap isoprojection landmark-isomap laplacian lda lpp npe oip soip" {
		t.Errorf("SupervisedMethods: %s", got)
	}
	if err := CheckSampleFit(SampleFit{Method: "lda", Supervised: true}); err != nil {
		t.Errorf("lda with labels: %v", err)
	}
}

// TestAllocate: proportional allocation with at least one row a stratum
// (hand-worked cases, one where a small stratum is exhausted and its
// seats go to the others), and on 500 random count vectors the sum
// min(size, N), 1 ≤ n_h ≤ N_h and n_h − 1 within one row of the quota
// (m − H)·N_h/N while no stratum is exhausted; the errors.
func TestAllocate(t *testing.T) {
	for _, tc := range []struct {
		counts []int64
		size   int
		want   []int
	}{
		// quotas 96·N_h/1000 = 86.4, 8.64, 0.864, 0.096: floors 86, 8, 0, 0,
		// the two largest remainders (.864, .64) one more, plus one each.
		{[]int64{900, 90, 9, 1}, 100, []int{87, 10, 2, 1}},
		{[]int64{900, 90, 9, 1}, 5000, []int{900, 90, 9, 1}}, // the sample is everything
		{[]int64{5, 5}, 3, []int{2, 1}},                      // a tie goes to the lower index
		{[]int64{1, 1, 1}, 3, []int{1, 1, 1}},
		{[]int64{300, 80, 19, 1}, 40, []int{28, 8, 3, 1}}, // 27, 7.2, 1.71, 0.09
		// quotas 45.54, 2.73, 2.73: the small strata hold 3 rows each, so
		// the two remainder seats go to the first.
		{[]int64{50, 3, 3}, 54, []int{48, 3, 3}},
	} {
		got, err := Allocate(tc.counts, tc.size)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Allocate(%v, %d) = %v, %v; want %v", tc.counts, tc.size, got, err, tc.want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 500 {
		h := 1 + rng.IntN(8)
		counts := make([]int64, h)
		var n int64
		for k := range counts {
			counts[k] = 1 + rng.Int64N([]int64{3, 50, 5000}[rng.IntN(3)])
			n += counts[k]
		}
		size := h + rng.IntN(300)
		got, err := Allocate(counts, size)
		if err != nil {
			t.Fatal(err)
		}
		sum, full := 0, false
		for k, a := range got {
			sum += a
			if a < 1 || int64(a) > counts[k] {
				t.Fatalf("Allocate(%v, %d) = %v: stratum %d out of [1, N_h]", counts, size, got, k)
			}
			full = full || int64(a) == counts[k]
		}
		for k, a := range got {
			// proportional: within one row of the quota beyond the first
			// row, unless a stratum is exhausted (all its rows taken) and
			// its seats went to the others
			q := float64(min(int64(size), n)-int64(h)) * float64(counts[k]) / float64(n)
			if math.Abs(float64(a-1)-q) >= 1 && !full {
				t.Fatalf("Allocate(%v, %d) = %v: stratum %d far from its quota %.3f", counts, size, got, k, q)
			}
		}
		if int64(sum) != min(int64(size), n) {
			t.Fatalf("Allocate(%v, %d) = %v: %d rows", counts, size, got, sum)
		}
	}
	if _, err := Allocate([]int64{4, 4, 4}, 2); !errors.Is(err, ErrFit) {
		t.Errorf("3 strata, 2 rows: %v", err)
	}
	if _, err := Allocate([]int64{4, 0}, 2); !errors.Is(err, ErrFit) {
		t.Errorf("an empty stratum: %v", err)
	}
}

// TestStratifiedSketch: the stratified sample of 40 of the 400 rows holds
// 28, 8, 3 and 1 rows of the four strata (TestAllocate's case), each
// stratum's rows of least key (checked against keys sorted directly), in
// key order; it is the same whatever the split of the rows into
// accumulators and the order of the merges; another seed gives another
// sample with the same counts; rows of differing widths, a sample smaller
// than the strata and no rows are errors.
func TestStratifiedSketch(t *testing.T) {
	rows, names := stratData()
	fn := &stratifiedCombineFn{Size: 40, Seed: 9}
	whole := fn.CreateAccumulator()
	for _, r := range rows {
		whole = fn.AddInput(whole, r)
	}
	want, alloc, err := whole.Draw()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(whole.Strata, names) || !slices.Equal(alloc, []int{28, 8, 3, 1}) {
		t.Fatalf("strata %v allocated %v", whole.Strata, alloc)
	}
	got := make([]int, 4)
	for r := range len(want.Keys) {
		got[int(want.Flat[r*3])]++
		if r > 0 && want.Keys[r] < want.Keys[r-1] {
			t.Errorf("row %d out of key order", r)
		}
	}
	if !slices.Equal(got, alloc) {
		t.Errorf("rows a stratum in the sample %v, want %v", got, alloc)
	}
	// Each stratum's rows are its alloc[k] rows of least key.
	for k := range names {
		var keys []uint64
		for _, r := range rows {
			if r.Stratum == names[k] {
				keys = append(keys, sampleKey(9, r.X))
			}
		}
		slices.Sort(keys)
		var in []uint64
		for r := range len(want.Keys) {
			if int(want.Flat[r*3]) == k {
				in = append(in, want.Keys[r])
			}
		}
		if !slices.Equal(in, keys[:alloc[k]]) {
			t.Errorf("stratum %s: sampled keys are not its %d least", names[k], alloc[k])
		}
	}
	for _, parts := range []int{2, 3, 7, 50} {
		accs := make([]StratifiedSample, parts)
		for c := range accs {
			accs[c] = fn.CreateAccumulator()
		}
		for i, r := range rows {
			c := (i * 31) % parts
			accs[c] = fn.AddInput(accs[c], r)
		}
		m := accs[parts-1]
		for c := parts - 2; c >= 0; c-- { // merged in reverse
			m = fn.MergeAccumulators(accs[c], m)
		}
		s := fn.ExtractOutput(m)
		if s.Err != "" || !slices.Equal(s.Keys, want.Keys) || !slices.Equal(s.Flat, want.Flat) {
			t.Errorf("%d parts: a different sample (%s)", parts, s.Err)
		}
	}
	other := &stratifiedCombineFn{Size: 40, Seed: 10}
	acc := other.CreateAccumulator()
	for _, r := range rows {
		acc = other.AddInput(acc, r)
	}
	s2, alloc2, err := acc.Draw()
	if err != nil || !slices.Equal(alloc2, alloc) || slices.Equal(s2.Keys, want.Keys) {
		t.Errorf("seed 10: allocation %v (%v), same sample %v", alloc2, err, slices.Equal(s2.Flat, want.Flat))
	}

	bad := fn.AddInput(fn.AddInput(fn.CreateAccumulator(), Stratified{Stratum: "a", X: []float64{1, 2}}), Stratified{Stratum: "a", X: []float64{1, 2, 3}})
	if _, err := fn.ExtractOutput(bad).Matrix(); !errors.Is(err, ErrFit) {
		t.Errorf("rows of widths 2 and 3: %v", err)
	}
	small := &stratifiedCombineFn{Size: 3, Seed: 9}
	acc = small.CreateAccumulator()
	for _, r := range rows {
		acc = small.AddInput(acc, r)
	}
	if _, err := small.ExtractOutput(acc).Matrix(); !errors.Is(err, ErrFit) {
		t.Errorf("3 rows for 4 strata: %v", err)
	}
	if _, err := fn.ExtractOutput(fn.CreateAccumulator()).Matrix(); !errors.Is(err, ErrFit) {
		t.Errorf("no rows: %v", err)
	}
}

// TestLabeledSketch: the labelled sample of 30 of labeledData's rows is
// the reference sample (referenceSample: keys sorted directly), classes
// beside their rows, whatever the split of the rows into accumulators and
// the order of the merges.
func TestLabeledSketch(t *testing.T) {
	x, y := labeledData()
	n, _ := x.Dims()
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
