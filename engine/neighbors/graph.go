package neighbors

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/sparse"
)

// Rule symmetrizes a k-nearest-neighbour graph.
type Rule int

const (
	// Or joins i and j when either is among the other's k nearest (the
	// rule of the Isomap and LPP papers; the default).
	Or Rule = iota
	// And joins i and j only when each is among the other's k nearest
	// (mutual neighbours).
	And
)

// Weight says what an edge of a graph weighs.
type Weight int

const (
	// Distance: the distance d_ij itself (the default; Isomap's geodesics).
	Distance Weight = iota
	// Heat: the heat kernel exp(−d_ij²/t).
	Heat
	// Binary: 1.
	Binary
	// CosineSimilarity: x_i·x_j/(‖x_i‖‖x_j‖) (0 when either is zero).
	CosineSimilarity
)

// GraphOptions describe a neighbour graph. The zero value is not usable:
// set K (or Eps); everything else defaults to the kNN graph of Isomap
// (Euclidean distances, OR rule, weights = distances).
type GraphOptions struct {
	// K is the number of neighbours of every point in a kNN graph. With
	// Labels, K = 0 means every other point of the same class.
	K int
	// Eps > 0 makes an ε-graph instead: i and j are joined when
	// d_ij ≤ Eps. K is then ignored.
	Eps float64
	// Rule symmetrizes a kNN graph (Or by default).
	Rule Rule
	// Weight of the edges (Distance by default).
	Weight Weight
	// T is the heat kernel's t; 0 uses the mean of d_ij² over the edges.
	T float64
	// Labels, if not nil, make a supervised graph: neighbours are sought
	// only within the class of each point (Cai, He & Han, AAAI 2007 §4).
	// One label per point.
	Labels []int
	// Search configures the neighbour search (metric, method, backend).
	Search Options
}

// Graph returns the neighbour graph of the rows of x as a symmetric n×n
// CSR: the kNN graph symmetrized by opt.Rule, or the ε-graph, optionally
// supervised, with weights opt.Weight. Edges between duplicate points have
// distance 0 and are stored (an explicit zero is an edge). Errors wrap
// ErrInput.
func Graph(ctx context.Context, x mat.Matrix, opt GraphOptions) (*sparse.CSR, error) {
	g, _, err := GraphAndLists(ctx, x, opt)
	return g, err
}

// GraphAndLists is Graph that also returns the k-nearest-neighbour lists
// the graph was made from (nil for an ε-graph or a supervised graph), so
// that their recall can be measured when opt.Search.Algorithm is
// NNDescent.
func GraphAndLists(ctx context.Context, x mat.Matrix, opt GraphOptions) (*sparse.CSR, *Result, error) {
	g, err := rowMajor(ctx, "x", x)
	if err != nil {
		return nil, nil, err
	}
	d := &denseData{g: g}
	return buildGraph(ctx, d, opt)
}

// GraphSparse is Graph for sparse rows (text), brute force through an
// inverted index (or NN-descent); opt.Search.Metric is usually Cosine for
// text.
func GraphSparse(ctx context.Context, x *sparse.CSR, opt GraphOptions) (*sparse.CSR, error) {
	g, _, err := GraphSparseAndLists(ctx, x, opt)
	return g, err
}

// GraphSparseAndLists is GraphAndLists for sparse rows.
func GraphSparseAndLists(ctx context.Context, x *sparse.CSR, opt GraphOptions) (*sparse.CSR, *Result, error) {
	if err := finiteCSR("x", x); err != nil {
		return nil, nil, err
	}
	return buildGraph(ctx, &sparseData{a: x}, opt)
}

// points abstracts dense and sparse rows for the graph builders.
type points interface {
	n() int
	knn(ctx context.Context, k int, opt Options) (*Result, error)
	radius(ctx context.Context, eps float64, opt Options) (*Result, error)
	subset(idx []int) points
	// cosine returns the cosine similarity of rows i and j.
	cosine(i, j int) float64
	// nearestBetween returns the closest pair (a in as, b in bs), ties by
	// the smaller a then the smaller b, and its distance.
	nearestBetween(ctx context.Context, as, bs []int, opt Options) (a, b int, d float64, err error)
}

type denseData struct{ g blas64.General }

type sparseData struct {
	a     *sparse.CSR
	norms *sparseSpace // for cosine weights, made on first use
}

func buildGraph(ctx context.Context, x points, opt GraphOptions) (*sparse.CSR, *Result, error) {
	var lists *Result
	a, err := buildGraphLists(ctx, x, opt, &lists)
	if err != nil {
		return nil, nil, err
	}
	return a, lists, nil
}

func buildGraphLists(ctx context.Context, x points, opt GraphOptions, lists **Result) (*sparse.CSR, error) {
	n := x.n()
	if opt.Eps < 0 || math.IsNaN(opt.Eps) || math.IsInf(opt.Eps, 1) {
		return nil, fmt.Errorf("%w: ε = %v", ErrInput, opt.Eps)
	}
	if opt.Eps == 0 && opt.K <= 0 && opt.Labels == nil {
		return nil, fmt.Errorf("%w: a neighbour graph needs k ≥ 1 or ε > 0 (k = %d, ε = %v)", ErrInput, opt.K, opt.Eps)
	}
	if opt.Labels != nil && len(opt.Labels) != n {
		return nil, fmt.Errorf("%w: %d labels for %d points", ErrInput, len(opt.Labels), n)
	}
	if opt.Eps == 0 && opt.Labels == nil && opt.K >= n {
		return nil, fmt.Errorf("%w: k = %d neighbours asked of %d points (need k < n)", ErrInput, opt.K, n)
	}
	if opt.Weight == Heat && (opt.T < 0 || math.IsNaN(opt.T) || math.IsInf(opt.T, 0)) {
		return nil, fmt.Errorf("%w: heat kernel t = %v", ErrInput, opt.T)
	}
	var coo *sparse.COO
	add := func(res *Result, idx []int) {
		if coo == nil {
			coo = sparse.NewCOO(n, n, n*max(1, opt.K))
		}
		for i := 0; i < res.Len(); i++ {
			js, ds := res.Row(i)
			gi := i
			if idx != nil {
				gi = idx[i]
			}
			for c, j := range js {
				if idx != nil {
					j = idx[j]
				}
				coo.Add(gi, j, ds[c])
			}
		}
	}
	var lastLists *Result
	if opt.Labels == nil {
		var res *Result
		var err error
		if opt.Eps > 0 {
			res, err = x.radius(ctx, opt.Eps, opt.Search)
		} else {
			res, err = x.knn(ctx, opt.K, opt.Search)
			lastLists = res
		}
		if err != nil {
			return nil, err
		}
		if lastLists != nil {
			a, err := listsCSR(ctx, lastLists)
			if err != nil {
				return nil, err
			}
			if a != nil {
				*lists = lastLists
				return finishGraph(ctx, a, opt, x)
			}
		}
		add(res, nil)
	} else {
		classes := map[int][]int{}
		var order []int
		for i, l := range opt.Labels {
			if _, ok := classes[l]; !ok {
				order = append(order, l)
			}
			classes[l] = append(classes[l], i)
		}
		for _, l := range order {
			idx := classes[l]
			sub := x.subset(idx)
			var res *Result
			var err error
			switch {
			case opt.Eps > 0:
				res, err = sub.radius(ctx, opt.Eps, opt.Search)
			case opt.K == 0 || opt.K >= len(idx):
				res, err = sub.knn(ctx, len(idx)-1, opt.Search)
			default:
				res, err = sub.knn(ctx, opt.K, opt.Search)
			}
			if err != nil {
				return nil, err
			}
			add(res, idx)
		}
	}
	*lists = nil
	if opt.Labels == nil && opt.Eps == 0 {
		*lists = lastLists
	}
	if coo == nil { // no points
		coo = sparse.NewCOO(n, n, 0)
	}
	return finishGraph(ctx, coo.ToCSR(), opt, x)
}

// listsCSR returns the directed graph of the lists — row i holds i's
// neighbours by column, with their distances: what the triplets of the
// lists give through a COO, without the triplets and their sort — or nil
// when a list names a point twice (the COO then merges them). The lists
// are copied and sorted a chunk of rows at a time, with a look at ctx
// between chunks (a whole copy of the 10⁷ entries of 10⁶ points' lists is
// 80 MB that no context check splits); ctx's error once it is done.
func listsCSR(ctx context.Context, res *Result) (*sparse.CSR, error) {
	n := res.Len()
	indptr := slices.Clone(res.Ptr)
	ind, data := make([]int, len(res.Ind)), make([]float64, len(res.Dist))
	tail := indptr[n] // entries past the last list, if any, copied as they are
	copy(ind[tail:], res.Ind[tail:])
	copy(data[tail:], res.Dist[tail:])
	err := backend.ParallelForCtx(ctx, n, 1024, func(lo, hi int) {
		p0, p1 := indptr[lo], indptr[hi]
		copy(ind[p0:p1], res.Ind[p0:p1])
		copy(data[p0:p1], res.Dist[p0:p1])
		for i := lo; i < hi; i++ {
			js, ds := ind[indptr[i]:indptr[i+1]], data[indptr[i]:indptr[i+1]]
			for a := 1; a < len(js); a++ { // insertion sort by column: k is small
				j, d := js[a], ds[a]
				b := a
				for ; b > 0 && js[b-1] > j; b-- {
					js[b], ds[b] = js[b-1], ds[b-1]
				}
				js[b], ds[b] = j, d
			}
		}
	})
	if err != nil {
		return nil, err
	}
	a, err := sparse.NewCSR(n, n, indptr, ind, data)
	if err != nil {
		return nil, nil
	}
	return a, nil
}

// finishGraph symmetrizes the directed edges a by opt.Rule (an ε-graph is
// symmetric already) and weighs them by opt.Weight (x gives the cosine
// similarities; nil refuses CosineSimilarity). The symmetrization looks
// at ctx as it goes (sparse.Symmetrized).
func finishGraph(ctx context.Context, a *sparse.CSR, opt GraphOptions, x points) (*sparse.CSR, error) {
	first := func(v, _ float64) float64 { return v }
	a, err := sparse.Symmetrized(ctx, a, !(opt.Rule == And && opt.Eps == 0), first)
	if err != nil {
		return nil, err
	}
	switch opt.Weight {
	case Distance:
	case Heat:
		t := opt.T
		if t == 0 {
			t = HeatWidth(a)
		}
		a = a.Map(func(_, _ int, d float64) float64 { return math.Exp(-d * d / t) })
	case Binary:
		a = a.Map(func(_, _ int, _ float64) float64 { return 1 })
	case CosineSimilarity:
		if x == nil {
			return nil, fmt.Errorf("%w: cosine-similarity weights need the points, not only a graph", ErrInput)
		}
		a = a.Map(func(i, j int, _ float64) float64 { return x.cosine(i, j) })
	default:
		return nil, fmt.Errorf("%w: unknown weight %d", ErrInput, opt.Weight)
	}
	return a, nil
}

// FromGraph makes the graph opt describes from a graph g a user gives in
// place of a neighbour search (edge weights = distances; directed, as a kNN
// graph written by manifold neighbors, or symmetric): it is checked (n×n
// for n points when n ≥ 0, finite non-negative weights; ValidateGraph),
// its diagonal dropped, symmetrized by opt.Rule and weighted by opt.Weight
// (Distance, Heat or Binary). opt.K, Eps, Labels and Search are not used.
// Errors wrap ErrInput.
func FromGraph(g *sparse.CSR, n int, opt GraphOptions) (*sparse.CSR, error) {
	if err := ValidateGraph(g, n, false); err != nil {
		return nil, err
	}
	r, _ := g.Dims()
	coo := sparse.NewCOO(r, r, g.NNZ())
	vals, ind, ptr := g.Values(), g.ColIdx(), g.RowPtr()
	for i := 0; i < r; i++ {
		for p := ptr[i]; p < ptr[i+1]; p++ {
			if ind[p] != i {
				coo.Add(i, ind[p], vals[p])
			}
		}
	}
	opt.Eps = 0
	return finishGraph(context.Background(), coo.ToCSR(), opt, nil)
}

// ListsFromGraph returns, from a graph a user gives (checked as FromGraph
// does), the k nearest neighbours of every vertex as KNN returns them: the
// k stored entries of smallest weight of its row (the diagonal skipped),
// sorted by (weight, index). A row with fewer than k entries is an error
// wrapping ErrInput.
func ListsFromGraph(g *sparse.CSR, n, k int) (*Result, error) {
	if err := ValidateGraph(g, n, false); err != nil {
		return nil, err
	}
	r, _ := g.Dims()
	res := &Result{Ptr: make([]int, r+1), Ind: make([]int, r*k), Dist: make([]float64, r*k)}
	var d []float64
	var j []int
	for i := 0; i < r; i++ {
		res.Ptr[i+1] = (i + 1) * k
		cols, vals := g.Row(i)
		d, j = d[:0], j[:0]
		for c, col := range cols {
			if col != i {
				d = append(d, vals[c])
				j = append(j, col)
			}
		}
		if len(d) < k {
			return nil, fmt.Errorf("%w: graph row %d has %d neighbour(s); %d are needed", ErrInput, i, len(d), k)
		}
		sortPairs(d, j)
		copy(res.Ind[i*k:], j[:k])
		copy(res.Dist[i*k:], d[:k])
	}
	return res, nil
}

// ValidateGraph checks a graph a user passes instead of building one: n×n
// for n points, finite non-negative weights, and symmetric (pattern and
// values, to a relative 1e-12) when symmetric is true. Errors wrap ErrInput.
func ValidateGraph(g *sparse.CSR, n int, symmetric bool) error {
	r, c := g.Dims()
	if r != c {
		return fmt.Errorf("%w: graph is %d×%d, not square", ErrInput, r, c)
	}
	if n >= 0 && r != n {
		return fmt.Errorf("%w: graph has %d vertices for %d points", ErrInput, r, n)
	}
	vals, ind, ptr := g.Values(), g.ColIdx(), g.RowPtr()
	for i := 0; i < r; i++ {
		for p := ptr[i]; p < ptr[i+1]; p++ {
			if v := vals[p]; !(v >= 0) || math.IsInf(v, 1) {
				return fmt.Errorf("%w: graph edge (%d, %d) has weight %v; weights must be finite and non-negative", ErrInput, i, ind[p], v)
			}
		}
	}
	if symmetric && !g.IsSymmetric(1e-12) {
		return fmt.Errorf("%w: graph is not symmetric (every edge i–j must be stored as (i, j) and (j, i) with the same weight)", ErrInput)
	}
	return nil
}

// HeatWidth is the heat kernel's default width t, the one place it is
// decided: the mean squared length of g's edges (stored values), so that
// exp(−d²/t) is e⁻¹ at a typical edge (He & Niyogi, NIPS 2003 leave t to the
// user; the mean is what the engine's LPP and Laplacian eigenmaps have
// always used). A graph with no edge length gives 1.
func HeatWidth(g *sparse.CSR) float64 {
	s := 0.0
	for _, d := range g.Values() {
		s += d * d
	}
	if t := s / float64(max(1, g.NNZ())); t > 0 {
		return t
	}
	return 1
}
