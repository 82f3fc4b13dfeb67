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

// save writes the lists (nil: nothing) as "neighbor_ptr", "neighbor_ind"
// and "neighbor_dist".
func (t *trainingLists) save(d *modelData) {
	if t == nil {
		return
	}
	d.ints["neighbor_ptr"] = t.lists.Ptr
	d.ints["neighbor_ind"] = t.lists.Ind
	d.floats["neighbor_dist"] = rowVec(t.lists.Dist)
}

// loadLists reads the lists of n training rows a model file holds, or nil
// when it holds none (an exact fit, or a file from before the lists were
// kept: Transform then searches exactly).
func loadLists(d *modelData, n int) (*trainingLists, error) {
	if _, ok := d.ints["neighbor_ptr"]; !ok {
		return nil, nil
	}
	ptr, err := d.intArr("neighbor_ptr", n+1)
	if err != nil {
		return nil, err
	}
	ind, err := d.indexArr("neighbor_ind", -1, 0, n)
	if err != nil {
		return nil, err
	}
	dist, err := d.float("neighbor_dist", 1, len(ind))
	if err != nil {
		return nil, err
	}
	if ptr[0] != 0 || ptr[n] != len(ind) {
		return nil, modelErr("%s model: neighbour lists: pointers [%d … %d] for %d entries", d.method, ptr[0], ptr[n], len(ind))
	}
	for i := 0; i < n; i++ {
		if ptr[i+1] < ptr[i] {
			return nil, modelErr("%s model: neighbour lists: pointers decrease at row %d", d.method, i)
		}
	}
	for _, v := range dist.Data {
		if !(v >= 0) {
			return nil, modelErr("%s model: neighbour lists: distance %v", d.method, v)
		}
	}
	return &trainingLists{lists: &neighbors.Result{Ptr: ptr, Ind: ind, Dist: dist.Data}, width: searchWidth(d.report)}, nil
}
