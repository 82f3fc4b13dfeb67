package neighbors_test

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/manifoldlab/manifold/engine/neighbors"
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
	want := exactKNN(t, x, k, neighbors.Euclidean)
	checkLists(t, "refined", x, got, k, func(a, b []float64) float64 {
		s := 0.0
		for c := range a {
			s += (a[c] - b[c]) * (a[c] - b[c])
		}
		return math.Sqrt(s)
	})
	before, after := neighbors.Recall(lists, want), neighbors.Recall(got, want)
	t.Logf("USPS 4000, k = %d: recall %.4f after one NN-descent iteration, %.4f refined at width 40", k, before, after)
	if !(after > before) || after < 0.98 {
		t.Errorf("recall %.4f → %.4f: want higher, and ≥ 0.98", before, after)
	}
	for i := 0; i < lists.Len(); i++ {
		_, d0 := lists.Row(i)
		_, d1 := got.Row(i)
		if d1[k-1] > d0[k-1] {
			t.Fatalf("row %d: k-th distance %v grew to %v", i, d0[k-1], d1[k-1])
		}
	}
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
