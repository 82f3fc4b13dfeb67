package neighbors

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// kdPoints returns n points in dim dimensions; with grid, small integer
// coordinates (ties on every dimension, repeated points).
func kdPoints(n, dim int, grid bool) blas64.General {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	x := blas64.General{Rows: n, Cols: dim, Stride: dim, Data: make([]float64, n*dim)}
	for i := range x.Data {
		if grid {
			x.Data[i] = float64(rng.IntN(5))
		} else {
			x.Data[i] = rng.NormFloat64()
		}
	}
	return x
}

// The tree built with its root's halves on two goroutines is the tree
// built on one: the same nodes in the same order, boxes, points and
// indices.
func TestKDTreeSplitBuildSame(t *testing.T) {
	for _, grid := range []bool{false, true} {
		x := kdPoints(3*parallelBuildMin, 3, grid)
		one := &kdTree{dim: 3}
		both := &kdTree{dim: 3}
		for _, tr := range []*kdTree{one, both} {
			tr.pts = slices.Clone(x.Data)
			tr.idx = make([]int, x.Rows)
			for i := range tr.idx {
				tr.idx[i] = i
			}
		}
		one.build(0, x.Rows, 16, false)
		both.build(0, x.Rows, 16, true)
		if !slices.Equal(one.nodes, both.nodes) || !slices.Equal(one.box, both.box) ||
			!slices.Equal(one.pts, both.pts) || !slices.Equal(one.idx, both.idx) {
			t.Errorf("grid %v: the split build made another tree", grid)
		}
		if want := buildKDTree(x, 16); !slices.Equal(want.nodes, both.nodes) || !slices.Equal(want.idx, both.idx) {
			t.Errorf("grid %v: buildKDTree made another tree", grid)
		}
	}
}

// selectNth puts the element of rank nth at nth, none larger before it
// and none smaller after, on every rank, with ties (few distinct keys) and
// without, and moves whole points.
func TestSelectNth(t *testing.T) {
	for _, grid := range []bool{false, true} {
		for _, n := range []int{1, 2, 3, 5, 17, 200} {
			x := kdPoints(n, 2, grid)
			for nth := 0; nth < n; nth++ {
				tr := &kdTree{dim: 2, pts: slices.Clone(x.Data), idx: make([]int, n)}
				for i := range tr.idx {
					tr.idx[i] = i
				}
				tr.selectNth(0, n, nth, 1)
				keys := make([]float64, n)
				for p := range n {
					keys[p] = tr.pts[2*p+1]
					i := tr.idx[p]
					if tr.pts[2*p] != x.Data[2*i] || tr.pts[2*p+1] != x.Data[2*i+1] {
						t.Fatalf("n %d nth %d: position %d holds no point %d", n, nth, p, i)
					}
				}
				sorted := slices.Clone(keys)
				slices.Sort(sorted)
				if keys[nth] != sorted[nth] {
					t.Fatalf("grid %v n %d: rank %d holds %v, want %v", grid, n, nth, keys[nth], sorted[nth])
				}
				for p := range n {
					if p < nth && keys[p] > keys[nth] || p > nth && keys[p] < keys[nth] {
						t.Fatalf("grid %v n %d nth %d: %v at %d", grid, n, nth, keys[p], p)
					}
				}
			}
		}
	}
}
