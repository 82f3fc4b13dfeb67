package neighbors

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// A Searcher answers, bit for bit, as the searches that build their k-d
// tree for every call (knnDense, radiusDense) do, with its tree built
// once: low-dimensional rows (the tree), wide rows (brute
// force), one query and many, duplicates, the cosine metric, concurrent
// callers.
func TestSearcherMatchesQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(4, 5))
	random := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				m.Set(i, j, float64(rng.IntN(9))+0.1*rng.NormFloat64())
			}
		}
		return m
	}
	low, wide := random(3000, 3), random(800, 60)
	for i := 0; i < 40; i++ { // duplicates
		low.SetRow(2000+i, low.RawRowView(i))
	}
	same := func(a, b *Result) bool {
		return slices.Equal(a.Ptr, b.Ptr) && slices.Equal(a.Ind, b.Ind) && slices.Equal(a.Dist, b.Dist)
	}
	for _, c := range []struct {
		name string
		data *mat.Dense
		opt  Options
		eps  float64
	}{
		{"3-D", low, Options{}, 0.8},
		{"60-D", wide, Options{}, 9},
		{"3-D cosine", low, Options{Metric: Cosine}, 0.01},
		{"3-D NN-descent option", low, Options{Algorithm: NNDescent}, 0.8},
	} {
		s, err := NewSearcher(c.data, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		_, d := c.data.Dims()
		for _, m := range []int{1, 7, 500} {
			q := random(m, d)
			q.SetRow(0, c.data.RawRowView(3)) // a query equal to a row
			for _, k := range []int{1, 10} {
				want, err := knnDense(ctx, c.data.RawMatrix(), q.RawMatrix(), k, false, c.opt)
				if err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				for range 3 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						got, err := s.KNN(ctx, q, k)
						if err != nil || !same(got, want) {
							t.Errorf("%s, %d queries, k = %d: the Searcher's answer differs from a search with a tree of its own (%v)", c.name, m, k, err)
						}
					}()
				}
				wg.Wait()
			}
			if c.opt.Metric == Cosine {
				continue // the radius searches are Euclidean's
			}
			want, err := radiusDense(ctx, c.data.RawMatrix(), q.RawMatrix(), c.eps, false, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := s.Radius(ctx, q, c.eps); err != nil || !same(got, want) {
				t.Errorf("%s, %d queries: the Searcher's radius answer differs from a search with a tree of its own (%v)", c.name, m, err)
			}
		}
		tree := s.tree
		if _, err := s.KNN(ctx, random(500, d), 10); err != nil {
			t.Fatal(err)
		}
		if s.tree != tree {
			t.Errorf("%s: the tree was built again", c.name)
		}
		if wantTree := c.name == "3-D" || c.name == "3-D NN-descent option"; (tree != nil) != wantTree {
			t.Errorf("%s: tree built %v, want %v", c.name, tree != nil, wantTree)
		}
	}
	s, _ := NewSearcher(low, Options{})
	if _, err := s.KNN(ctx, random(2, 4), 3); err == nil {
		t.Error("queries of another width: no error")
	}
	if _, err := s.KNN(ctx, random(2, 3), 3001); err == nil {
		t.Error("k > rows: no error")
	}
	if _, err := s.Radius(ctx, random(2, 3), -1); err == nil {
		t.Error("ε < 0: no error")
	}
}
