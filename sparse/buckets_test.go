package sparse_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// The bucket search gives Dijkstra's heap's distances bit for bit, on
// graphs that suit it and on graphs where it gives up, and whichever it
// does, the public routines return the heap's distances.
func TestBucketsMatchHeap(t *testing.T) {
	roll, _ := datasets.SwissRoll(3000, 0.05, 2)
	rollGraph, err := neighbors.Graph(context.Background(), roll, neighbors.GraphOptions{K: 10})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		g      *sparse.CSR
		gaveUp bool
	}{
		{"swiss roll kNN", rollGraph, false},
		{"duplicated points (zero weights)", duplicated(geometricGraph(600, 6, 4)), false},
		{"integer weights, many ties", integerWeights(geometricGraph(800, 5, 5)), false},
		{"heavy outliers (bucket width raised)", outliers(geometricGraph(800, 6, 6), 1e7), false},
		{"two components", twoComponents(geometricGraph(400, 5, 7)), false},
		// Light edges almost everywhere and a few long ones: the ring of
		// 2¹⁶ buckets makes the width 1/65533 of the longest edge, so a
		// search would look at some 10⁶ mostly empty buckets per source:
		// past its budget, it gives up and the heap runs.
		{"gives up", tinyAndHuge(2000), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, _ := c.g.Dims()
			src := []int{0, n / 3, n - 1}
			want, gaveUp := sparse.HeapShortestPaths(c.g, src)
			if gaveUp != c.gaveUp {
				t.Fatalf("bucket search gave up: %v, want %v", gaveUp, c.gaveUp)
			}
			got := general(len(src), n)
			if err := sparse.MultiSourceShortestPaths(context.Background(), c.g, src, got, sparse.PathOptions{}); err != nil {
				t.Fatal(err)
			}
			for r := range src {
				for j := 0; j < n; j++ {
					a, b := got.Data[r*n+j], want[r][j]
					if math.Float64bits(a) != math.Float64bits(b) {
						t.Fatalf("source %d, vertex %d: %v, heap %v", src[r], j, a, b)
					}
				}
			}
			// The prepared graph's seeded search, several seeds at once.
			pg, err := sparse.NewPathGraph(c.g)
			if err != nil {
				t.Fatal(err)
			}
			dst := make([]float64, n)
			if _, err := pg.SeededPathsTo(dst, []int{src[1]}, []float64{0}, false); err != nil {
				t.Fatal(err)
			}
			for j := range dst {
				if math.Float64bits(dst[j]) != math.Float64bits(want[1][j]) {
					t.Fatalf("SeededPathsTo, vertex %d: %v, heap %v", j, dst[j], want[1][j])
				}
			}
		})
	}
}

// duplicated adds a copy of every third vertex joined to it by an edge of
// weight 0 and to its neighbours by the same weights.
func duplicated(g *sparse.CSR) *sparse.CSR {
	n, _ := g.Dims()
	m := n + n/3
	c := sparse.NewCOO(m, m, 3*g.NNZ())
	twin := func(i int) int {
		if i%3 == 0 && i/3 < n/3 {
			return n + i/3
		}
		return -1
	}
	for i := 0; i < n; i++ {
		cols, vals := g.Row(i)
		for p, j := range cols {
			c.Add(i, j, vals[p])
			if t := twin(i); t >= 0 {
				c.Add(t, j, vals[p])
				c.Add(j, t, vals[p])
			}
		}
		if t := twin(i); t >= 0 {
			c.Add(i, t, 0)
			c.Add(t, i, 0)
		}
	}
	return c.ToCSR()
}

// integerWeights rounds 20·w up to an integer: sums exact, ties everywhere.
func integerWeights(g *sparse.CSR) *sparse.CSR {
	return g.Map(func(_, _ int, w float64) float64 { return math.Ceil(20 * w) })
}

// outliers multiplies the weight of a few edges (both directions) by f.
func outliers(g *sparse.CSR, f float64) *sparse.CSR {
	return g.Map(func(i, j int, w float64) float64 {
		if (i*7+j*7)%97 == 0 {
			return w * f
		}
		return w
	})
}

// twoComponents drops every edge between the lower and upper halves.
func twoComponents(g *sparse.CSR) *sparse.CSR {
	n, _ := g.Dims()
	c := sparse.NewCOO(n, n, g.NNZ())
	for i := 0; i < n; i++ {
		cols, vals := g.Row(i)
		for p, j := range cols {
			if (i < n/2) == (j < n/2) {
				c.Add(i, j, vals[p])
			}
		}
	}
	return c.ToCSR()
}

// tinyAndHuge is a ring of n vertices with edges of weight 1e-9 (random
// in [1, 2)·1e-9) except every tenth, of weight 1.
func tinyAndHuge(n int) *sparse.CSR {
	rng := rand.New(rand.NewPCG(8, 8))
	c := sparse.NewCOO(n, n, 2*n)
	for i := 0; i < n; i++ {
		w := (1 + rng.Float64()) * 1e-9
		if i%10 == 0 {
			w = 1
		}
		j := (i + 1) % n
		c.Add(i, j, w)
		c.Add(j, i, w)
	}
	return c.ToCSR()
}
