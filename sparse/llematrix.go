package sparse

import (
	"context"
	"slices"

	"github.com/manifoldlab/manifold/backend"
)

// LLEMatrix forms the sparse M = (I − W)ᵀ(I − W) of locally linear
// embedding for the n×n reconstruction weights W (Roweis & Saul, Science
// 290, 2000; Saul & Roweis, JMLR 4, 2003, eq. 69): row i of I − W has
// K + 1 entries (the point itself added where W lacks it) and contributes
// their (K + 1)² products, O(N·K²) in all. Each entry is summed in the
// order the outer products Σᵢ aᵢᵀaᵢ of the rows of A = I − W, added in row
// order, would add it, whatever the number of goroutines. Two passes over
// the rows of M, each in parallel chunks of lleMGrain rows with ctx
// checked per chunk: the first counts each row's columns, the second
// writes them in place, so M is allocated once at its size.
func LLEMatrix(ctx context.Context, w *CSR) (*CSR, error) {
	n, _ := w.Dims()
	// A = I − W by rows (the point itself added where W lacks it), then
	// its transpose, then row j of M = Σᵢ a_ij·(row i of A), i ascending,
	// in a dense accumulator: each entry is summed in the same order as
	// the outer products Σᵢ aᵢᵀaᵢ would add it.
	ptr, ind, val := w.RowPtr(), w.ColIdx(), w.Values()
	aptr := make([]int, n+1)
	aind := make([]int, 0, len(ind)+n)
	aval := make([]float64, 0, len(ind)+n)
	for i := 0; i < n; i++ {
		self := false
		for p := ptr[i]; p < ptr[i+1]; p++ {
			v := -val[p]
			if ind[p] == i {
				v++
				self = true
			}
			aind = append(aind, ind[p])
			aval = append(aval, v)
		}
		if !self {
			aind = append(aind, i)
			aval = append(aval, 1)
		}
		aptr[i+1] = len(aind)
	}
	tptr := make([]int, n+1)
	for _, j := range aind {
		tptr[j+1]++
	}
	for j := 0; j < n; j++ {
		tptr[j+1] += tptr[j]
	}
	tind := make([]int, len(aind))
	tval := make([]float64, len(aind))
	next := slices.Clone(tptr[:n])
	for i := 0; i < n; i++ {
		for p := aptr[i]; p < aptr[i+1]; p++ {
			j := aind[p]
			tind[next[j]], tval[next[j]] = i, aval[p]
			next[j]++
		}
	}
	// Each running chunk takes a dense accumulator and a marker from the
	// pool (at most one per worker). The marker holds j+1 once column l of
	// row j was counted (first pass) and −(j+1) once it was written.
	type scratch struct {
		acc  []float64
		seen []int
	}
	pool := make(chan *scratch, backend.Workers())
	take := func() *scratch {
		select {
		case sc := <-pool:
			return sc
		default:
			return &scratch{acc: make([]float64, n), seen: make([]int, n)}
		}
	}
	mptr := make([]int, n+1)
	err := backend.ParallelForCtx(ctx, n, lleMGrain, func(lo, hi int) {
		sc := take()
		defer func() { pool <- sc }()
		seen := sc.seen
		for j := lo; j < hi; j++ {
			count := 0
			for q := tptr[j]; q < tptr[j+1]; q++ {
				i := tind[q]
				for _, l := range aind[aptr[i]:aptr[i+1]] {
					if seen[l] != j+1 {
						seen[l] = j + 1
						count++
					}
				}
			}
			mptr[j+1] = count
		}
	})
	if err != nil {
		return nil, err
	}
	for j := 0; j < n; j++ {
		mptr[j+1] += mptr[j]
	}
	mind := make([]int, mptr[n])
	mval := make([]float64, mptr[n])
	err = backend.ParallelForCtx(ctx, n, lleMGrain, func(lo, hi int) {
		sc := take()
		defer func() { pool <- sc }()
		acc, seen := sc.acc, sc.seen
		for j := lo; j < hi; j++ {
			at, mark := mptr[j], -(j + 1)
			for q := tptr[j]; q < tptr[j+1]; q++ {
				i, aij := tind[q], tval[q]
				cols, vals := aind[aptr[i]:aptr[i+1]], aval[aptr[i]:aptr[i+1]]
				for p, l := range cols {
					v := aij * vals[p]
					if seen[l] != mark {
						seen[l] = mark
						acc[l] = v
						mind[at] = l
						at++
						continue
					}
					acc[l] += v
				}
			}
			cols := mind[mptr[j]:at]
			slices.Sort(cols)
			for p, l := range cols {
				mval[mptr[j]+p] = acc[l]
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return NewCSR(n, n, mptr, mind, mval)
}

// lleMGrain is the number of rows of M a chunk of LLEMatrix forms (one to two
// milliseconds a pass at K = 10, so a cancel lands within a few).
const lleMGrain = 1024
