package sparse

import (
	"math"
	"slices"

	"github.com/manifoldlab/manifold/backend"
)

// The matrices of a weighted graph that spectral methods take
// (Laplacian eigenmaps, LPP), and the mirror places of a symmetric
// pattern.

// TransposePlaces returns, for a square a, the place (index into ColIdx
// and Values) of entry (j, i) for each entry (i, j), or nil when a's
// pattern is not symmetric: the rows i that reach row j come in
// increasing order, as row j's columns do, so each takes the next
// unmatched place of row j. O(nnz).
func (a *CSR) TransposePlaces() []int {
	ptr, ind := a.RowPtr(), a.ColIdx()
	n := len(ptr) - 1
	if r, c := a.Dims(); r != c {
		return nil
	}
	next := slices.Clone(ptr[:n]) // each row's next unmatched place
	mirror := make([]int, len(ind))
	for i := range n {
		for p := ptr[i]; p < ptr[i+1]; p++ {
			j := ind[p]
			q := next[j]
			if q >= ptr[j+1] || ind[q] != i {
				return nil
			}
			mirror[p] = q
			next[j]++
		}
	}
	return mirror
}

// invSqrtDegrees returns D^{-1/2} of w's row sums (0 for an isolated
// vertex).
func invSqrtDegrees(w *CSR) []float64 {
	inv := w.RowSums()
	for i, v := range inv {
		if v > 0 {
			inv[i] = 1 / math.Sqrt(v)
		} else {
			inv[i] = 0
		}
	}
	return inv
}

// NormalizedLaplacian returns, for the weights w of a graph (square,
// symmetric, non-negative, rows sorted), I − D^{-1/2}·W·D^{-1/2} with D
// the row sums, and D^{-1/2} (0 for an isolated vertex), in one pass over
// W: the entries that NormalizedAdjacency, a scaling by −1 and a union
// with the identity give, bit for bit, without their three copies of the
// graph.
func NormalizedLaplacian(w *CSR) (*CSR, []float64) {
	n, _ := w.Dims()
	inv := invSqrtDegrees(w)
	ptr, ind, val := w.RowPtr(), w.ColIdx(), w.Values()
	lp := make([]int, n+1)
	for i := range n { // each row, and its diagonal where W stores none
		c := ptr[i+1] - ptr[i]
		if _, stored := slices.BinarySearch(ind[ptr[i]:ptr[i+1]], i); !stored {
			c++
		}
		lp[i+1] = lp[i] + c
	}
	li, lv := make([]int, lp[n]), make([]float64, lp[n])
	backend.ParallelFor(n, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			q, diag := lp[i], false
			for p := ptr[i]; p < ptr[i+1]; p++ {
				j := ind[p]
				if !diag && j > i {
					li[q], lv[q] = i, 1
					q++
					diag = true
				}
				x := -(inv[i] * val[p] * inv[j])
				if j == i {
					x = 1 + x
					diag = true
				}
				li[q], lv[q] = j, x
				q++
			}
			if !diag {
				li[q], lv[q] = i, 1
			}
		}
	})
	l, err := NewCSR(n, n, lp, li, lv)
	if err != nil {
		panic(err) // W's pattern and the diagonal
	}
	return l, inv
}

// NormalizedAdjacency returns D^{-1/2}·W·D^{-1/2} of the weights w of a
// graph and D^{-1/2} (0 for an isolated vertex, whose row and column stay
// zero).
func NormalizedAdjacency(w *CSR) (*CSR, []float64) {
	inv := invSqrtDegrees(w)
	return w.Map(func(i, j int, v float64) float64 { return inv[i] * v * inv[j] }), inv
}
