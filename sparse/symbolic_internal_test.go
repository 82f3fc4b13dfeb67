package sparse

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// symbolicByRows is the analysis the counts replaced: every row's subtree
// of the elimination tree walked entry by entry (Davis, "Algorithm 849",
// ACM TOMS 31(4), 2005), the tree found on the way. Time proportional to
// the factor's entries; the reference for symbolicLDL.
func symbolicByRows(a *CSR, perm, inv []int32) (parent []int32, counts []int) {
	n := a.r
	parent = make([]int32, n)
	flag := make([]int32, n)
	counts = make([]int, n)
	for k := 0; k < n; k++ {
		parent[k] = -1
		flag[k] = int32(k)
		v := perm[k]
		for _, w := range a.ind[a.indptr[v]:a.indptr[v+1]] {
			for i := inv[w]; i < int32(k) && flag[i] != int32(k); i = parent[i] {
				if parent[i] == -1 {
					parent[i] = int32(k)
				}
				counts[i]++
				flag[i] = int32(k)
			}
		}
	}
	return parent, counts
}

// The elimination tree and column counts from the row subtrees' leaves
// are those of the walk through every row subtree, on patterns with
// disconnected parts, isolated and dense vertices, duplicates-free random
// graphs, grids, cliques and the empty matrix, under AMD's, RCM's and
// random orders; the flam and the entry limit follow the counts, and the
// postorder handed on is the tree's.
func TestSymbolicCountsMatchRowWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	random := func(n, m int, hub bool) *CSR {
		c := NewCOO(n, n, 0)
		for i := range n {
			c.Add(i, i, 1)
		}
		for range m {
			i, j := rng.IntN(n), rng.IntN(n)
			if i != j {
				c.Add(i, j, 1)
				c.Add(j, i, 1)
			}
		}
		if hub {
			for j := 1; j < n; j += 2 {
				c.Add(0, j, 1)
				c.Add(j, 0, 1)
			}
		}
		a := c.ToCSR()
		return a
	}
	grid := func(r, c int) *CSR {
		m := NewCOO(r*c, r*c, 0)
		for i := range r {
			for j := range c {
				v := i*c + j
				m.Add(v, v, 4)
				if i+1 < r {
					m.Add(v, v+c, -1)
					m.Add(v+c, v, -1)
				}
				if j+1 < c {
					m.Add(v, v+1, -1)
					m.Add(v+1, v, -1)
				}
			}
		}
		return m.ToCSR()
	}
	mats := map[string]*CSR{
		"empty":                 Zero(0, 0),
		"one":                   Identity(1),
		"diagonal":              Identity(50),
		"random sparse":         random(300, 400, false),
		"random with a hub":     random(400, 900, true),
		"random, disconnected":  random(500, 200, false),
		"random dense":          random(120, 3000, false),
		"grid 30×40":            grid(30, 40),
		"grid and a clique hub": random(60, 2000, true),
	}
	for name, a := range mats {
		n := a.r
		orders := map[string][]int32{}
		if n > 0 {
			orders["amd"], _ = approximateMinimumDegree(&stopper{}, a)
			orders["rcm"], _ = rcm(&stopper{}, a)
		}
		nat := make([]int32, n)
		for i := range nat {
			nat[i] = int32(i)
		}
		orders["natural"] = nat
		shuffled := slices.Clone(nat)
		rng.Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		orders["random"] = shuffled
		for oname, perm := range orders {
			inv := make([]int32, n)
			for k, v := range perm {
				inv[v] = int32(k)
			}
			s, post := symbolicLDL(&stopper{}, a, perm, inv)
			if !slices.Equal(post, etreePostorder(s.parent)) {
				t.Fatalf("%s, %s order: the postorder handed on is not the tree's", name, oname)
			}
			parent, counts := symbolicByRows(a, perm, inv)
			if !slices.Equal(s.parent, parent) {
				t.Fatalf("%s, %s order: the elimination trees differ", name, oname)
			}
			flam := 0.0
			for j, c := range counts {
				if got := s.colStart[j+1] - s.colStart[j]; got != c {
					t.Fatalf("%s, %s order: column %d has %d entries, the row walk counts %d", name, oname, j, got, c)
				}
				flam += float64(columnFlam(c))
			}
			if s.flam != flam {
				t.Errorf("%s, %s order: %g flam, the row walk's counts give %g", name, oname, s.flam, flam)
			}
			// The limit: one entry short of the total stops it; the total
			// itself does not.
			if nnz := s.colStart[n]; nnz > 0 {
				exact, short := &stopper{limit: int64(nnz)}, &stopper{limit: int64(nnz - 1)}
				symbolicLDL(exact, a, perm, inv)
				symbolicLDL(short, a, perm, inv)
				if exact.over {
					t.Errorf("%s, %s order: a limit of exactly %d entries refused it", name, oname, nnz)
				}
				if !short.over {
					t.Errorf("%s, %s order: a limit of %d entries, one short, let it pass", name, oname, nnz-1)
				}
			}
		}
	}
}
