package engine

import (
	"context"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/engine/neighbors"
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
	width int // the queries' search width (0: the default; see Neighbors.Width)
	once  sync.Once
	ix    *neighbors.Index
	err   error
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

// query returns the k approximate nearest training rows of every row of q.
func (t *trainingLists) query(ctx context.Context, train, q blas64.General, k int) (*neighbors.Result, error) {
	t.once.Do(func() {
		t.ix, t.err = neighbors.IndexFromLists(context.Background(), toDense(train), t.lists, neighbors.ApproxOptions{})
	})
	if t.err != nil {
		return nil, t.err
	}
	return t.ix.Query(ctx, toDense(q), k, t.width)
}

// lists carries the neighbour lists of n training rows as "neighbor_ptr",
// "neighbor_ind" and "neighbor_dist": nothing when t is nil (an exact
// fit), and a nil t from a file that holds none (an exact fit, or a file
// from before the lists were kept: Transform then searches exactly).
func (c *codec) lists(t **trainingLists, n int) {
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
	if !c.loaded() {
		return
	}
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
	*t = &trainingLists{lists: &r, width: searchWidth(c.d.report)}
}
