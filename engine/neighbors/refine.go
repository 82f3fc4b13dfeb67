package neighbors

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
)

// Refine improves the k-nearest-neighbour lists of the rows of x (lists,
// from KNNApprox, k to a row) with the index ix built on the same rows
// (IndexFromLists of those lists): every row is queried against the index
// at the given search width (Index.Query, k + 1 rows, since the row finds
// itself), and keeps the k nearest of its old list and of the query's
// answer, itself excluded, sorted by distance then index. A row's list can
// only improve: the search starts near the row and keeps the closest
// candidates it meets, which include the old neighbours' neighbours and
// the rows that point at them. This is the query-based refinement that
// lifts NN-descent's recall where more local-join iterations no longer
// do (its candidate lists are capped); it costs one query a row. The
// result does not depend on the number of workers.
//
// Errors wrap ErrInput (lists that are not k to a row for x's rows, a
// width below k + 1) or are ctx.Err().
func Refine(ctx context.Context, ix *Index, x mat.Matrix, lists *Result, width int) (*Result, error) {
	n := lists.Len()
	if r, _ := x.Dims(); r != n || ix.Len() != n {
		return nil, fmt.Errorf("%w: %d neighbour lists, %d rows, an index of %d rows", ErrInput, n, r, ix.Len())
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
	q, err := ix.Query(ctx, x, k+1, width)
	if err != nil {
		return nil, err
	}
	out := &Result{Ptr: slices.Clone(lists.Ptr), Ind: make([]int, n*k), Dist: make([]float64, n*k)}
	err = backend.ParallelForCtx(ctx, n, 4096, func(lo, hi int) {
		js := make([]int, 0, 2*k+1)
		ds := make([]float64, 0, 2*k+1)
		for i := lo; i < hi; i++ {
			js, ds = js[:0], ds[:0]
			for _, r := range []*Result{lists, q} {
				rj, rd := r.Row(i)
				for c, j := range rj {
					if j != i {
						js = append(js, j)
						ds = append(ds, rd[c])
					}
				}
			}
			sortPairs(ds, js)
			// The nearest k distinct rows: a row in both lists appears
			// twice side by side (the same distance, computed alike) or,
			// if the two computations differed in rounding, within the
			// first few; keep its first (least) occurrence.
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
