package sparse_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/manifoldlab/manifold/sparse"
)

// LLEMatrix equals, bit for bit, M summed as the outer products Σᵢ aᵢᵀaᵢ of the
// rows of A = I − W added in row order (the construction it replaced), on
// weights with and without the point itself in its row.
func TestLLEMatrixMatchesOuterProducts(t *testing.T) {
	const n, k = 300, 7
	rng := rand.New(rand.NewPCG(5, 9))
	coo := sparse.NewCOO(n, n, n*k)
	for i := range n {
		used := map[int]bool{}
		for len(used) < k {
			j := rng.IntN(n)
			if j == i && i%3 != 0 {
				continue // the point itself in every third row only
			}
			if !used[j] {
				used[j] = true
				coo.Add(i, j, rng.NormFloat64())
			}
		}
	}
	w := coo.ToCSR()
	ref := sparse.NewCOO(n, n, 0)
	ptr, ind, val := w.RowPtr(), w.ColIdx(), w.Values()
	for i := range n {
		var cols []int
		var vals []float64
		self := false
		for p := ptr[i]; p < ptr[i+1]; p++ {
			v := -val[p]
			if ind[p] == i {
				v++
				self = true
			}
			cols, vals = append(cols, ind[p]), append(vals, v)
		}
		if !self {
			cols, vals = append(cols, i), append(vals, 1)
		}
		for a := range cols {
			for b := range cols {
				ref.Add(cols[a], cols[b], vals[a]*vals[b])
			}
		}
	}
	want := ref.ToCSR()
	got, err := sparse.LLEMatrix(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.RowPtr(), want.RowPtr()) || !slices.Equal(got.ColIdx(), want.ColIdx()) {
		t.Fatal("pattern of M differs from the outer products'")
	}
	for p, v := range want.Values() {
		if got.Values()[p] != v {
			t.Fatalf("entry %d: %v, want %v exactly", p, got.Values()[p], v)
		}
	}
}
