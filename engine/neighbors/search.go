package neighbors

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/sparse"
)

// KNN returns the k nearest neighbours of every row of x among the other
// rows (a point is never its own neighbour; a duplicate of it is, at
// distance 0), sorted by distance, ties broken by the smaller index. The
// method (k-d tree or blocked brute force) is chosen by opt.Algorithm, by
// default by the cost model of Options. It returns an error wrapping
// ErrInput if k is not in [0, n−1] or x holds NaN or Inf, and ctx.Err()
// if cancelled.
func KNN(ctx context.Context, x mat.Matrix, k int, opt Options) (*Result, error) {
	g, err := rowMajor(ctx, "x", x)
	if err != nil {
		return nil, err
	}
	if k < 0 || (k > 0 && k >= g.Rows) {
		return nil, fmt.Errorf("%w: k = %d neighbours asked of %d points (need 0 ≤ k < n)", ErrInput, k, g.Rows)
	}
	return knnDense(ctx, g, g, k, true, opt)
}

// KNNQuery returns the k nearest rows of data for every row of queries
// (nothing is excluded: a query equal to a data row finds it at distance
// 0). k must be in [0, rows of data]. It is a Searcher of data used
// once (the k-d tree, when there is one, built for this call).
func KNNQuery(ctx context.Context, data, queries mat.Matrix, k int, opt Options) (*Result, error) {
	s, err := NewSearcher(data, opt)
	if err != nil {
		return nil, err
	}
	return s.KNN(ctx, queries, k)
}

// Radius returns, for every row of x, the other rows within distance eps
// (inclusive), sorted by distance then index.
func Radius(ctx context.Context, x mat.Matrix, eps float64, opt Options) (*Result, error) {
	g, err := rowMajor(ctx, "x", x)
	if err != nil {
		return nil, err
	}
	if err := checkEps(eps); err != nil {
		return nil, err
	}
	return radiusDense(ctx, g, g, eps, true, opt)
}

// RadiusQuery returns, for every row of queries, the rows of data within
// distance eps: a Searcher of data used once.
func RadiusQuery(ctx context.Context, data, queries mat.Matrix, eps float64, opt Options) (*Result, error) {
	s, err := NewSearcher(data, opt)
	if err != nil {
		return nil, err
	}
	return s.Radius(ctx, queries, eps)
}

// queriesOf returns the rows of queries, checked finite and of x's width.
func queriesOf(ctx context.Context, x blas64.General, queries mat.Matrix) (blas64.General, error) {
	q, err := rowMajor(ctx, "queries", queries)
	if err != nil {
		return q, err
	}
	if q.Rows > 0 && q.Cols != x.Cols {
		return q, fmt.Errorf("%w: queries have %d columns, data %d", ErrInput, q.Cols, x.Cols)
	}
	return q, nil
}

func checkEps(eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return fmt.Errorf("%w: radius ε = %v (need a finite ε ≥ 0)", ErrInput, eps)
	}
	return nil
}

// KNNSparse is KNN for sparse rows (text: a document-term matrix), by
// brute force through an inverted index, with opt.Metric Euclidean or
// Cosine.
func KNNSparse(ctx context.Context, x *sparse.CSR, k int, opt Options) (*Result, error) {
	n, _ := x.Dims()
	if k < 0 || (k > 0 && k >= n) {
		return nil, fmt.Errorf("%w: k = %d neighbours asked of %d points (need 0 ≤ k < n)", ErrInput, k, n)
	}
	if err := finiteCSR("x", x); err != nil {
		return nil, err
	}
	return sparseKNN(ctx, x, k, opt)
}

// sparseKNN is the self search of sparse rows: NN-descent when asked (and
// k ≥ 1), brute force otherwise.
func sparseKNN(ctx context.Context, x *sparse.CSR, k int, opt Options) (*Result, error) {
	if opt.Algorithm == NNDescent && k > 0 {
		a := opt.Approx
		a.Metric = opt.Metric
		if err := a.check(); err != nil {
			return nil, err
		}
		res, _, err := nnDescent(ctx, newSparseVecs(x, opt.Metric), k, a)
		return res, err
	}
	return bruteKNN(ctx, newSparseSpace(opt.Metric, x, x), k, true)
}

// KNNQuerySparse is KNNQuery for sparse rows.
func KNNQuerySparse(ctx context.Context, data, queries *sparse.CSR, k int, opt Options) (*Result, error) {
	n, d := data.Dims()
	m, dq := queries.Dims()
	if m > 0 && dq != d {
		return nil, fmt.Errorf("%w: queries have %d columns, data %d", ErrInput, dq, d)
	}
	if k < 0 || k > n {
		return nil, fmt.Errorf("%w: k = %d neighbours asked of %d points", ErrInput, k, n)
	}
	if err := finiteCSR("data", data); err != nil {
		return nil, err
	}
	if err := finiteCSR("queries", queries); err != nil {
		return nil, err
	}
	return bruteKNN(ctx, newSparseSpace(opt.Metric, data, queries), k, false)
}

// RadiusSparse is Radius for sparse rows.
func RadiusSparse(ctx context.Context, x *sparse.CSR, eps float64, opt Options) (*Result, error) {
	if err := checkEps(eps); err != nil {
		return nil, err
	}
	if err := finiteCSR("x", x); err != nil {
		return nil, err
	}
	return bruteRadius(ctx, newSparseSpace(opt.Metric, x, x), key(opt.Metric, eps), true)
}

func finiteCSR(what string, a *sparse.CSR) error {
	_, d := a.Dims()
	limit := valueLimit(d)
	for p, v := range a.Values() {
		if err := checkValue(v, limit, d); err != nil {
			return fmt.Errorf("%w: %s: stored value #%d = %v %s", ErrInput, what, p, v, err)
		}
	}
	return nil
}

// key maps a distance to the key the searches compare.
func key(m Metric, d float64) float64 {
	if m == Cosine {
		return d
	}
	return d * d
}

func knnDense(ctx context.Context, x, q blas64.General, k int, self bool, opt Options) (*Result, error) {
	return knnDenseTree(ctx, x, q, k, self, opt, nil)
}

// knnDenseTree is knnDense whose k-d tree of x, when the cost model picks
// one, comes from tree (nil: built for the call).
func knnDenseTree(ctx context.Context, x, q blas64.General, k int, self bool, opt Options, tree func() *kdTree) (*Result, error) {
	if opt.Algorithm == NNDescent {
		if self && k > 0 {
			a := opt.Approx
			a.Metric = opt.Metric
			if err := a.check(); err != nil {
				return nil, err
			}
			v, err := newDense32(ctx, x, opt.Metric)
			if err != nil {
				return nil, err
			}
			res, _, err := nnDescent(ctx, v, k, a)
			return res, err
		}
		opt.Algorithm = Auto // queries: exact
	}
	if opt.Metric == Cosine {
		xh := normalizedCopy(x)
		qh := xh
		if !self {
			qh = normalizedCopy(q)
		}
		return bruteKNN(ctx, &cosineSpace{impl: opt.impl(), x: xh, q: qh}, k, self)
	}
	switch opt.choose(q.Rows, x.Rows, x.Cols, k) {
	case KDTree:
		return treeKNN(ctx, kdTreeOf(x, opt, tree), q, k, self)
	default:
		return bruteKNN(ctx, newEuclidSpace(opt.impl(), x, q, self), k, self)
	}
}

// kdTreeOf returns tree() or, with no tree, a new tree of x.
func kdTreeOf(x blas64.General, opt Options, tree func() *kdTree) *kdTree {
	if tree != nil {
		return tree()
	}
	return buildKDTree(x, opt.leafSize())
}

func newEuclidSpace(impl backend.Impl, x, q blas64.General, self bool) *euclidSpace {
	s := &euclidSpace{impl: impl, x: x, q: q, xn: backend.RowSqNorms(x)}
	if self {
		s.qn = s.xn
	} else {
		s.qn = backend.RowSqNorms(q)
	}
	return s
}

func radiusDense(ctx context.Context, x, q blas64.General, eps float64, self bool, opt Options) (*Result, error) {
	return radiusDenseTree(ctx, x, q, eps, self, opt, nil)
}

// radiusDenseTree is radiusDense whose k-d tree of x, when the cost model
// picks one, comes from tree (nil: built for the call).
func radiusDenseTree(ctx context.Context, x, q blas64.General, eps float64, self bool, opt Options, tree func() *kdTree) (*Result, error) {
	if opt.Metric == Cosine {
		xh := normalizedCopy(x)
		qh := xh
		if !self {
			qh = normalizedCopy(q)
		}
		return bruteRadius(ctx, &cosineSpace{impl: opt.impl(), x: xh, q: qh}, eps, self)
	}
	if opt.Algorithm == NNDescent {
		opt.Algorithm = Auto // ε-neighbourhoods: exact
	}
	switch opt.choose(q.Rows, x.Rows, x.Cols, opt.leafSize()) {
	case KDTree:
		return treeRadius(ctx, kdTreeOf(x, opt, tree), q, eps*eps, self)
	default:
		return bruteRadius(ctx, newEuclidSpace(opt.impl(), x, q, self), eps*eps, self)
	}
}

// treeKNN queries the tree for every row of q; self queries run in tree
// order, so consecutive queries walk the same nodes.
func treeKNN(ctx context.Context, t *kdTree, q blas64.General, k int, self bool) (*Result, error) {
	m := q.Rows
	res := &Result{Ptr: make([]int, m+1), Ind: make([]int, m*k), Dist: make([]float64, m*k)}
	for i := range res.Ptr {
		res.Ptr[i] = i * k
	}
	if m == 0 || k == 0 {
		return res, nil
	}
	err := backend.ParallelForCtx(ctx, m, 512, func(lo, hi int) {
		h := newTopK(k)
		for p := lo; p < hi; p++ {
			qi, pt, skip := t.query(q, self, p)
			h.reset()
			t.knn(pt, skip, h)
			h.sort()
			ds := res.Dist[qi*k : (qi+1)*k]
			js := res.Ind[qi*k : (qi+1)*k]
			copy(ds, h.d)
			copy(js, h.j)
			for c := range ds {
				ds[c] = math.Sqrt(ds[c])
			}
		}
		addProgress(ctx, hi-lo)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func treeRadius(ctx context.Context, t *kdTree, q blas64.General, r2 float64, self bool) (*Result, error) {
	m := q.Rows
	type list struct {
		d []float64
		j []int
	}
	lists := make([]list, m)
	err := backend.ParallelForCtx(ctx, m, 256, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			qi, pt, skip := t.query(q, self, p)
			d, j := t.radius(pt, skip, r2, nil, nil)
			sortPairs(d, j)
			for c := range d {
				d[c] = math.Sqrt(d[c])
			}
			lists[qi] = list{d, j}
		}
		addProgress(ctx, hi-lo)
	})
	if err != nil {
		return nil, err
	}
	res := &Result{Ptr: make([]int, m+1)}
	for i, l := range lists {
		res.Ptr[i+1] = res.Ptr[i] + len(l.d)
	}
	res.Ind = make([]int, 0, res.Ptr[m])
	res.Dist = make([]float64, 0, res.Ptr[m])
	for _, l := range lists {
		res.Ind = append(res.Ind, l.j...)
		res.Dist = append(res.Dist, l.d...)
	}
	return res, nil
}

// query returns the p-th query of a tree search: with self, the point at
// tree position p (queries run in tree order, so consecutive ones walk the
// same nodes), its original index and itself to skip; otherwise row p of q.
func (t *kdTree) query(q blas64.General, self bool, p int) (qi int, pt []float64, skip int) {
	if self {
		qi = t.idx[p]
		return qi, t.pts[p*t.dim : (p+1)*t.dim], qi
	}
	return p, q.Data[p*q.Stride : p*q.Stride+t.dim], -1
}
