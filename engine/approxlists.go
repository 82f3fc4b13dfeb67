package engine

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// trainingLists are the neighbour lists of a model's training rows, kept
// when the fit's neighbour search was approximate (NN-descent), so that
// Transform looks up new points' neighbours the same way, by a best-first
// search of the lists (neighbors.Index, built once on first use from the
// training rows and the lists), not by an exact search over all N rows:
// the models whose fit could not afford exact neighbours can neither
// afford them per new point.
type trainingLists struct {
	lists *neighbors.Result
	// widened: lists are the index's widened graph (Neighbors.IndexK),
	// which a geodesic model's file keeps beside its graph.
	widened bool
	width   int             // the queries' search width (0: the default; see Neighbors.Width)
	tree    *neighbors.Tree // the index's tree as a model file kept it; nil: grown on first use
	ix      lazy[*neighbors.Index]
}

// keepLists returns the lists to keep with a model fitted by r on train:
// nb when the fit's neighbour stage was approximate and the rows are
// dense, else nil (exact queries).
func keepLists(r *run, train samples, nb *neighbors.Result) *trainingLists {
	if !approxSearched(r.rep) || train.isSparse() {
		return nil
	}
	return &trainingLists{lists: nb, width: r.opts.Neighbors.Width}
}

// graphLists returns the lists to keep with a geodesic model whose graph g
// (the lists of its rows) came from an approximate search (rep), else nil.
func graphLists(rep *Report, eps float64, g *sparse.CSR, width int) *trainingLists {
	if !approxSearched(rep) || eps > 0 {
		return nil
	}
	n, _ := g.Dims()
	return &trainingLists{lists: &neighbors.Result{Ptr: g.RowPtr()[:n+1], Ind: g.ColIdx(), Dist: g.Values()}, width: width}
}

// index returns the index of the training rows train and the lists, built
// on first use (with the kept tree, when a model file held one) under ctx.
func (t *trainingLists) index(ctx context.Context, train blas64.General) (*neighbors.Index, error) {
	return t.ix.get(ctx, func(ctx context.Context) (*neighbors.Index, error) {
		return neighbors.IndexWithTree(ctx, toDense(train), t.lists, t.tree, neighbors.ApproxOptions{})
	})
}

// nearLister is a model that may keep the training lists of an
// approximate fit (nil when it does not): its lists and training rows.
type nearLister interface {
	nearLists() (*trainingLists, blas64.General)
}

// widenIndex is the last stage of a fit, "index", when Neighbors.IndexK
// asks for it and the model m keeps lists (an approximate fit of dense
// rows): the index of the training rows is built now, its graph widened
// to IndexK neighbours a row (neighbors.Index.Widen), and the widened
// lists replace the model's.
func widenIndex(r *run, m any) error {
	k := r.opts.Neighbors.IndexK
	nl, ok := m.(nearLister)
	if !ok || k <= 0 {
		return nil
	}
	t, train := nl.nearLists()
	if t == nil {
		return nil
	}
	n, d := train.Rows, train.Cols
	if k+1 > n {
		return fmt.Errorf("%s: %w: index neighbours %d of %d training rows (need IndexK < rows)", r.method, ErrBadSetting, k, n)
	}
	// The lists, and the index's rows in float32 with its graph.
	bytes := 16*int64(n)*int64(k) + 4*int64(n)*int64(d) + 8*int64(n)*int64(k)
	if err := r.checkBudget(bytes, fmt.Sprintf("an index of %d rows × %d features, %d neighbours a row", n, d, k), "a smaller index_k, or none"); err != nil {
		return err
	}
	width := 2*k + 2
	return r.stage("index", flam.KNNRefine(n, d, k, width), func(ctx context.Context, st *stageCtx) error {
		ix, err := neighbors.IndexFromLists(ctx, toDense(train), t.lists, neighbors.ApproxOptions{})
		if err != nil {
			return err
		}
		lists, err := ix.Widen(ctx, t.lists, k, width)
		if err != nil {
			return err
		}
		t.lists, t.widened = lists, true
		t.ix.set(ix)
		st.detail = fmt.Sprintf("search graph of %d neighbours a row, widened at width %d", k, width)
		return nil
	})
}

// query returns the k approximate nearest training rows of every row of q.
func (t *trainingLists) query(ctx context.Context, train, q blas64.General, k int) (*neighbors.Result, error) {
	ix, err := t.index(ctx, train)
	if err != nil {
		return nil, err
	}
	return ix.Query(ctx, toDense(q), k, t.width)
}

// lists carries the neighbour lists of n training rows as "neighbor_ptr",
// "neighbor_ind" and "neighbor_dist": nothing when t is nil (an exact
// fit), and a nil t from a file that holds none (an exact fit, or a file
// from before the lists were kept: Transform then searches exactly).
func (c *codec) lists(t **trainingLists, train blas64.General, n int) {
	c.listArrays(t, n)
	c.indexTree(*t, train)
}

// listArrays is lists without the index's tree.
func (c *codec) listArrays(t **trainingLists, n int) {
	if (!c.load && *t == nil) || (c.load && !c.has("neighbor_ptr")) {
		return
	}
	var r neighbors.Result
	if !c.load {
		r = *(*t).lists
	}
	c.ints("neighbor_ptr", &r.Ptr, n+1)
	c.indices("neighbor_ind", &r.Ind, -1, 0, n)
	c.vector("neighbor_dist", &r.Dist, len(r.Ind))
	if c.loaded() {
		c.checkLists(r, n)
		if c.err == nil {
			*t = &trainingLists{lists: &r, width: searchWidth(c.d.report)}
		}
	}
}

// widenedLists carries the lists of a geodesic model (Isomap, Landmark
// Isomap) when they are its index's widened graph (Neighbors.IndexK), as
// listArrays does; otherwise nothing: its graph's rows are its lists
// (graphLists). The model carries the index's tree itself (indexTree).
func (c *codec) widenedLists(t **trainingLists, n int) {
	if !c.load && (*t == nil || !(*t).widened) {
		return
	}
	c.listArrays(t, n)
	if c.loaded() && c.has("neighbor_ptr") && *t != nil {
		(*t).widened = true
	}
}

// checkLists refuses lists whose pointers or distances no search gives.
func (c *codec) checkLists(r neighbors.Result, n int) {
	if r.Ptr[0] != 0 || r.Ptr[n] != len(r.Ind) {
		c.failf("neighbour lists: pointers [%d … %d] for %d entries", r.Ptr[0], r.Ptr[n], len(r.Ind))
		return
	}
	for i := 0; i < n; i++ {
		if r.Ptr[i+1] < r.Ptr[i] {
			c.failf("neighbour lists: pointers decrease at row %d", i)
			return
		}
	}
	for _, v := range r.Dist {
		if !(v >= 0) {
			c.failf("neighbour lists: distance %v", v)
			return
		}
	}
}

// indexTree carries the tree of t's index as "neighbor_tree_child",
// "neighbor_tree_span", "neighbor_tree_perm", "neighbor_tree_normal" and
// "neighbor_tree_offset" (neighbors.Tree), so that a loaded model's queries
// go down the tree its fit's queries did without growing it again. Saving
// builds the index if no query has; loading a file without the tree (older
// files) leaves it to be grown on first use, from the same seed. t nil:
// nothing.
func (c *codec) indexTree(t *trainingLists, train blas64.General) {
	if t == nil || c.skip() || (c.load && !c.has("neighbor_tree_child")) {
		return
	}
	var child, span, perm []int
	var normal blas64.General
	var off []float64
	d := train.Cols
	if !c.load {
		ix, err := t.index(context.Background(), train)
		if err != nil {
			c.err = err
			return
		}
		tr := ix.Tree()
		child, span, perm = widen(tr.Child), widen(tr.Span), widen(tr.Perm)
		normal = dense.New(len(tr.Offsets), d)
		for i, v := range tr.Normals {
			normal.Data[i] = float64(v)
		}
		off = make([]float64, len(tr.Offsets))
		for i, v := range tr.Offsets {
			off[i] = float64(v)
		}
	}
	c.ints("neighbor_tree_child", &child, -1)
	c.ints("neighbor_tree_span", &span, len(child))
	c.ints("neighbor_tree_perm", &perm, train.Rows)
	c.matrix("neighbor_tree_normal", &normal, -1, d)
	c.vector("neighbor_tree_offset", &off, normal.Rows)
	if !c.loaded() {
		return
	}
	tr := &neighbors.Tree{Child: narrow(child), Span: narrow(span), Perm: narrow(perm),
		Normals: make([]float32, len(normal.Data)), Offsets: make([]float32, len(off))}
	for i, v := range normal.Data {
		tr.Normals[i] = float32(v)
	}
	for i, v := range off {
		tr.Offsets[i] = float32(v)
	}
	if err := tr.Check(train.Rows, d); err != nil {
		c.failf("%v", err)
		return
	}
	t.tree = tr
}

func widen(v []int32) []int {
	w := make([]int, len(v))
	for i, x := range v {
		w[i] = int(x)
	}
	return w
}

// narrow converts to int32, mapping values outside its range to
// MinInt32 (which the tree's checks refuse: IndexWithTree).
func narrow(v []int) []int32 {
	w := make([]int32, len(v))
	for i, x := range v {
		if x < math.MinInt32 || x > math.MaxInt32 {
			x = math.MinInt32
		}
		w[i] = int32(x)
	}
	return w
}
