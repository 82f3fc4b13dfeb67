package sparse

import (
	"context"
	"fmt"
	"slices"
)

// COO is a sparse matrix builder in coordinate form: a list of (i, j, v)
// triplets in any order, duplicates allowed. ToCSR sorts them and sums the
// duplicates.
type COO struct {
	r, c int
	rows []int
	cols []int
	vals []float64
}

// NewCOO returns an empty r×c builder with room for capacity entries.
func NewCOO(r, c, capacity int) *COO {
	if r < 0 || c < 0 {
		panic(fmt.Sprintf("sparse: NewCOO: negative shape %d×%d", r, c))
	}
	capacity = max(0, capacity)
	return &COO{r: r, c: c, rows: make([]int, 0, capacity), cols: make([]int, 0, capacity), vals: make([]float64, 0, capacity)}
}

// Dims returns the shape.
func (t *COO) Dims() (r, c int) { return t.r, t.c }

// Len returns the number of triplets added (duplicates counted).
func (t *COO) Len() int { return len(t.vals) }

// Add appends the triplet (i, j, v). It panics if (i, j) is out of range.
func (t *COO) Add(i, j int, v float64) {
	if i < 0 || i >= t.r || j < 0 || j >= t.c {
		panic(fmt.Sprintf("sparse: COO.Add(%d, %d) out of range for %d×%d", i, j, t.r, t.c))
	}
	t.rows = append(t.rows, i)
	t.cols = append(t.cols, j)
	t.vals = append(t.vals, v)
}

// Triplets returns the raw triplet arrays (read-only views).
func (t *COO) Triplets() (rows, cols []int, vals []float64) { return t.rows, t.cols, t.vals }

// ToCSR returns the CSR with the triplets' values, duplicates summed (a sum
// that is zero stays stored). O(nnz + r) plus a sort of each row.
func (t *COO) ToCSR() *CSR {
	a, _ := t.ToCSRCtx(context.Background())
	return a
}

// ToCSRCtx is ToCSR checking ctx as it goes (every ~10⁵ triplets: millions
// of triplets take hundreds of milliseconds); it returns ctx's error if ctx
// is done before the matrix is.
func (t *COO) ToCSRCtx(ctx context.Context) (*CSR, error) {
	stop := &stopper{ctx: ctx}
	a := buildCSR(stop, t.r, t.c, t.rows, t.cols, t.vals, func(a, b float64) float64 { return a + b })
	return a, stop.err
}

// buildCSR bucket-sorts triplets by row, merges duplicates with merge in
// the triplets' order and sorts each row by column. It returns nil once
// stop says so.
func buildCSR(stop *stopper, r, c int, rows, cols []int, vals []float64, merge func(a, b float64) float64) *CSR {
	n := len(vals)
	indptr := make([]int, r+1)
	for k, i := range rows {
		indptr[i+1]++
		if k%stopEvery == 0 && stop.tick(stopEvery) {
			return nil
		}
	}
	for i := 0; i < r; i++ {
		indptr[i+1] += indptr[i]
	}
	next := make([]int, r)
	copy(next, indptr[:r])
	type entry struct {
		j int
		v float64
	}
	es := make([]entry, n)
	for k, i := range rows {
		es[next[i]] = entry{cols[k], vals[k]}
		next[i]++
		if k%(stopEvery/8) == 0 && stop.tick(stopEvery) { // scattered writes: ~8× a sequential step
			return nil
		}
	}
	ind := make([]int, 0, n)
	data := make([]float64, 0, n)
	out := make([]int, r+1)
	if c <= max(1<<16, 4*n) {
		// Merge duplicates in a dense accumulator, in the triplets' order,
		// then sort each row's distinct columns: no sort of the (many)
		// duplicates.
		acc := make([]float64, c)
		seen := make([]int, c) // row+1 that last touched the column
		for i := 0; i < r; i++ {
			row := es[indptr[i]:indptr[i+1]]
			if stop.tick(2 * len(row)) {
				return nil
			}
			start := len(ind)
			for _, e := range row {
				if seen[e.j] != i+1 {
					seen[e.j] = i + 1
					acc[e.j] = e.v
					ind = append(ind, e.j)
					continue
				}
				acc[e.j] = merge(acc[e.j], e.v)
			}
			cols := ind[start:]
			slices.Sort(cols)
			for _, j := range cols {
				data = append(data, acc[j])
			}
			out[i+1] = len(ind)
		}
		return newCSR(r, c, out, ind, data)
	}
	for i := 0; i < r; i++ {
		row := es[indptr[i]:indptr[i+1]]
		if stop.tick(4 * len(row)) {
			return nil
		}
		slices.SortStableFunc(row, func(a, b entry) int { return a.j - b.j })
		for k, e := range row {
			if k > 0 && e.j == row[k-1].j {
				data[len(data)-1] = merge(data[len(data)-1], e.v)
				continue
			}
			ind = append(ind, e.j)
			data = append(data, e.v)
		}
		out[i+1] = len(ind)
	}
	return newCSR(r, c, out, ind, data)
}
