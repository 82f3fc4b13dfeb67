package neighbors

import (
	"context"
	"fmt"
	"slices"

	"github.com/manifoldlab/manifold/backend"
)

// Refine improves the k-nearest-neighbour lists (lists, from KNNApprox, k
// to a row) of the rows an index was built on (ix, by IndexFromLists of
// those lists): every row is searched for in the index at the given width
// — its best-first walk starting from the row itself and its current
// neighbours rather than from a tree leaf — and keeps the k nearest of its
// old list and of the search's k + 1 (the row finds itself), itself
// excluded, sorted by distance then index, with the distances KNN reports.
// A row's list can only improve: the walk keeps the closest rows it meets,
// which include the old neighbours, their neighbours and the rows that
// point at them. This is the query-based refinement that lifts
// NN-descent's recall where more local-join iterations no longer do (its
// candidate lists are capped); it costs one search a row. The result does
// not depend on the number of workers. ApproxOptions.Refine runs the same
// refinement inside KNNApprox (and KNNApprox32) without a second copy of
// the rows.
//
// Errors wrap ErrInput (lists that are not k to a row for the index's
// rows, a width below k + 1) or are ctx.Err().
func Refine(ctx context.Context, ix *Index, lists *Result, width int) (*Result, error) {
	n := lists.Len()
	if ix.Len() != n {
		return nil, fmt.Errorf("%w: %d neighbour lists for an index of %d rows", ErrInput, n, ix.Len())
	}
	if n == 0 {
		return lists, nil
	}
	k := len(lists.Ind) / n
	for i := 0; i <= n; i++ {
		if lists.Ptr[i] != i*k {
			return nil, fmt.Errorf("%w: Refine wants k neighbours a row; row %d's list differs", ErrInput, i)
		}
	}
	if k < 1 || k+1 > n {
		return nil, fmt.Errorf("%w: %d neighbours a row among %d rows", ErrInput, k, n)
	}
	if width < k+1 {
		return nil, fmt.Errorf("%w: search width %d below k + 1 = %d", ErrInput, width, k+1)
	}
	for _, j := range lists.Ind {
		if j < 0 || j >= n {
			return nil, fmt.Errorf("%w: neighbour %d of %d rows", ErrInput, j, n)
		}
	}
	return ix.refine(ctx, lists, k, width)
}

// Widen makes the graph the index's queries walk the k nearest rows of
// every indexed row, found as Refine finds them (each row's search starts
// from the row and its list in lists, any number a row, and keeps the k
// nearest of that list and of what it met, itself excluded), and returns
// those lists (k a row, sorted by distance then index, distances as KNN
// reports them). ix must be the index of those lists (IndexFromLists) and
// must not answer queries while Widen runs.
//
// Longer lists are a better search graph: on 100,000 deformed USPS digits
// (256 features), lists of 15 let a query reach recall@10 0.957 at width
// 16, where the 10 lists NN-descent found for the fit need width 24 for
// 0.953; queries alone ran 25,135 rows a second against 17,513, a Landmark
// Isomap model's Transform 13–15 % faster at equal recall (bench/RESULTS.md,
// "a wider search graph"). Widening costs one search a row. Errors as
// Refine, with k ≥ 1 and k + 1 ≤ Len() asked of k.
func (ix *Index) Widen(ctx context.Context, lists *Result, k, width int) (*Result, error) {
	n := ix.Len()
	if lists.Len() != n {
		return nil, fmt.Errorf("%w: %d neighbour lists for an index of %d rows", ErrInput, lists.Len(), n)
	}
	if k < 1 || k+1 > n {
		return nil, fmt.Errorf("%w: widen to %d neighbours a row among %d rows", ErrInput, k, n)
	}
	if width < k+1 {
		return nil, fmt.Errorf("%w: search width %d below k + 1 = %d", ErrInput, width, k+1)
	}
	if lists.Ptr[0] != 0 || lists.Ptr[n] != len(lists.Ind) {
		return nil, fmt.Errorf("%w: neighbour lists with pointers [%d … %d] for %d entries", ErrInput, lists.Ptr[0], lists.Ptr[n], len(lists.Ind))
	}
	for i := 0; i < n; i++ {
		if lists.Ptr[i+1] < lists.Ptr[i] {
			return nil, fmt.Errorf("%w: neighbour list pointers decrease at row %d", ErrInput, i)
		}
	}
	for _, j := range lists.Ind {
		if j < 0 || j >= n {
			return nil, fmt.Errorf("%w: neighbour %d of %d rows", ErrInput, j, n)
		}
	}
	out, err := ix.refine(ctx, lists, k, width)
	if err != nil {
		return nil, err
	}
	ix.setGraph(out)
	return out, nil
}

// refine is Refine on checked lists (indices of the index's rows, any
// number a row), returning k a row: the indexed row i is the query row
// ix.v.queryRow(i) (the rows of an index's dense32 in its own order,
// reordered or in place included).
func (ix *Index) refine(ctx context.Context, lists *Result, k, width int) (*Result, error) {
	n, dim := ix.Len(), ix.v.dim
	width = min(width, n)
	out := &Result{Ptr: make([]int, n+1), Ind: make([]int, n*k), Dist: make([]float64, n*k)}
	for i := range out.Ptr {
		out.Ptr[i] = i * k
	}
	err := backend.ParallelForCtx(ctx, n, 64, func(lo, hi int) {
		s := ix.searcher(width)
		defer ix.searchers.Put(s)
		qv := s.query(dim)
		buf := make([]float64, dim)
		var start []int32
		qj, qd := make([]int, k+1), make([]float64, k+1)
		var js []int
		var ds []float64
		for i := lo; i < hi; i++ {
			row := ix.v.queryRow(i, buf)
			oldJ, oldD := lists.Row(i)
			start = append(start[:0], int32(i))
			for _, j := range oldJ {
				start = append(start, int32(j))
			}
			s.search(ix, row, qv, start)
			s.answer(ix, row, qj, qd)
			js, ds = js[:0], ds[:0]
			for c, j := range oldJ {
				if j != i {
					js, ds = append(js, j), append(ds, oldD[c])
				}
			}
			for c, j := range qj {
				if j != i {
					js, ds = append(js, j), append(ds, qd[c])
				}
			}
			sortPairs(ds, js)
			// The nearest k distinct rows: a row in both lists has the
			// same distance, computed alike, so its copies sit side by
			// side; keep the first.
			oj, od := out.Ind[i*k:(i+1)*k], out.Dist[i*k:(i+1)*k]
			c := 0
			for e, j := range js {
				if c == k {
					break
				}
				if slices.Contains(oj[:c], j) {
					continue
				}
				oj[c], od[c] = j, ds[e]
				c++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// refineDescent is ApproxOptions.Refine at the end of nnDescent: the
// heaps' lists of the rows of v (positions in v's order, which is the
// first tree's for large inputs) get their distances as the index's
// queries compute them, an index over v itself (the graph of the lists;
// no tree: every search starts from its row) refines them at the given
// width, and the result is in positions. The rows' float32 copy is
// released when the walk runs on principal coordinates (unless it is the
// caller's, in place).
func refineDescent(ctx context.Context, v *dense32, h *heaps, width int) (*Result, error) {
	n, k := v.n(), h.k
	pos := &Result{Ptr: make([]int, n+1), Ind: make([]int, n*k), Dist: make([]float64, n*k)}
	for i := range pos.Ptr {
		pos.Ptr[i] = i * k
	}
	ix := &Index{v: v}
	err := backend.ParallelForCtx(ctx, n, 1024, func(lo, hi int) {
		buf := make([]float64, v.dim)
		for p := lo; p < hi; p++ {
			row := v.queryRow(p, buf)
			js, ds := pos.Ind[p*k:(p+1)*k], pos.Dist[p*k:(p+1)*k]
			for c, j := range h.ind[p*k : (p+1)*k] {
				js[c] = int(j)
				ds[c] = ix.exactQuery(row, int(j))
			}
			sortPairs(ds, js)
		}
	})
	if err != nil {
		return nil, err
	}
	ix.setGraph(pos)
	if err := ix.setWalk(ctx); err != nil {
		return nil, err
	}
	return ix.refine(ctx, pos, k, width)
}
