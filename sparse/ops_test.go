package sparse_test

import (
	"context"
	"errors"
	"testing"

	"github.com/manifoldlab/manifold/sparse"
)

// LocalOrder is a symmetric permutation: P·A·Pᵀ entry for entry, rows
// sorted, the order a permutation of the vertices.
func TestLocalOrder(t *testing.T) {
	a, _ := gridUnweighted(30, 40)
	b, perm, err := sparse.LocalOrder(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := a.Dims()
	seen := make([]bool, n)
	for _, v := range perm {
		if v < 0 || v >= n || seen[v] {
			t.Fatalf("order %v is not a permutation", perm)
		}
		seen[v] = true
	}
	for k := 0; k < n; k++ {
		for l := 0; l < n; l++ {
			if b.At(k, l) != a.At(perm[k], perm[l]) {
				t.Fatalf("(%d, %d): %v, want A(%d, %d) = %v", k, l, b.At(k, l), perm[k], perm[l], a.At(perm[k], perm[l]))
			}
		}
	}
	if _, err := sparse.NewCSR(n, n, b.RowPtr(), b.ColIdx(), b.Values()); err != nil {
		t.Errorf("the permuted matrix is not a valid CSR: %v", err)
	}
	if _, _, err := sparse.LocalOrder(context.Background(), sparse.NewCOO(2, 3, 0).ToCSR()); !errors.Is(err, sparse.ErrInvalid) {
		t.Errorf("a 2×3 matrix: %v", err)
	}
}
