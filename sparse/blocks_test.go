package sparse_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/manifoldlab/manifold/sparse"
)

// SumBlocks against the triplet construction it replaces (COO.Add in the
// order i, a, c, then ToCSR): the same pattern and the same values bit
// for bit, on blocks that overlap heavily (a few hundred rows), with a
// repeated index inside a block, untouched rows, k = 1, no blocks, and
// values of mixed magnitudes (so a different summation order would show).
func TestSumBlocksEqualsTriplets(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ n, m, k int }{{300, 900, 10}, {50, 200, 7}, {40, 30, 1}, {10, 0, 4}, {2000, 3000, 6}} {
		rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.k)))
		idx := make([]int, tc.m*tc.k)
		for p := range idx {
			idx[p] = rng.IntN(tc.n - tc.n/10) // the last tenth of the rows untouched
		}
		if tc.m > 0 && tc.k > 1 {
			idx[1] = idx[0] // a repeated index in block 0
		}
		blocks := make([]float64, tc.m*tc.k*tc.k)
		for p := range blocks {
			blocks[p] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-6))
		}
		coo := sparse.NewCOO(tc.n, tc.n, len(blocks))
		for i := 0; i < tc.m; i++ {
			for a := 0; a < tc.k; a++ {
				for c := 0; c < tc.k; c++ {
					coo.Add(idx[i*tc.k+a], idx[i*tc.k+c], blocks[i*tc.k*tc.k+a*tc.k+c])
				}
			}
		}
		want := coo.ToCSR()
		got, err := sparse.SumBlocks(ctx, tc.n, tc.k, idx, blocks)
		if err != nil {
			t.Fatal(err)
		}
		wp, wi, wv := want.RowPtr(), want.ColIdx(), want.Values()
		gp, gi, gv := got.RowPtr(), got.ColIdx(), got.Values()
		if len(gp) != len(wp) || len(gi) != len(wi) {
			t.Fatalf("n=%d m=%d k=%d: %d rows, %d entries; want %d, %d", tc.n, tc.m, tc.k, len(gp)-1, len(gi), len(wp)-1, len(wi))
		}
		for j := range wp {
			if gp[j] != wp[j] {
				t.Fatalf("n=%d m=%d k=%d: row pointer %d is %d, want %d", tc.n, tc.m, tc.k, j, gp[j], wp[j])
			}
		}
		for q := range wi {
			if gi[q] != wi[q] || math.Float64bits(gv[q]) != math.Float64bits(wv[q]) {
				t.Fatalf("n=%d m=%d k=%d: entry %d is (%d, %v), want (%d, %v)", tc.n, tc.m, tc.k, q, gi[q], gv[q], wi[q], wv[q])
			}
		}
	}
}

func TestSumBlocksCancelledAndMisused(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sparse.SumBlocks(ctx, 100, 2, make([]int, 400), make([]float64, 800)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %v, want context.Canceled", err)
	}
	for name, f := range map[string]func(){
		"ragged":       func() { sparse.SumBlocks(context.Background(), 5, 2, make([]int, 3), make([]float64, 6)) },
		"values":       func() { sparse.SumBlocks(context.Background(), 5, 2, make([]int, 4), make([]float64, 7)) },
		"out of range": func() { sparse.SumBlocks(context.Background(), 5, 2, []int{0, 5}, make([]float64, 4)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// Dot against the dense inner product of the same vectors (disjoint,
// overlapping and empty patterns).
func TestDot(t *testing.T) {
	for _, tc := range []struct {
		ai []int
		av []float64
		bi []int
		bv []float64
	}{
		{[]int{0, 3, 5}, []float64{1, 2, 3}, []int{3, 4, 5}, []float64{10, 20, 30}},
		{[]int{1}, []float64{2}, []int{0, 2}, []float64{5, 7}},
		{nil, nil, []int{0}, []float64{1}},
	} {
		a, b := make([]float64, 6), make([]float64, 6)
		for p, i := range tc.ai {
			a[i] = tc.av[p]
		}
		for p, i := range tc.bi {
			b[i] = tc.bv[p]
		}
		want := 0.0
		for i := range a {
			want += a[i] * b[i]
		}
		if got := sparse.Dot(tc.ai, tc.av, tc.bi, tc.bv); got != want {
			t.Errorf("Dot(%v, %v, %v, %v) = %v, want %v", tc.ai, tc.av, tc.bi, tc.bv, got, want)
		}
	}
}

// SqDist is bit for bit the dense squared distance, summed over every
// index in order, on random sparse vectors of awkward values (disjoint,
// overlapping, empty and stored-zero patterns among them): the max-min
// landmark choice relies on it to choose from sparse rows as from dense.
func TestSqDist(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const d = 40
	sparseOf := func(v []float64, keepZero bool) ([]int, []float64) {
		var idx []int
		var val []float64
		for i, x := range v {
			if x != 0 || (keepZero && i%7 == 0) {
				idx, val = append(idx, i), append(val, x)
			}
		}
		return idx, val
	}
	for trial := range 500 {
		a, b := make([]float64, d), make([]float64, d)
		for i := range d {
			if rng.IntN(3) == 0 {
				a[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
			}
			if rng.IntN(3) == 0 {
				b[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
			}
		}
		if trial%50 == 0 {
			clear(a) // an empty vector
		}
		want := 0.0
		for i := range a {
			t := a[i] - b[i]
			want += t * t
		}
		ai, av := sparseOf(a, trial%2 == 0)
		bi, bv := sparseOf(b, false)
		if got := sparse.SqDist(ai, av, bi, bv); got != want {
			t.Fatalf("trial %d: SqDist %v, the dense sum %v", trial, got, want)
		}
		if got := sparse.SqDist(bi, bv, ai, av); got != want {
			t.Fatalf("trial %d: SqDist (swapped) %v, the dense sum %v", trial, got, want)
		}
	}
}
