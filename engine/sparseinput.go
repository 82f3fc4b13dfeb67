package engine

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// dims returns (samples, features).
func (in samples) dims() (n, d int) {
	if in.csr != nil {
		return in.csr.Dims()
	}
	return in.dense.Rows, in.dense.Cols
}

// The methods below extend samples (input.go) for the graph methods: LPP, NPE,
// LSI, LTSA and Laplacian eigenmaps take dense or sparse rows.

// isSparse reports whether the rows are sparse.
func (in samples) isSparse() bool { return in.csr != nil }

// kind names the storage for reports: "dense" or "sparse".
func (in samples) kind() string {
	if in.csr != nil {
		return "sparse"
	}
	return "dense"
}

// subset returns the rows idx as new samples (all rows when idx is nil).
func (in samples) subset(idx []int) samples {
	if idx == nil {
		return in
	}
	if in.csr != nil {
		_, d := in.csr.Dims()
		cols := make([]int, d)
		for j := range cols {
			cols[j] = j
		}
		return samples{csr: in.csr.Submatrix(idx, cols)}
	}
	return samples{dense: subsetRows(in.dense, idx)}
}

// dot returns the inner product of rows i and j.
func (in samples) dot(i, j int) float64 {
	if in.csr != nil {
		ci, vi := in.csr.Row(i)
		cj, vj := in.csr.Row(j)
		return sparse.Dot(ci, vi, cj, vj)
	}
	g := in.dense
	ri, rj := g.Data[i*g.Stride:i*g.Stride+g.Cols], g.Data[j*g.Stride:j*g.Stride+g.Cols]
	s := 0.0
	for k, v := range ri {
		s += v * rj[k]
	}
	return s
}

// inputGraph is neighbourGraph for dense or sparse rows: stage "neighbors"
// builds the graph (distance weights; sparse rows by brute force through an
// inverted index, neighbors.GraphSparse, Euclidean), stage "components"
// applies the disconnected policy — or, when accept is true (the linear
// methods, whose eigenproblems stay well posed on a disconnected graph, and
// supervised graphs, disconnected by design), only counts the components.
func inputGraph(r *run, in samples, spec graphSpec, accept bool) (*neighbors.Fixed, error) {
	if !in.isSparse() && !accept {
		return neighbourGraph(r, in.dense, spec)
	}
	n, d := in.dims()
	keep := ""
	if accept {
		keep = "accepted"
	}
	return graphComponents(r, in, spec, flam.KNNBrute(n, n, d)*float64(in.nnz())/float64(max(1, n*d)), spec.policy, keep)
}

// graphComponents builds the graph of the rows of x (stage "neighbors",
// predicted flam) and applies policy to its components (stage
// "components"); when keep is not empty, every point is kept, the
// components are only counted, and keep says why in the stage's detail.
func graphComponents(r *run, x samples, spec graphSpec, predicted float64, policy Disconnected, keep string) (*neighbors.Fixed, error) {
	n := x.rows()
	g, err := graphStage(r, x, spec, predicted)
	if err != nil {
		return nil, mapGraphErr(err)
	}
	var fixed *neighbors.Fixed
	err = r.stage("components", float64(g.NNZ()+n), func(ctx context.Context, st *stageCtx) error {
		var err error
		if keep != "" {
			_, sizes := sparse.ConnectedComponents(g)
			all := make([]int, n)
			for i := range all {
				all[i] = i
			}
			fixed = &neighbors.Fixed{Graph: g, Kept: all, Components: len(sizes)}
			st.detail = fmt.Sprintf("%d component(s), %s", len(sizes), keep)
			return nil
		}
		if x.csr != nil {
			fixed, err = neighbors.FixDisconnectedSparse(ctx, x.csr, g, policy, neighbors.Options{})
		} else {
			fixed, err = neighbors.FixDisconnected(ctx, toDense(x.dense), g, policy, neighbors.Options{})
		}
		if err == nil {
			st.detail = fmt.Sprintf("%d component(s), policy %s", fixed.Components, policy)
			if len(fixed.Dropped) > 0 {
				st.detail += fmt.Sprintf(", %d point(s) dropped", len(fixed.Dropped))
			}
			if fixed.Added > 0 {
				st.detail += fmt.Sprintf(", %d edge(s) added", fixed.Added)
			}
		}
		return err
	})
	if err != nil {
		return nil, mapGraphErr(err)
	}
	if len(fixed.Kept) < 2 {
		return nil, fmt.Errorf("%s: %w: the graph keeps %d point(s)", r.method, ErrTooFewSamples, len(fixed.Kept))
	}
	return fixed, nil
}

// inputNeighbours returns the neighbours of every row among the other rows
// as directed lists sorted by distance: the k nearest, or (eps > 0) all
// within eps; with labels, only among the other rows of the same class (k
// = 0 or k ≥ class size − 1: all of them). Methods that reconstruct a
// point from its own neighbours (NPE, LTSA) need these lists rather than
// the symmetrized graph.
func inputNeighbours(ctx context.Context, st *stageCtx, in samples, k int, eps float64, labels []int) (*neighbors.Result, error) {
	n, _ := in.dims()
	search := func(sub samples, k int) (*neighbors.Result, error) {
		switch {
		case sub.isSparse() && eps > 0:
			return neighbors.RadiusSparse(ctx, sub.csr, eps, neighbors.Options{})
		case eps > 0:
			return neighbors.Radius(ctx, toDense(sub.dense), eps, neighbors.Options{})
		}
		return selfKNN(ctx, st, sub, k)
	}
	if labels == nil {
		return search(in, k)
	}
	if len(labels) != n {
		return nil, fmt.Errorf("%w: %d labels for %d samples", ErrLabels, len(labels), n)
	}
	classes := map[int][]int{}
	var order []int
	for i, l := range labels {
		if _, ok := classes[l]; !ok {
			order = append(order, l)
		}
		classes[l] = append(classes[l], i)
	}
	lists := make([][]int, n)
	dists := make([][]float64, n)
	for _, l := range order {
		idx := classes[l]
		if len(idx) < 2 {
			return nil, fmt.Errorf("%w: class %d has a single sample: it has no neighbour in its class", ErrLabels, l)
		}
		kk := k
		if kk == 0 || kk >= len(idx) {
			kk = len(idx) - 1
		}
		res, err := search(in.subset(idx), kk)
		if err != nil {
			return nil, err
		}
		for a := range idx {
			js, ds := res.Row(a)
			g := make([]int, len(js))
			for c, j := range js {
				g[c] = idx[j]
			}
			lists[idx[a]] = g
			dists[idx[a]] = append([]float64(nil), ds...)
		}
	}
	out := &neighbors.Result{Ptr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		out.Ind = append(out.Ind, lists[i]...)
		out.Dist = append(out.Dist, dists[i]...)
		out.Ptr[i+1] = len(out.Ind)
	}
	return out, nil
}

// queryNeighbours returns, for every row of q, its k nearest rows of train
// (or, with eps > 0, every row of train within eps), sorted by distance,
// Euclidean. q is converted to train's storage (dense rows to CSR for a
// sparse model, sparse rows to dense for a dense one). The ε search of
// sparse rows is brute force: every distance is computed.
func queryNeighbours(ctx context.Context, train, q samples, k int, eps float64, ex *exactQueries) (*neighbors.Result, error) {
	n, _ := train.dims()
	if train.isSparse() {
		qa := q.csr
		if qa == nil {
			qa = sparse.FromDense(toDense(q.dense))
		}
		if eps <= 0 {
			return neighbors.KNNQuerySparse(ctx, train.csr, qa, min(k, n), neighbors.Options{})
		}
		all, err := neighbors.KNNQuerySparse(ctx, train.csr, qa, n, neighbors.Options{})
		if err != nil {
			return nil, err
		}
		out := &neighbors.Result{Ptr: make([]int, all.Len()+1)}
		for i := 0; i < all.Len(); i++ {
			js, ds := all.Row(i)
			for c, j := range js {
				if ds[c] > eps {
					break
				}
				out.Ind = append(out.Ind, j)
				out.Dist = append(out.Dist, ds[c])
			}
			out.Ptr[i+1] = len(out.Ind)
		}
		return out, nil
	}
	qd := q.dense
	if q.csr != nil {
		qd = q.csr.ToDense().RawMatrix()
	}
	s, err := exactSearcher(ctx, ex, train.dense)
	if err != nil {
		return nil, err
	}
	if eps > 0 {
		return s.Radius(ctx, toDense(qd), eps)
	}
	return s.KNN(ctx, toDense(qd), min(k, n))
}

// exactQueries holds the Searcher of a model's training rows that answers
// its exact neighbour queries, made on the first (a model from Fit or
// Load alike): Transform, block after block, builds the k-d tree of the
// training rows once. The zero value is ready.
type exactQueries = lazy[*neighbors.Searcher]

// exactSearcher returns the Searcher of train that ex keeps.
func exactSearcher(ctx context.Context, ex *exactQueries, train blas64.General) (*neighbors.Searcher, error) {
	return ex.get(ctx, func(context.Context) (*neighbors.Searcher, error) {
		return neighbors.NewSearcher(toDense(train), neighbors.Options{})
	})
}

// transformNeighbours reads the rows a model maps (transformInput; rows
// past checkTransformRange's bound are refused) in the storage of its
// training rows, and finds the k nearest training rows of
// each (those within eps when eps > 0) as the fit found its own: by the
// best-first search of near when the fit's neighbours were approximate and
// the rows are dense, else by queryNeighbours.
func transformNeighbours(ctx context.Context, method string, x mat.Matrix, train samples, near *trainingLists, ex *exactQueries, k int, eps float64) (samples, *neighbors.Result, error) {
	what := method + " transform"
	_, d := train.dims()
	q, err := transformInput(what, x, d)
	if err != nil {
		return q, nil, err
	}
	if err := checkTransformRange(method, q, train.rows()); err != nil {
		return q, nil, err
	}
	if q.isSparse() != train.isSparse() {
		q = convertInput(q, train.isSparse())
	}
	var nb *neighbors.Result
	if near != nil && !q.isSparse() {
		// k as the exact queries clamp it: a supervised fit's K may
		// exceed its rows (every point of the class).
		nb, err = near.query(ctx, train.dense, q.dense, min(k, train.rows()))
	} else {
		nb, err = queryNeighbours(ctx, train, q, k, eps, ex)
	}
	if err != nil {
		return q, nil, fmt.Errorf("%s: %w", what, err)
	}
	return q, nb, nil
}

// dotFrom is (x_i − x_o)·(x_j − x_o) for dense rows: products of
// differences within a neighbourhood, free of the cancellation a large
// common value (an offset) brings to x_i·x_j; x_i·x_j for sparse rows,
// which are kept sparse only while that cancellation is bounded
// (denseIfOffset).
func (in samples) dotFrom(i, j, o int) float64 {
	if in.csr != nil {
		return in.dot(i, j)
	}
	g := in.dense
	return dotAbout(g.Data[i*g.Stride:i*g.Stride+g.Cols], g.Data[j*g.Stride:], g.Data[o*g.Stride:o*g.Stride+g.Cols])
}

// dotAbout is (a − o)·(b − o) over len(o) entries.
func dotAbout(a, b, o []float64) float64 {
	s := 0.0
	for c, v := range o {
		s += (a[c] - v) * (b[c] - v)
	}
	return s
}

// crossDotFrom is (x_j − x_o)·(q_i − x_o), training rows j and o of
// train and query row i of q, for dense rows (see dotFrom); crossDot for
// sparse ones.
func crossDotFrom(train, q samples, j, i, o int) float64 {
	if train.isSparse() {
		return crossDot(train, q, j, i)
	}
	g := train.dense
	return dotAbout(g.Data[j*g.Stride:], q.dense.Data[i*q.dense.Stride:], g.Data[o*g.Stride:o*g.Stride+g.Cols])
}

// crossDot returns x_j·q_i for a training row j of train and a query row i
// of q (q in train's storage, as queryNeighbours converts it).
func crossDot(train, q samples, j, i int) float64 {
	if train.isSparse() {
		cj, vj := train.csr.Row(j)
		if q.csr != nil {
			ci, vi := q.csr.Row(i)
			return sparse.Dot(ci, vi, cj, vj)
		}
		s := 0.0
		row := q.dense.Data[i*q.dense.Stride:]
		for c, col := range cj {
			s += vj[c] * row[col]
		}
		return s
	}
	xr := train.dense.Data[j*train.dense.Stride : j*train.dense.Stride+train.dense.Cols]
	s := 0.0
	if q.csr != nil {
		ci, vi := q.csr.Row(i)
		for c, col := range ci {
			s += vi[c] * xr[col]
		}
		return s
	}
	qr := q.dense.Data[i*q.dense.Stride:]
	for c, v := range xr {
		s += v * qr[c]
	}
	return s
}

// transformInput checks the rows a model maps: dense or sparse, d features.
func transformInput(what string, x mat.Matrix, d int) (samples, error) {
	in, err := samplesInput(what, x)
	if err != nil {
		return in, err
	}
	if _, c := in.dims(); c != d {
		return in, fmt.Errorf("%s: %w: %d features, the model has %d", what, ErrShape, c, d)
	}
	return in, nil
}

// input carries n training rows under name: a float array for dense rows,
// the CSR arrays (name_ptr, name_ind, name_val and the parameter
// name_cols) for sparse ones.
func (c *codec) input(name string, in *samples, n int) {
	if (!c.load && in.csr == nil) || (c.load && c.has(name)) {
		c.matrix(name, &in.dense, n, -1)
		return
	}
	var cols int
	var ptr, ind []int
	var val []float64
	if !c.load {
		_, cols = in.csr.Dims()
		ptr, ind, val = in.csr.RowPtr(), in.csr.ColIdx(), in.csr.Values()
	}
	c.intParam(name+"_cols", &cols, 1, math.MaxInt32)
	c.ints(name+"_ptr", &ptr, n+1)
	c.ints(name+"_ind", &ind, -1)
	c.vector(name+"_val", &val, len(ind))
	if !c.loaded() {
		return
	}
	a, err := sparse.NewCSR(n, cols, ptr, ind, val)
	if err != nil {
		c.failf("%s: %v", name, err)
		return
	}
	*in = samples{csr: a}
}
