package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// GraphWeight says what an edge i–j of the neighbour graph weighs in the
// methods built on a weighted graph (LPP, Laplacian eigenmaps).
type GraphWeight string

const (
	// WeightHeat is the heat kernel exp(−d_ij²/t) (Belkin & Niyogi 2001
	// variant (a) of the weights; He & Niyogi 2003), with t = T or,
	// when T is 0, the mean of d_ij² over the edges of the graph. The
	// default.
	WeightHeat GraphWeight = ""
	// WeightBinary is 1 on every edge (Belkin & Niyogi's "simple-minded"
	// variant (b)).
	WeightBinary GraphWeight = "binary"
	// WeightConnectivity is ½·(a_ij + a_ji) with a_ij = 1 when j is among
	// the K nearest neighbours of i: 1 for mutual neighbours, ½ for
	// one-sided ones. It is scikit-learn's SpectralEmbedding affinity
	// ("nearest_neighbors": kneighbors_graph symmetrized as ½(A + Aᵀ)).
	// On an ε-graph or a whole-class supervised graph every edge is
	// mutual (1); an edge added by DisconnectedConnect weighs ½.
	WeightConnectivity GraphWeight = "connectivity"
	// WeightCosine is the cosine similarity x_i·x_j/(‖x_i‖‖x_j‖) (0 when
	// either row is zero), the weight of LPP on documents (Cai, He & Han,
	// "Document clustering using locality preserving indexing", 2005).
	WeightCosine GraphWeight = "cosine"
)

func (w GraphWeight) check(method string) error {
	switch w {
	case WeightHeat, WeightBinary, WeightConnectivity, WeightCosine:
		return nil
	}
	return fmt.Errorf("%s: %w: graph weight %q (want heat, binary, connectivity or cosine)", method, ErrBadSetting, string(w))
}

func (w GraphWeight) String() string {
	if w == WeightHeat {
		return "heat"
	}
	return string(w)
}

// weightNamed returns the graph weight whose String is s.
func weightNamed(s string) GraphWeight {
	if s == "heat" {
		return WeightHeat
	}
	return GraphWeight(s)
}

// weighGraph is reweight of the graph of spec in a stage, which says the
// heat kernel's t: the neighbours a vertex chose are spec's k, none (every
// edge mutual) for an ε-graph or a whole-class supervised graph.
func weighGraph(st *stageCtx, g *sparse.CSR, in samples, w GraphWeight, t float64, spec graphSpec) (*sparse.CSR, float64) {
	k := spec.k
	if spec.eps > 0 || (spec.labels != nil && spec.k == 0) {
		k = 0
	}
	wg, t := reweight(g, in, w, t, k)
	if w == WeightHeat {
		st.detail = fmt.Sprintf("heat kernel, t = %.4g", t)
	}
	return wg, t
}

// reweight turns a graph whose values are distances (the graph of
// inputGraph, after the disconnected policy) into the weighted graph w. in
// holds the graph's vertices as rows (for cosine weights); k is the number
// of neighbours each vertex chose (0 for ε-graphs and whole-class graphs:
// every edge counts as mutual). For the heat kernel it returns the t used.
func reweight(g *sparse.CSR, in samples, w GraphWeight, t float64, k int) (*sparse.CSR, float64) {
	switch w {
	case WeightHeat:
		if t == 0 {
			t = neighbors.HeatWidth(g)
		}
		return g.Map(func(_, _ int, d float64) float64 { return math.Exp(-d * d / t) }), t
	case WeightBinary:
		return g.Map(func(_, _ int, _ float64) float64 { return 1 }), 0
	case WeightCosine:
		n, _ := g.Dims()
		norm := make([]float64, n)
		for i := range norm {
			norm[i] = math.Sqrt(in.dot(i, i))
		}
		return g.Map(func(i, j int, _ float64) float64 {
			if norm[i] == 0 || norm[j] == 0 {
				return 0
			}
			return in.dot(i, j) / (norm[i] * norm[j])
		}), 0
	}
	// Connectivity: recover each vertex's own k nearest as the k smallest
	// (distance, index) entries of its row — the order the neighbour search
	// uses — and count each direction ½.
	if k == 0 {
		return g.Map(func(_, _ int, _ float64) float64 { return 1 }), 0
	}
	n, _ := g.Dims()
	ptr, ind, val := g.RowPtr(), g.ColIdx(), g.Values()
	own := make([]bool, g.NNZ()) // own[p]: ind[p] is among row i's k nearest
	backend.ParallelFor(n, 512, func(lo, hi int) {
		var order []int
		for i := lo; i < hi; i++ {
			if ptr[i+1]-ptr[i] <= k {
				for p := ptr[i]; p < ptr[i+1]; p++ {
					own[p] = true
				}
				continue
			}
			if extra := ptr[i+1] - ptr[i] - k; extra <= 8 {
				// A few more than k (the usual row of a symmetrized kNN
				// graph): all but the extra largest, found by selection.
				for p := ptr[i]; p < ptr[i+1]; p++ {
					own[p] = true
				}
				for range extra {
					worst := -1
					for p := ptr[i]; p < ptr[i+1]; p++ {
						if own[p] && (worst < 0 || val[p] > val[worst] || val[p] == val[worst] && ind[p] > ind[worst]) {
							worst = p
						}
					}
					own[worst] = false
				}
				continue
			}
			order = order[:0]
			for p := ptr[i]; p < ptr[i+1]; p++ {
				order = append(order, p)
			}
			slices.SortFunc(order, func(pa, pb int) int {
				if c := cmp.Compare(val[pa], val[pb]); c != 0 {
					return c
				}
				return cmp.Compare(ind[pa], ind[pb])
			})
			for _, p := range order[:k] {
				own[p] = true
			}
		}
	})
	// ownAt reports whether j chose i (the entry (i, j) at p). mirror[p]
	// is the place of (j, i) in row j when the pattern is symmetric;
	// otherwise a binary search in row j.
	mirror := g.TransposePlaces()
	ownAt := func(p, j, i int) bool {
		if mirror != nil {
			return own[mirror[p]]
		}
		cols := ind[ptr[j]:ptr[j+1]]
		c, found := slices.BinarySearch(cols, i)
		return found && own[ptr[j]+c]
	}
	out := make([]float64, g.NNZ())
	backend.ParallelFor(n, 512, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for p := ptr[i]; p < ptr[i+1]; p++ {
				v := 0.0
				if own[p] {
					v += 0.5
				}
				if ownAt(p, ind[p], i) {
					v += 0.5
				}
				if v == 0 {
					v = 0.5 // an edge added by the "connect" policy
				}
				out[p] = v
			}
		}
	})
	r, err := sparse.NewCSR(n, n, ptr, ind, out)
	if err != nil {
		panic(err) // same pattern as g
	}
	return r, 0
}
