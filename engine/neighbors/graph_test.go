package neighbors_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// The kNN graph against its definition: i–j is an edge iff j is among the
// k nearest of i or (OR) / and (AND) i among those of j, weighted as asked.
func TestKNNGraph(t *testing.T) {
	x := points(200, 3, false, 7)
	k := 6
	nn := reference(x, x, true, euclid)
	in := func(i, j int) bool {
		for _, p := range nn[i][:k] {
			if p.j == j {
				return true
			}
		}
		return false
	}
	for _, rule := range []neighbors.Rule{neighbors.Or, neighbors.And} {
		for _, w := range []neighbors.Weight{neighbors.Distance, neighbors.Heat, neighbors.Binary, neighbors.CosineSimilarity} {
			g, err := neighbors.Graph(ctx, x, neighbors.GraphOptions{K: k, Rule: rule, Weight: w, T: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !g.IsSymmetric(0) {
				t.Fatal("graph not symmetric")
			}
			for i := 0; i < 200; i++ {
				for j := 0; j < 200; j++ {
					edge := in(i, j) || in(j, i)
					if rule == neighbors.And {
						edge = in(i, j) && in(j, i)
					}
					if stored(g, i, j) != edge {
						t.Fatalf("rule %d: edge (%d, %d) = %v, want %v", rule, i, j, stored(g, i, j), edge)
					}
					if !edge {
						continue
					}
					a, b := mat.Row(nil, i, x), mat.Row(nil, j, x)
					d := euclid(a, b)
					want := map[neighbors.Weight]float64{
						neighbors.Distance:         d,
						neighbors.Heat:             math.Exp(-d * d / 2),
						neighbors.Binary:           1,
						neighbors.CosineSimilarity: 1 - cosineDist(a, b),
					}[w]
					if math.Abs(g.At(i, j)-want) > 1e-12 {
						t.Fatalf("weight %d of (%d, %d) = %v, want %v", w, i, j, g.At(i, j), want)
					}
				}
			}
		}
	}
}

func stored(a *sparse.CSR, i, j int) bool {
	cols, _ := a.Row(i)
	for _, c := range cols {
		if c == j {
			return true
		}
	}
	return false
}

func TestEpsGraphAndSupervised(t *testing.T) {
	x := points(150, 2, false, 8)
	eps := 0.4
	g, err := neighbors.Graph(ctx, x, neighbors.GraphOptions{Eps: eps})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 150; i++ {
		for j := 0; j < 150; j++ {
			d := euclid(mat.Row(nil, i, x), mat.Row(nil, j, x))
			if stored(g, i, j) != (i != j && d <= eps) {
				t.Fatalf("ε-graph edge (%d, %d), d = %v", i, j, d)
			}
		}
	}
	// Supervised: three classes; k = 0 joins whole classes.
	labels := make([]int, 150)
	for i := range labels {
		labels[i] = (i * 7) % 3
	}
	full, err := neighbors.Graph(ctx, x, neighbors.GraphOptions{Labels: labels, Weight: neighbors.Binary})
	if err != nil {
		t.Fatal(err)
	}
	if full.NNZ() != 3*50*49 {
		t.Fatalf("k = 0 supervised graph has %d entries, want %d", full.NNZ(), 3*50*49)
	}
	sup, err := neighbors.Graph(ctx, x, neighbors.GraphOptions{Labels: labels, K: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 150; i++ {
		cols, _ := sup.Row(i)
		for _, j := range cols {
			if labels[i] != labels[j] {
				t.Fatalf("edge (%d, %d) joins classes", i, j)
			}
		}
		if len(cols) < 4 {
			t.Fatalf("point %d has %d neighbours", i, len(cols))
		}
	}
	// Within a class the graph is that class's own kNN graph.
	var cls []int
	for i, l := range labels {
		if l == 1 {
			cls = append(cls, i)
		}
	}
	sub := mat.NewDense(len(cls), 2, nil)
	for r, i := range cls {
		sub.SetRow(r, mat.Row(nil, i, x))
	}
	own, err := neighbors.Graph(ctx, sub, neighbors.GraphOptions{K: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(own.ToDense(), sup.Submatrix(cls, cls).ToDense()) {
		t.Fatal("supervised graph differs from the per-class kNN graph")
	}
}

func TestGraphSparseAndErrors(t *testing.T) {
	x := sparse.FromDense(sparsify(points(60, 8, false, 9)))
	g, err := neighbors.GraphSparse(ctx, x, neighbors.GraphOptions{K: 3, Search: neighbors.Options{Metric: neighbors.Cosine}, Weight: neighbors.CosineSimilarity})
	if err != nil {
		t.Fatal(err)
	}
	xd := x.ToDense()
	for i := 0; i < 60; i++ {
		cols, vals := g.Row(i)
		for c, j := range cols {
			if want := 1 - cosineDist(mat.Row(nil, i, xd), mat.Row(nil, j, xd)); math.Abs(vals[c]-want) > 1e-12 {
				t.Fatalf("cosine weight (%d, %d) = %v, want %v", i, j, vals[c], want)
			}
		}
	}
	d := points(10, 2, false, 1)
	for name, opt := range map[string]neighbors.GraphOptions{
		"no k":          {},
		"k = n":         {K: 10},
		"ε NaN":         {Eps: math.NaN()},
		"labels length": {K: 2, Labels: []int{1, 2}},
		"heat t < 0":    {K: 2, Weight: neighbors.Heat, T: -1},
	} {
		if _, err := neighbors.Graph(ctx, d, opt); !errors.Is(err, neighbors.ErrInput) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// User graphs.
	good, _ := neighbors.Graph(ctx, d, neighbors.GraphOptions{K: 2})
	if err := neighbors.ValidateGraph(good, 10, true); err != nil {
		t.Error(err)
	}
	c := sparse.NewCOO(3, 3, 0)
	c.Add(0, 1, 1)
	if err := neighbors.ValidateGraph(c.ToCSR(), 3, true); !errors.Is(err, neighbors.ErrInput) {
		t.Errorf("asymmetric: %v", err)
	}
	if err := neighbors.ValidateGraph(c.ToCSR(), 3, false); err != nil {
		t.Errorf("asymmetric allowed: %v", err)
	}
	c.Add(1, 0, -1)
	if err := neighbors.ValidateGraph(c.ToCSR(), 3, false); !errors.Is(err, neighbors.ErrInput) {
		t.Errorf("negative: %v", err)
	}
	if err := neighbors.ValidateGraph(sparse.Zero(3, 4), -1, false); !errors.Is(err, neighbors.ErrInput) {
		t.Errorf("not square: %v", err)
	}
	if err := neighbors.ValidateGraph(sparse.Zero(3, 3), 4, false); !errors.Is(err, neighbors.ErrInput) {
		t.Errorf("size: %v", err)
	}
}

// Three clusters far apart: a k = 3 graph falls in three components.
func clusters() *mat.Dense {
	x := points(90, 2, false, 10)
	for i := 0; i < 90; i++ {
		x.Set(i, 0, x.At(i, 0)+float64(i/30)*100)
	}
	return x
}

func TestDisconnectedPolicies(t *testing.T) {
	x := clusters()
	g, err := neighbors.Graph(ctx, x, neighbors.GraphOptions{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	_, sizes := sparse.ConnectedComponents(g)
	if len(sizes) < 3 {
		t.Skipf("test data has %d components", len(sizes))
	}
	_, err = neighbors.FixDisconnected(ctx, x, g, neighbors.DisconnectedError, neighbors.Options{})
	if !errors.Is(err, neighbors.ErrDisconnected) || !strings.Contains(err.Error(), "connect") || !strings.Contains(err.Error(), "largest") {
		t.Fatalf("error policy: %v", err)
	}
	// connect: the closest pair of every two components, as scikit-learn.
	f, err := neighbors.FixDisconnected(ctx, x, g, neighbors.DisconnectedConnect, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sparse.CheckConnected(f.Graph) != nil || !f.Graph.IsSymmetric(0) {
		t.Fatal("connect left the graph disconnected or asymmetric")
	}
	c := len(sizes)
	if f.Added != c*(c-1)/2 || f.Components != c || f.Graph.NNZ() != g.NNZ()+2*f.Added {
		t.Fatalf("connect added %d edges to %d components (nnz %d → %d)", f.Added, f.Components, g.NNZ(), f.Graph.NNZ())
	}
	for i := 0; i < 90; i++ { // g's own edges kept as they were
		cols, vals := g.Row(i)
		for p, j := range cols {
			if got := f.Graph.At(i, j); got != vals[p] {
				t.Fatalf("connect changed edge (%d, %d): %v, was %v", i, j, got, vals[p])
			}
		}
	}
	labels, _ := sparse.ConnectedComponents(g)
	for a := 0; a < c; a++ {
		for b := 0; b < a; b++ {
			best, bi, bj := math.Inf(1), -1, -1
			for i := 0; i < 90; i++ {
				for j := 0; j < 90; j++ {
					if labels[i] == a && labels[j] == b {
						if d := euclid(mat.Row(nil, i, x), mat.Row(nil, j, x)); d < best {
							best, bi, bj = d, i, j
						}
					}
				}
			}
			if f.Graph.At(bi, bj) != best || f.Graph.At(bj, bi) != best {
				t.Fatalf("components %d, %d: no edge (%d, %d) of weight %v", a, b, bi, bj, best)
			}
		}
	}
	// largest.
	f, err = neighbors.FixDisconnected(ctx, nil, g, neighbors.DisconnectedLargest, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Kept)+len(f.Dropped) != 90 || sparse.CheckConnected(f.Graph) != nil {
		t.Fatalf("largest: kept %d dropped %d", len(f.Kept), len(f.Dropped))
	}
	// A connected graph passes unchanged.
	f, err = neighbors.FixDisconnected(ctx, nil, f.Graph, neighbors.DisconnectedError, neighbors.Options{})
	if err != nil || f.Components != 1 {
		t.Fatal(err)
	}
	for s, want := range map[string]neighbors.Disconnected{"": neighbors.DisconnectedError, "error": neighbors.DisconnectedError, "connect": neighbors.DisconnectedConnect, "largest": neighbors.DisconnectedLargest} {
		if p, err := neighbors.ParseDisconnected(s); err != nil || p != want || (s != "" && p.String() != s) {
			t.Errorf("ParseDisconnected(%q) = %v, %v", s, p, err)
		}
	}
	if _, err := neighbors.ParseDisconnected("ignore"); !errors.Is(err, neighbors.ErrInput) {
		t.Error("ParseDisconnected accepted a bad name")
	}
	// Sparse data, connect.
	xs := sparse.FromDense(x)
	fs, err := neighbors.FixDisconnectedSparse(ctx, xs, g, neighbors.DisconnectedConnect, neighbors.Options{})
	if err != nil || sparse.CheckConnected(fs.Graph) != nil {
		t.Fatalf("sparse connect: %v", err)
	}
}
