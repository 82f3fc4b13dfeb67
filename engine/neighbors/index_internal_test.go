package neighbors

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// lowRank returns n rows of d features near an r-dimensional subspace.
func lowRank(n, d, r int, noise float64, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	basis := make([]float64, r*d)
	for i := range basis {
		basis[i] = rng.NormFloat64()
	}
	x := mat.NewDense(n, d, nil)
	z := make([]float64, r)
	for i := 0; i < n; i++ {
		for a := range z {
			z[a] = rng.NormFloat64() * float64(r-a)
		}
		row := x.RawRowView(i)
		for c := range row {
			v := noise * rng.NormFloat64()
			for a := range z {
				v += z[a] * basis[a*d+c]
			}
			row[c] = v
		}
	}
	return x
}

// TestPrincipalWalk: wide rows near a subspace are walked on a few
// principal coordinates (the same ones on 1 and 2 goroutines) and their
// queries rerank to the exact neighbours; isotropic or narrow rows are
// walked as they are, with the float32 rows kept.
func TestPrincipalWalk(t *testing.T) {
	ctx := context.Background()
	x := lowRank(3000, 128, 10, 0.05, 3)
	var spaces [][]float32
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		ix, _, err := NewIndex(ctx, x, 10, ApproxOptions{Seed: 1})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if ix.walk.axes == nil || ix.walk.dim > 16 || ix.v.x != nil {
			t.Fatalf("rows near a 10-dimensional subspace: walk of %d coordinates (axes %v, float32 rows kept %v)", ix.walk.dim, ix.walk.axes != nil, ix.v.x != nil)
		}
		spaces = append(spaces, ix.walk.x)
		q := lowRank(200, 128, 10, 0.05, 3) // the same subspace: the first rows of x
		got, err := ix.Query(ctx, q, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		want, err := KNNQuery(ctx, x, q, 10, Options{Algorithm: Brute})
		if err != nil {
			t.Fatal(err)
		}
		if r := Recall(got, want); r < 0.99 {
			t.Errorf("GOMAXPROCS %d: recall@10 %.4f on the principal walk", procs, r)
		}
		for i, d := range got.Dist {
			if d != want.Dist[i] && got.Ind[i] == want.Ind[i] {
				t.Fatalf("reranked distance %v, brute force %v", d, want.Dist[i])
			}
		}
	}
	if !slices.Equal(spaces[0], spaces[1]) {
		t.Fatal("the principal coordinates depend on GOMAXPROCS")
	}
	for _, c := range []struct {
		name string
		x    *mat.Dense
	}{
		{"isotropic", lowRank(2000, 96, 96, 0, 5)},
		{"narrow", lowRank(2000, 32, 4, 0.05, 6)},
	} {
		ix, _, err := NewIndex(ctx, c.x, 10, ApproxOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if ix.walk.axes != nil || ix.v.x == nil || ix.walk.dim != ix.v.dim {
			t.Errorf("%s rows: walked on %d principal coordinates", c.name, ix.walk.dim)
		}
	}
}
