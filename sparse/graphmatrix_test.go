package sparse_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/manifoldlab/manifold/sparse"
)

// NormalizedLaplacian and NormalizedAdjacency against their definitions,
// entry by entry (bit for bit: the same products), on a random symmetric
// weighted graph with an isolated vertex and some stored diagonal entries;
// the Laplacian stores every diagonal entry.
func TestNormalizedLaplacian(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n = 60
	c := sparse.NewCOO(n, n, 0)
	for range 200 {
		i, j := rng.IntN(n-1), rng.IntN(n-1) // vertex n−1 isolated
		w := rng.ExpFloat64()
		c.Add(i, j, w)
		if i != j {
			c.Add(j, i, w)
		}
	}
	w := c.ToCSR()
	l, inv := sparse.NormalizedLaplacian(w)
	a, inv2 := sparse.NormalizedAdjacency(w)
	deg := w.RowSums()
	for i := range n {
		want := 0.0
		if deg[i] > 0 {
			want = 1 / math.Sqrt(deg[i])
		}
		if inv[i] != want || inv2[i] != want {
			t.Fatalf("D^-1/2[%d] = %v, %v; want %v", i, inv[i], inv2[i], want)
		}
		if l.At(i, i) != 1-inv[i]*w.At(i, i)*inv[i] {
			t.Fatalf("L[%d, %d] = %v", i, i, l.At(i, i))
		}
		for j := range n {
			x := inv[i] * w.At(i, j) * inv[j]
			if a.At(i, j) != x {
				t.Fatalf("A[%d, %d] = %v, want %v", i, j, a.At(i, j), x)
			}
			if j != i && l.At(i, j) != -x {
				t.Fatalf("L[%d, %d] = %v, want %v", i, j, l.At(i, j), -x)
			}
		}
	}
	if l.NNZ() != w.NNZ()+n-countDiagonal(w) {
		t.Errorf("L stores %d entries, want W's %d and the missing diagonal", l.NNZ(), w.NNZ())
	}
}

func countDiagonal(w *sparse.CSR) int {
	n, _ := w.Dims()
	c := 0
	for i := range n {
		if w.At(i, i) != 0 {
			c++
		}
	}
	return c
}

// TransposePlaces finds the place of (j, i) for every (i, j) of a
// symmetric pattern, and nil for a pattern that is not.
func TestTransposePlaces(t *testing.T) {
	a, _ := gridUnweighted(7, 9)
	m := a.TransposePlaces()
	ptr, ind := a.RowPtr(), a.ColIdx()
	n, _ := a.Dims()
	for i := range n {
		for p := ptr[i]; p < ptr[i+1]; p++ {
			j, q := ind[p], m[p]
			if q < ptr[j] || q >= ptr[j+1] || ind[q] != i {
				t.Fatalf("entry (%d, %d): mirror place %d is not (%d, %d)", i, j, q, j, i)
			}
		}
	}
	c := sparse.NewCOO(3, 3, 2)
	c.Add(0, 1, 1)
	c.Add(2, 1, 1)
	if c.ToCSR().TransposePlaces() != nil {
		t.Error("an unsymmetric pattern has mirror places")
	}
}
