package sparse_test

import (
	"context"
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

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

// Permuted is P·A·Pᵀ and RowsPermuted P·A for any pattern (here a
// matrix that is not symmetric), each a valid CSR.
func TestPermuted(t *testing.T) {
	c := sparse.NewCOO(5, 5, 0)
	for _, e := range [][3]float64{{0, 3, 1}, {1, 0, 2}, {1, 4, 3}, {2, 2, 4}, {3, 1, 5}, {4, 0, 6}, {4, 3, 7}} {
		c.Add(int(e[0]), int(e[1]), e[2])
	}
	a := c.ToCSR()
	perm := []int{3, 0, 4, 2, 1}
	b, err := a.Permuted(context.Background(), perm)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.RowsPermuted(perm)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 5; k++ {
		for l := 0; l < 5; l++ {
			if b.At(k, l) != a.At(perm[k], perm[l]) {
				t.Errorf("Permuted (%d, %d): %v, want A(%d, %d) = %v", k, l, b.At(k, l), perm[k], perm[l], a.At(perm[k], perm[l]))
			}
			if r.At(k, l) != a.At(perm[k], l) {
				t.Errorf("RowsPermuted (%d, %d): %v, want A(%d, %d) = %v", k, l, r.At(k, l), perm[k], l, a.At(perm[k], l))
			}
		}
	}
	for _, m := range []*sparse.CSR{b, r} {
		if _, err := sparse.NewCSR(5, 5, m.RowPtr(), m.ColIdx(), m.Values()); err != nil {
			t.Errorf("not a valid CSR: %v", err)
		}
	}
	if _, err := a.Permuted(context.Background(), perm[:4]); !errors.Is(err, sparse.ErrInvalid) {
		t.Errorf("4 indices for 5 rows: %v", err)
	}
}

// Symmetrized is Union (or Intersection) with the transpose, the same
// matrix entry for entry; a done context stops it with its error, also in
// the transpose of a matrix of 10⁶ entries; a rectangle is refused.
func TestSymmetrized(t *testing.T) {
	a := randomCSR(300, 300, 0.02, 7)
	first := func(v, _ float64) float64 { return v }
	for _, union := range []bool{true, false} {
		got, err := sparse.Symmetrized(context.Background(), a, union, first)
		if err != nil {
			t.Fatal(err)
		}
		want := sparse.Intersection(a, a.Transpose(), first)
		if union {
			want = sparse.Union(a, a.Transpose(), first)
		}
		if !mat.Equal(got.ToDense(), want.ToDense()) || got.NNZ() != want.NNZ() {
			t.Fatalf("union %v: differs from the merge with the transpose", union)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range []*sparse.CSR{a, randomCSR(2000, 2000, 0.25, 8)} {
		if _, err := sparse.Symmetrized(ctx, m, true, first); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled: %v, want context.Canceled", err)
		}
	}
	if _, err := sparse.Symmetrized(context.Background(), randomCSR(3, 4, 0.5, 9), true, first); !errors.Is(err, sparse.ErrInvalid) {
		t.Fatalf("a 3×4 matrix symmetrized: %v, want ErrInvalid", err)
	}
}
