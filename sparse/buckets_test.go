package sparse_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// pathCase is a graph the shortest-path tests run on: whether the bucket
// search gives up on it and whether its sums are exact (integer weights).
type pathCase struct {
	name          string
	g             *sparse.CSR
	gaveUp, exact bool
	// long: the all-pairs tests skip it under -short (the race step),
	// as they skip graphs of more than 1000 vertices.
	long bool
}

// skipLongUnderShort skips an all-pairs test of c under -short (the race
// step: the parallel paths are the same on the smaller graphs).
func skipLongUnderShort(t *testing.T, c pathCase) {
	if n, _ := c.g.Dims(); testmode.Quick() && (n > 1000 || c.long) {
		t.Skip("the quick tier (and -short, CI's race step) keeps the all-pairs tests' graphs of up to 1000 vertices, heavy outliers left out; MANIFOLD_TEST=full runs them all")
	}
}

// pathCases are the graphs of the shortest-path tests: a swiss-roll kNN
// graph and graphs with zero weights, ties, outliers, two components,
// one-way edges, a hub and weights the buckets do not suit.
func pathCases(t testing.TB) []pathCase {
	roll, _ := datasets.SwissRoll(3000, 0.05, 2)
	rollGraph, err := neighbors.Graph(context.Background(), roll, neighbors.GraphOptions{K: 10})
	if err != nil {
		t.Fatal(err)
	}
	return []pathCase{
		{name: "swiss roll kNN", g: rollGraph},
		{name: "duplicated points (zero weights)", g: duplicated(geometricGraph(600, 6, 4))},
		{name: "integer weights, many ties", g: integerWeights(geometricGraph(800, 5, 5)), exact: true},
		{name: "heavy outliers (bucket width raised)", g: outliers(geometricGraph(800, 6, 6), 1e7), long: true},
		{name: "two components", g: twoComponents(geometricGraph(400, 5, 7))},
		// Every vertex joined to vertex 0: its row lies farther back than
		// the float32 all-pairs output's window.
		{name: "hub", g: hub(geometricGraph(1500, 4, 10))},
		{name: "directed", g: oneWay(geometricGraph(700, 6, 9))},
		// Light edges almost everywhere and a few long ones: the ring of
		// 2¹⁶ buckets makes the width 1/65533 of the longest edge, so a
		// search would look at some 10⁶ mostly empty buckets per source:
		// past its budget, it gives up and the heap runs.
		{name: "gives up", g: tinyAndHuge(2000), gaveUp: true},
	}
}

// The bucket search gives Dijkstra's heap's distances bit for bit, on
// graphs that suit it and on graphs where it gives up, and whichever it
// does, the public routines return the heap's distances.
func TestBucketsMatchHeap(t *testing.T) {
	t.Parallel()
	for _, c := range pathCases(t) {
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

// A search stops within 100 ms of a cancel wherever the cancel lands: in
// the graph's preparation (validation, breadth-first order, the reordered
// copy) or in the search itself, by buckets or, where the buckets give up,
// by the heap; and a cancelled call returns the context's error, never a
// partly written result without one.
func TestShortestPathsCancelLatency(t *testing.T) {
	r, c := 1000, 1000 // 10⁶ vertices: the preparation and a search take 100–300 ms each
	if testmode.Quick() {
		r, c = 300, 200
	}
	for _, heap := range []bool{false, true} {
		g := gridGraph(r, c, heap)
		n, _ := g.Dims()
		src := []int{n / 2, 0, n - 1, n / 3, 2 * n / 3, c}
		out := make([]float32, len(src)*n)
		start := time.Now()
		if err := sparse.MultiSourceShortestPaths32(context.Background(), g, src, out, n, sparse.PathOptions{}); err != nil {
			t.Fatal(err)
		}
		whole := time.Since(start)
		if !heap {
			if _, gaveUp := sparse.HeapShortestPaths(g, src); gaveUp {
				t.Fatal("the bucket search gave up on the grid with weights in [1, 2)")
			}
		}
		checkCancelLatency(t, whole, []float64{0.1, 0.5, 0.85}, func(ctx context.Context, _ time.Duration) bool {
			err := sparse.MultiSourceShortestPaths32(ctx, g, src, out, n, sparse.PathOptions{})
			if err == nil {
				return false
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			return true
		})
	}
}

// A search under a cancelled context stops after about 10⁵ steps, by
// buckets and by the heap, and the graph's preparation refuses to start.
func TestSearchStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	r, most := 1000, 0.05 // 10⁶ vertices, about 5 steps each
	if testmode.Quick() {
		r, most = 600, 0.15 // -race
	}
	g := gridGraph(r, r, false)
	n := r * r
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, heap := range []bool{false, true} {
		stopped, reach := sparse.StoppedSearchReach(ctx, g, n/2, heap)
		if !stopped || reach > most {
			t.Errorf("heap %v: stopped %v after reaching %.1f %% of %d vertices, want stopped before %.0f %%", heap, stopped, 100*reach, n, 100*most)
		}
		if stopped, reach := sparse.StoppedSearchReach(context.Background(), g, n/2, heap); stopped || reach != 1 {
			t.Errorf("heap %v, not cancelled: stopped %v, reached %.1f %%", heap, stopped, 100*reach)
		}
	}
	if err := sparse.MultiSourceShortestPaths32(ctx, g, []int{0}, make([]float32, n), n, sparse.PathOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the preparation: %v", err)
	}
}

// gridGraph is the r×c grid, each edge in both directions with a weight
// in [1, 2) — or, with heap, weight 1 on every tenth edge and about 10⁻⁹
// on the others, where the bucket search gives up for the heap.
func gridGraph(r, c int, heap bool) *sparse.CSR {
	rng := rand.New(rand.NewPCG(11, 12))
	coo := sparse.NewCOO(r*c, r*c, 4*r*c)
	e := 0
	add := func(a, b int) {
		w := 1 + rng.Float64()
		if heap {
			w = (1 + rng.Float64()) * 1e-9
			if e%10 == 0 {
				w = 1
			}
		}
		e++
		coo.Add(a, b, w)
		coo.Add(b, a, w)
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := i*c + j
			if j+1 < c {
				add(v, v+1)
			}
			if i+1 < r {
				add(v, v+c)
			}
		}
	}
	return coo.ToCSR()
}
