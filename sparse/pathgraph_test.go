package sparse

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// TestSeededPathsToMatchesAugmentedGraph checks SeededPathsTo against
// MultiSourceShortestPaths on the graph with the new vertex added
// explicitly (an independent construction), and against Floyd–Warshall.
func TestSeededPathsToMatchesAugmentedGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 120
	coo := NewCOO(n, n, 0)
	for i := 0; i < n; i++ {
		for c := 0; c < 3; c++ {
			j := rng.IntN(n)
			w := rng.Float64()
			coo.Add(i, j, w)
			coo.Add(j, i, w)
		}
	}
	g := coo.ToCSR()
	pg, err := NewPathGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	for trial := 0; trial < 20; trial++ {
		seeds := []int{rng.IntN(n), rng.IntN(n), rng.IntN(n), rng.IntN(n)}
		seeds = append(seeds, seeds[0]) // a repeated seed
		lens := []float64{rng.Float64(), rng.Float64(), 0, rng.Float64(), 2}
		// The augmented graph: vertex n with edges to the seeds.
		aug := NewCOO(n+1, n+1, 0)
		for i := 0; i < n; i++ {
			for p := g.indptr[i]; p < g.indptr[i+1]; p++ {
				aug.Add(i, g.ind[p], g.data[p])
			}
		}
		best := map[int]float64{}
		for i, s := range seeds {
			if d, ok := best[s]; !ok || lens[i] < d {
				best[s] = lens[i]
			}
		}
		for s, d := range best {
			aug.Add(n, s, d)
		}
		want := blas64.General{Rows: 1, Cols: n + 1, Stride: n + 1, Data: make([]float64, n+1)}
		if err := MultiSourceShortestPaths(context.Background(), aug.ToCSR(), []int{n}, want, PathOptions{Squared: true}); err != nil {
			t.Fatal(err)
		}
		fw := blas64.General{Rows: n + 1, Cols: n + 1, Stride: n + 1, Data: make([]float64, (n+1)*(n+1))}
		if err := FloydWarshall(aug.ToCSR(), fw); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, n)
		sum, err := pg.SeededPathsTo(got, seeds, lens, true)
		if err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for j := 0; j < n; j++ {
			if got[j] != want.Data[j] && !(math.IsInf(got[j], 1) && math.IsInf(want.Data[j], 1)) {
				t.Fatalf("trial %d: vertex %d: %v, augmented graph %v", trial, j, got[j], want.Data[j])
			}
			if f := fw.Data[n*fw.Stride+j]; math.Abs(f*f-got[j]) > 1e-12*(1+f*f) {
				t.Fatalf("trial %d: vertex %d: %v, Floyd–Warshall %v", trial, j, got[j], f*f)
			}
			s += got[j]
		}
		if sum != s && !math.IsInf(s, 1) {
			t.Fatalf("sum %v, want %v", sum, s)
		}
	}
	if _, err := pg.SeededPathsTo(make([]float64, n), []int{0}, []float64{math.NaN()}, false); !errors.Is(err, ErrInvalid) {
		t.Fatalf("NaN length: %v, want ErrInvalid", err)
	}
}

// A seed that is an isolated vertex numbered last in the search order
// (its record is empty and ends the graph's storage) is searched without
// reading past the graph: a regression test for an index out of range.
func TestSeededPathsToIsolatedLastVertex(t *testing.T) {
	c := NewCOO(3, 3, 2)
	c.Add(0, 1, 1)
	c.Add(1, 0, 1)
	pg, err := NewPathGraph(c.ToCSR())
	if err != nil {
		t.Fatal(err)
	}
	if got := pg.g.perm[2]; got != 2 {
		t.Fatalf("vertex 2 is at position %d of the order, the test wants it last", got)
	}
	dst := make([]float64, 3)
	if _, err := pg.SeededPathsTo(dst, []int{0, 2}, []float64{0, 5}, false); err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 1, 5}; dst[0] != want[0] || dst[1] != want[1] || dst[2] != want[2] {
		t.Fatalf("distances %v, want %v", dst, want)
	}
}
