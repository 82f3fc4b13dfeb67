package neighbors_test

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/neighbors"
)

// Queries of new points (other points of the same roll) against an index
// of 4000 points: recall@10 against the exact KNNQuery; indexed rows find
// themselves at distance 0; the same answers with 1 and 2 goroutines.
func TestIndexQuery(t *testing.T) {
	all := roll(5000, 50, 61)
	x := mat.DenseCopyOf(all.Slice(0, 4000, 0, 50))
	q := mat.DenseCopyOf(all.Slice(4000, 5000, 0, 50))
	ix, lists, err := neighbors.NewIndex(ctx, x, 15, neighbors.ApproxOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 4000 || lists.Len() != 4000 {
		t.Fatalf("index of %d rows, %d lists", ix.Len(), lists.Len())
	}
	checkRecall(t, "", ix, x, q, []widthRecall{{0, 0.99}, {10, 0.9}, {60, 0.995}}, func(got *neighbors.Result) {
		for i := 0; i < 1000; i += 97 {
			js, ds := got.Row(i)
			for p, j := range js {
				if d := euclid(q.RawRowView(i), x.RawRowView(j)); math.Abs(ds[p]-d) > 1e-12*(1+d) {
					t.Fatalf("query %d: distance to %d is %v, direct %v", i, j, ds[p], d)
				}
			}
		}
	})
	self, err := ix.Query(ctx, x.Slice(0, 200, 0, 50), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		js, ds := self.Row(i)
		if ds[0] != 0 || (js[0] != i && euclid(x.RawRowView(i), x.RawRowView(js[0])) != 0) {
			t.Fatalf("indexed row %d: nearest %d at %v", i, js[0], ds[0])
		}
	}
	run := func(p int) *neighbors.Result {
		old := runtime.GOMAXPROCS(p)
		defer runtime.GOMAXPROCS(old)
		r, err := ix.Query(ctx, q, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := run(1), run(2)
	if !slices.Equal(a.Ind, b.Ind) {
		t.Fatal("queries differ between GOMAXPROCS 1 and 2")
	}
	// QueryRow: the same answers one row at a time, and its errors.
	js, ds := make([]int, 10), make([]float64, 10)
	for i := 0; i < 1000; i += 7 {
		if err := ix.QueryRow(ctx, q.RawRowView(i), js, ds, 0); err != nil {
			t.Fatal(err)
		}
		wj, wd := a.Row(i)
		if !slices.Equal(js, wj) || !slices.Equal(ds, wd) {
			t.Fatalf("row %d: QueryRow %v %v, Query %v %v", i, js, ds, wj, wd)
		}
	}
	nan := slices.Clone(q.RawRowView(0))
	nan[3] = math.NaN()
	for _, c := range []struct {
		name string
		q    []float64
		js   []int
		ds   []float64
	}{{"short row", q.RawRowView(0)[:49], js, ds}, {"NaN", nan, js, ds}, {"no neighbours", q.RawRowView(0), nil, nil},
		{"distances of another length", q.RawRowView(0), js, ds[:9]}, {"more neighbours than rows", q.RawRowView(0), make([]int, 4001), make([]float64, 4001)}} {
		if err := ix.QueryRow(ctx, c.q, c.js, c.ds, 0); !errors.Is(err, neighbors.ErrInput) {
			t.Errorf("QueryRow, %s: %v, want ErrInput", c.name, err)
		}
	}
}

// A graph that falls apart (two far clusters) still gives k answers, and
// bad queries are refused.
func TestIndexErrorsAndComponents(t *testing.T) {
	x := mat.NewDense(60, 2, nil)
	for i := 0; i < 60; i++ {
		x.Set(i, 0, float64(i%30)+1000*float64(i/30))
		x.Set(i, 1, float64(i%7))
	}
	ix, _, err := neighbors.NewIndex(ctx, x, 3, neighbors.ApproxOptions{LeafSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	q := mat.NewDense(1, 2, []float64{500, 0})
	res, err := ix.Query(ctx, q, 40, 40)
	if err != nil {
		t.Fatal(err)
	}
	if js, _ := res.Row(0); len(js) != 40 {
		t.Fatalf("%d answers", len(js))
	}
	for _, c := range []struct {
		q mat.Matrix
		k int
	}{{q, 0}, {q, 61}, {mat.NewDense(1, 3, nil), 2}, {mat.NewDense(1, 2, []float64{math.NaN(), 0}), 2}} {
		if _, err := ix.Query(ctx, c.q, c.k, 0); !errors.Is(err, neighbors.ErrInput) {
			t.Errorf("k = %d: err = %v", c.k, err)
		}
	}
	c, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.Query(c, q, 2, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// Queries of USPS digits (rows 6000–6999) against an index of rows 0–5999.
func TestIndexUSPS(t *testing.T) {
	t.Parallel()
	if raceOn {
		t.Skip("large case: skipped under the race detector")
	}
	all := usps(t, 7000)
	x := mat.DenseCopyOf(all.Slice(0, 6000, 0, 256))
	q := mat.DenseCopyOf(all.Slice(6000, 7000, 0, 256))
	ix, _, err := neighbors.NewIndex(ctx, x, 15, neighbors.ApproxOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkRecall(t, "USPS, ", ix, x, q, []widthRecall{{10, 0.9}, {0, 0.97}, {60, 0.99}}, nil)
}

// widthRecall is a search width and the least recall@10 it must reach.
type widthRecall struct {
	width int
	min   float64
}

// checkRecall queries q against ix, the index of x, at each width and
// fails when recall@10 against the exact neighbours falls below the
// width's minimum; each, when set, checks every result too.
func checkRecall(t *testing.T, name string, ix *neighbors.Index, x, q *mat.Dense, widths []widthRecall, each func(*neighbors.Result)) {
	t.Helper()
	want, err := neighbors.KNNQuery(ctx, x, q, 10, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range widths {
		got, err := ix.Query(ctx, q, 10, c.width)
		if err != nil {
			t.Fatal(err)
		}
		r := neighbors.Recall(got, want)
		t.Logf("%swidth %d: recall@10 %.4f", name, c.width, r)
		if r < c.min {
			t.Errorf("%swidth %d: recall@10 %.4f < %v", name, c.width, r, c.min)
		}
		if each != nil {
			each(got)
		}
	}
}
