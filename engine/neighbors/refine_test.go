package neighbors_test

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// Refine on USPS digits (real data, with near-duplicate rows): NN-descent
// stopped early (one iteration) leaves recall to win; the refined lists
// are valid k-lists with the exact distances, their recall against brute
// force is higher and no row's list got worse (its k-th distance never
// grows), and the result is the same on one worker and on several.
func TestRefineUSPS(t *testing.T) {
	if raceOn {
		t.Skip("large case: skipped under the race detector")
	}
	x := usps(t, 4000)
	const k = 10
	opt := neighbors.ApproxOptions{Seed: 5, MaxIter: 1}
	lists, _, err := neighbors.KNNApprox(ctx, x, k, opt)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := neighbors.IndexFromLists(ctx, x, lists, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := neighbors.Refine(ctx, ix, lists, 40)
	if err != nil {
		t.Fatal(err)
	}
	checkRefined(t, "USPS 4000, refined at width 40", x, lists, got, k)
	prev := runtime.GOMAXPROCS(1)
	one, err := neighbors.Refine(ctx, ix, lists, 40)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.Ind, got.Ind) || !slices.Equal(one.Dist, got.Dist) {
		t.Fatal("one worker and several refine differently")
	}
}

func TestRefineErrors(t *testing.T) {
	x := usps(t, 300)
	lists, _, err := neighbors.KNNApprox(ctx, x, 5, neighbors.ApproxOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := neighbors.IndexFromLists(ctx, x, lists, neighbors.ApproxOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := neighbors.Refine(ctx, ix, lists, 5); !errors.Is(err, neighbors.ErrInput) {
		t.Errorf("width below k + 1: got %v, want ErrInput", err)
	}
	short := &neighbors.Result{Ptr: lists.Ptr[:201], Ind: lists.Ind[:200*5], Dist: lists.Dist[:200*5]}
	if _, err := neighbors.Refine(ctx, ix, short, 30); !errors.Is(err, neighbors.ErrInput) {
		t.Errorf("fewer lists than rows: got %v, want ErrInput", err)
	}
	ragged := &neighbors.Result{Ptr: slices.Clone(lists.Ptr), Ind: lists.Ind, Dist: lists.Dist}
	ragged.Ptr[1]--
	if _, err := neighbors.Refine(ctx, ix, ragged, 30); !errors.Is(err, neighbors.ErrInput) {
		t.Errorf("ragged lists: got %v, want ErrInput", err)
	}
}

// ApproxOptions.Refine on USPS digits (6000 rows: above the 4096 from which
// NN-descent reorders the rows, and wide enough for the walk on principal
// coordinates): the lists are valid with the exact distances, their recall
// is above NN-descent's alone, no row's k-th distance grows, and the result
// is the same on one worker and on several; KNNApprox32 on the same values
// in float32 gives the same lists and puts its rows back.
func TestApproxRefine(t *testing.T) {
	if raceOn {
		t.Skip("large case: skipped under the race detector")
	}
	x := usps(t, 6000)
	for i, v := range x.RawMatrix().Data { // values float32 holds exactly
		x.RawMatrix().Data[i] = float64(float32(v))
	}
	const k = 10
	plain := neighbors.ApproxOptions{Seed: 5, MaxIter: 1}
	lists, _, err := neighbors.KNNApprox(ctx, x, k, plain)
	if err != nil {
		t.Fatal(err)
	}
	opt := plain
	opt.Refine = 40
	got, info, err := neighbors.KNNApprox(ctx, x, k, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Refined {
		t.Error("ApproxInfo.Refined is false")
	}
	checkRefined(t, "USPS 6000, Refine 40", x, lists, got, k)
	prev := runtime.GOMAXPROCS(1)
	one, _, err := neighbors.KNNApprox(ctx, x, k, opt)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.Ind, got.Ind) || !slices.Equal(one.Dist, got.Dist) {
		t.Fatal("one worker and several refine differently")
	}
	n, d := x.Dims()
	x32 := make([]float32, n*d)
	for i, v := range x.RawMatrix().Data {
		x32[i] = float32(v)
	}
	orig := slices.Clone(x32)
	got32, _, err := neighbors.KNNApprox32(ctx, x32, d, k, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x32, orig) {
		t.Fatal("KNNApprox32 with Refine did not put the rows back")
	}
	if !slices.Equal(got32.Ind, got.Ind) {
		t.Fatal("KNNApprox32 with Refine: lists differ from KNNApprox's")
	}
	for i, v := range got32.Dist {
		if math.Abs(v-got.Dist[i]) > 1e-12*max(1, v) {
			t.Fatalf("distance %d: %v, KNNApprox %v", i, v, got.Dist[i])
		}
	}
}

func TestApproxRefineErrors(t *testing.T) {
	x := usps(t, 300)
	for _, o := range []neighbors.ApproxOptions{{Refine: 5}, {Refine: -1}} {
		if _, _, err := neighbors.KNNApprox(ctx, x, 5, o); !errors.Is(err, neighbors.ErrInput) {
			t.Errorf("Refine %d with k = 5: got %v, want ErrInput", o.Refine, err)
		}
	}
	s := sparse.NewCOO(3, 2, 3)
	s.Add(0, 0, 1)
	s.Add(1, 1, 1)
	s.Add(2, 0, 2)
	if _, _, err := neighbors.KNNApproxSparse(ctx, s.ToCSR(), 1, neighbors.ApproxOptions{Refine: 2}); !errors.Is(err, neighbors.ErrInput) {
		t.Errorf("Refine on sparse rows: got %v, want ErrInput", err)
	}
}

// checkRefined checks refined lists got of the rows x against the lists
// they refined: valid k-lists with exact Euclidean distances, a recall
// against brute force above the lists' and at least 0.98, and no row's
// k-th distance grown.
func checkRefined(t *testing.T, name string, x *mat.Dense, lists, got *neighbors.Result, k int) {
	t.Helper()
	checkLists(t, name, x, got, k, func(a, b []float64) float64 {
		s := 0.0
		for c := range a {
			s += (a[c] - b[c]) * (a[c] - b[c])
		}
		return math.Sqrt(s)
	})
	want := exactKNN(t, x, k, neighbors.Euclidean)
	before, after := neighbors.Recall(lists, want), neighbors.Recall(got, want)
	t.Logf("%s, k = %d: recall %.4f after one NN-descent iteration, %.4f refined", name, k, before, after)
	if !(after > before) || after < 0.98 {
		t.Errorf("%s: recall %.4f → %.4f: want higher, and ≥ 0.98", name, before, after)
	}
	for i := 0; i < lists.Len(); i++ {
		_, d0 := lists.Row(i)
		_, d1 := got.Row(i)
		if d1[k-1] > d0[k-1] {
			t.Fatalf("%s: row %d: k-th distance %v grew to %v", name, i, d0[k-1], d1[k-1])
		}
	}
}

// Widen on USPS digits (4000 rows, near-duplicates among them): NN-descent's
// 10 lists widened to 15 are valid 15-lists with the exact distances and
// recall@15 at least 0.97 against brute force; the same on one worker and
// on several; queries of 400 other digits at width 16 find their 10 nearest
// with higher recall than the index of the 10 lists at the same width; and
// bad arguments are refused.
func TestWidenUSPS(t *testing.T) {
	if raceOn {
		t.Skip("large case: skipped under the race detector")
	}
	all := usps(t, 4400)
	x := mat.DenseCopyOf(all.Slice(0, 4000, 0, 256))
	q := mat.DenseCopyOf(all.Slice(4000, 4400, 0, 256))
	opt := neighbors.ApproxOptions{Seed: 3}
	lists, _, err := neighbors.KNNApprox(ctx, x, 10, opt)
	if err != nil {
		t.Fatal(err)
	}
	index := func() *neighbors.Index {
		ix, err := neighbors.IndexFromLists(ctx, x, lists, opt)
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	narrow, wide := index(), index()
	got, err := wide.Widen(ctx, lists, 15, 32)
	if err != nil {
		t.Fatal(err)
	}
	checkLists(t, "widened", x, got, 15, func(a, b []float64) float64 { return floats.Distance(a, b, 2) })
	if r := neighbors.Recall(got, exactKNN(t, x, 15, neighbors.Euclidean)); r < 0.97 {
		t.Errorf("recall@15 of the widened lists %.4f, want ≥ 0.97", r)
	}
	prev := runtime.GOMAXPROCS(1)
	one, err := index().Widen(ctx, lists, 15, 32)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.Ind, got.Ind) || !slices.Equal(one.Dist, got.Dist) {
		t.Fatal("one worker and several widen differently")
	}
	want, err := neighbors.KNNQuery(ctx, x, q, 10, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rn, err := narrow.Query(ctx, q, 10, 16)
	if err != nil {
		t.Fatal(err)
	}
	rw, err := wide.Query(ctx, q, 10, 16)
	if err != nil {
		t.Fatal(err)
	}
	before, after := neighbors.Recall(rn, want), neighbors.Recall(rw, want)
	t.Logf("queries at width 16: recall@10 %.4f on the 10 lists, %.4f widened to 15", before, after)
	if !(after > before) {
		t.Errorf("queries at width 16: recall@10 %.4f widened, %.4f before: want higher", after, before)
	}
	for _, c := range []struct {
		k, width int
		lists    *neighbors.Result
	}{{0, 32, lists}, {4000, 4002, lists}, {15, 15, lists},
		{15, 32, &neighbors.Result{Ptr: lists.Ptr[:201], Ind: lists.Ind[:2000], Dist: lists.Dist[:2000]}}} {
		if _, err := index().Widen(ctx, c.lists, c.k, c.width); !errors.Is(err, neighbors.ErrInput) {
			t.Errorf("Widen(k %d, width %d, %d lists): %v, want ErrInput", c.k, c.width, c.lists.Len(), err)
		}
	}
}
