package sparse

import (
	"context"
	"fmt"
	"slices"

	"github.com/manifoldlab/manifold/backend"
)

// SumBlocks returns the n×n sum Σᵢ Pᵢ·Bᵢ·Pᵢᵀ of m dense k×k blocks: block
// i is blocks[i·k²:(i+1)·k²] (row-major) and sits on the rows and columns
// idx[i·k:(i+1)·k], so entry (idx[i·k+a], idx[i·k+c]) receives
// blocks[i·k²+a·k+c]. It is the assembly of LTSA's alignment matrix (Zhang &
// Zha, SIAM J. Sci. Comput. 26(1), 2004, §5) and of any stiffness-like sum
// of local matrices. Each entry is summed in the order of i, then a, then
// c — the order in which COO.ToCSR sums the same values added as triplets
// in that order — so the result is the triplets' bit for bit, whatever
// the number of workers; but no triplet is stored (3·m·k² words less), and
// the rows are summed in parallel. Explicit zeros stay stored. It checks
// ctx between chunks of rows.
//
// It panics if idx does not hold m·k indices in [0, n) for the m blocks of
// blocks.
func SumBlocks(ctx context.Context, n, k int, idx []int, blocks []float64) (*CSR, error) {
	if k <= 0 || len(idx)%k != 0 || len(blocks) != len(idx)*k {
		panic(fmt.Sprintf("sparse: SumBlocks: %d indices and %d values for blocks of %d×%d", len(idx), len(blocks), k, k))
	}
	// Who touches row j: the positions p = i·k + a with idx[p] = j, in
	// increasing p (i, then a).
	mptr := make([]int, n+1)
	for _, j := range idx {
		if j < 0 || j >= n {
			panic(fmt.Sprintf("sparse: SumBlocks: index %d out of range [0, %d)", j, n))
		}
		mptr[j+1]++
	}
	for j := 0; j < n; j++ {
		mptr[j+1] += mptr[j]
	}
	memb := make([]int, len(idx))
	next := slices.Clone(mptr[:n])
	for p, j := range idx {
		memb[next[j]] = p
		next[j]++
	}
	// Two passes over the rows, each in parallel: the number of distinct
	// columns of each row, then the sorted columns and their sums.
	type scratch struct {
		acc  []float64
		seen []int // mark(j) once column l of row j is touched
		cols []int
	}
	pool := make(chan *scratch, backend.Workers())
	get := func() *scratch {
		select {
		case s := <-pool:
			return s
		default:
			return &scratch{acc: make([]float64, n), seen: make([]int, n)}
		}
	}
	kk := k * k
	// row gathers row j's distinct columns into s.cols (unsorted) and, when
	// sum is set (the second pass), their sums into s.acc. The marks of
	// the two passes differ (j+1 and n+j+1), so scratch moves between
	// chunks and passes without clearing.
	row := func(s *scratch, j int, sum bool) {
		s.cols = s.cols[:0]
		mark := j + 1
		if sum {
			mark += n
		}
		for _, p := range memb[mptr[j]:mptr[j+1]] {
			i, a := p/k, p%k
			cols := idx[i*k : i*k+k]
			vals := blocks[i*kk+a*k : i*kk+a*k+k]
			for c, l := range cols {
				if s.seen[l] != mark {
					s.seen[l] = mark
					s.cols = append(s.cols, l)
					if sum {
						s.acc[l] = vals[c]
					}
					continue
				}
				if sum {
					s.acc[l] += vals[c]
				}
			}
		}
	}
	// Chunks of about 2¹⁶ accumulated values (well under a millisecond).
	grain := max(1, (1<<16)/max(1, len(idx)/max(1, n)*k))
	indptr := make([]int, n+1)
	err := backend.ParallelForCtx(ctx, n, grain, func(lo, hi int) {
		s := get()
		for j := lo; j < hi; j++ {
			row(s, j, false)
			indptr[j+1] = len(s.cols)
		}
		pool <- s
	})
	if err != nil {
		return nil, err
	}
	for j := 0; j < n; j++ {
		indptr[j+1] += indptr[j]
	}
	ind := make([]int, indptr[n])
	data := make([]float64, indptr[n])
	err = backend.ParallelForCtx(ctx, n, grain, func(lo, hi int) {
		s := get()
		for j := lo; j < hi; j++ {
			row(s, j, true)
			cols := ind[indptr[j]:indptr[j+1]]
			copy(cols, s.cols)
			slices.Sort(cols)
			vals := data[indptr[j]:indptr[j+1]]
			for q, l := range cols {
				vals[q] = s.acc[l]
			}
		}
		pool <- s
	})
	if err != nil {
		return nil, err
	}
	return newCSR(n, n, indptr, ind, data), nil
}
