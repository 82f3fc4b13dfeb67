package neighbors_test

import (
	"context"
	"fmt"
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// TestExactSearchMatchesBruteForce checks the pruned search's neighbours
// (indices and distances) against engine/neighbors' brute force, with and
// without graph seeds (a true neighbour graph, and one of arbitrary edges:
// seeds may only speed the search up).
func TestExactSearchMatchesBruteForce(t *testing.T) {
	t.Parallel()
	type scaled struct {
		d     int
		scale float64
	}
	// Unit data in 2, 17, 64 and 100 dimensions (100: the bounds on 64
	// principal directions and a residual), 64 dimensions scaled to 1e-30,
	// 1e20 and 1e-200, and 100 dimensions where every row appears three
	// times and the queries include training rows (ties at distance 0 and
	// between equal rows).
	cases := []scaled{{2, 1}, {17, 1}, {64, 1}, {100, 1}, {64, 1e-30}, {64, 1e20}, {64, 1e-200}, {-100, 1}}
	if testmode.Quick() { // -race: one case of each code path (low, middle and wide rows; repeated rows)
		cases = []scaled{{2, 1}, {17, 1}, {100, 1}, {-100, 1}}
	}
	for _, c := range cases {
		d := c.d
		x := gaussian(700, max(d, -d), uint64(max(d, -d)))
		q := gaussian(80, max(d, -d), uint64(max(d, -d))+100)
		if d < 0 {
			d = -d
			for i := 0; i < 700; i++ {
				x.SetRow(i, x.RawRowView(i%233))
			}
			for i := 0; i < 40; i++ {
				q.SetRow(i, x.RawRowView(7*i))
			}
		}
		x.Scale(c.scale, x)
		q.Scale(c.scale, q)
		for j := 0; j < d; j++ { // a query far from everything
			q.Set(79, j, 50*c.scale)
		}
		graph, err := neighbors.KNN(context.Background(), x, 6, neighbors.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := resultGraph(t, graph)
		arbitrary := sparse.NewCOO(700, 700, 5*700)
		for i := 0; i < 5*700; i++ {
			arbitrary.Add(i/5, (i*7919+13)%700, 1)
		}
		for seeds, gr := range []*sparse.CSR{nil, g, arbitrary.ToCSR()} {
			s := neighbors.NewExact(x.RawMatrix())
			if gr != nil {
				s.SeedWith(gr)
			}
			var sc neighbors.ExactScratch
			for _, k := range []int{1, 5, 12, 70} {
				nb, err := neighbors.KNNQuery(context.Background(), x, q, k, neighbors.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 80; i++ {
					js, ds := s.KNN(&sc, q.RawRowView(i), k)
					wj, wd := nb.Row(i)
					if fmt.Sprint(js) != fmt.Sprint(wj) {
						t.Fatalf("d=%d scale %g seeds %d k=%d query %d: neighbours %v, brute force %v", d, c.scale, seeds, k, i, js, wj)
					}
					for c := range ds {
						if math.Abs(ds[c]-wd[c]) > 1e-12*wd[c] {
							t.Fatalf("d=%d k=%d query %d: distances %v, brute force %v", d, k, i, ds, wd)
						}
					}
				}
			}
			eps := 0.5 * math.Sqrt(float64(4)) * c.scale // a few neighbours each
			nb, err := neighbors.RadiusQuery(context.Background(), x, q, eps, neighbors.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 80; i++ {
				js, _ := s.Radius(&sc, q.RawRowView(i), eps)
				js = append([]int(nil), js...)
				sort.Ints(js)
				wj, _ := nb.Row(i)
				wj = append([]int(nil), wj...)
				sort.Ints(wj)
				if fmt.Sprint(js) != fmt.Sprint(wj) {
					t.Fatalf("d=%d radius query %d: %v, brute force %v", d, i, js, wj)
				}
			}
		}
	}
}

// TestExactSearchUSPS checks the search on real digits (USPS: constant
// border pixels, near-duplicate images) against brute force, seeded with
// the training rows' own neighbour graph as the Isomap model seeds it.
func TestExactSearchUSPS(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "brute force on 7291 digits (TestExactSearchMatchesBruteForce runs the search under -race)")
	all := usps(t, 7691)
	train := mat.DenseCopyOf(all.Slice(0, 7291, 0, 256))
	q := mat.DenseCopyOf(all.Slice(7291, 7691, 0, 256))
	ctx := context.Background()
	want, err := neighbors.KNNQuery(ctx, train, q, 10, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	graph, err := neighbors.KNN(ctx, train, 10, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := neighbors.NewExact(train.RawMatrix())
	s.SeedWith(resultGraph(t, graph))
	var sc neighbors.ExactScratch
	for i := 0; i < 400; i++ {
		js, ds := s.KNN(&sc, q.RawRowView(i), 10)
		wj, wd := want.Row(i)
		if fmt.Sprint(js) != fmt.Sprint(wj) {
			t.Fatalf("query %d: neighbours %v, brute force %v", i, js, wj)
		}
		for c := range ds {
			if math.Abs(ds[c]-wd[c]) > 1e-12*wd[c] {
				t.Fatalf("query %d: distances %v, brute force %v", i, ds, wd)
			}
		}
	}
}

// resultGraph is the graph of the neighbour lists (row i: its neighbours,
// value = distance).
func resultGraph(t *testing.T, nb *neighbors.Result) *sparse.CSR {
	t.Helper()
	g, err := neighbors.ListsCSR(context.Background(), nb)
	if err != nil || g == nil {
		t.Fatalf("the lists' graph: %v", err)
	}
	return g
}
