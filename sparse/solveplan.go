package sparse

import (
	"cmp"
	"slices"
	"sync"

	"github.com/manifoldlab/manifold/backend"
)

// A solve with L·D·Lᵀ on all cores. The elimination tree is cut, by its
// structure alone, into disjoint subtrees (each holding at most
// 1/solveParts of the factor's entries) and the top part above them.
// The forward solve runs the subtrees at once: a column's updates to rows
// of its own subtree go to the vector, those to rows of the top part
// (the ancestors of the subtree's root, whose numbers are larger than the
// root's) to the subtree's own accumulator; the accumulators are then
// added to the top rows in subtree order and the top columns solved
// alone. The backward solve runs the other way: the top columns first,
// then the subtrees at once, each column a dot product over rows already
// final. Every value is computed in an order fixed by the structure, so the
// solution is the same bit for bit with any number of goroutines.

// solveParts: no subtree holds more than 1/solveParts of the factor's
// entries (the top part above them is solved alone). With 8 the top part
// of LLE's and the kNN graph's factors on 10,000–50,000-point swiss rolls
// holds 18–30 % of the entries; with 32, 26–40 %; with 4, 15–20 % but a
// subtree may hold a quarter (measured with bench/scale/ldlorder's
// matrices).
const solveParts = 8

// solvePlanMinNNZ is the factor size from which solves use the plan:
// below it handing a solve to goroutines gains nothing, and in the
// certified eigensolve, whose certificate's factorization runs beside the
// Lanczos solves, it costs. Measured (single fits alternating, medians of
// 12–25): with serial solves up to 2²⁰ entries instead of 2¹⁷, Laplacian
// eigenmaps of 10,000 swiss-roll points (a factor of 242,324 entries)
// 88.6 → 81.3 ms, LTSA (782,507 entries) 203 → 192 ms, LLE (777,626)
// 161 → 156 ms; one solve with the 242,324-entry factor alone took
// 0.56 ms serially and 0.66 ms on the plan.
const solvePlanMinNNZ = 1 << 20

// treeCut is a cut of the elimination tree (parent[j] > j) into disjoint
// subtrees, each holding at most 1/parts of the work, and the top part
// above them.
type treeCut struct {
	cols     []int32 // the subtrees' columns, subtree by subtree, ascending within one
	colStart []int32 // subtree s: cols[colStart[s]:colStart[s+1]]
	root     []int32 // each subtree's root, its largest column
	order    []int32 // subtrees by work, largest first (the goroutines' order)
	top      []int32 // the top part's columns, ascending
	topPos   []int32 // position of a top column in top, −1 elsewhere
}

// solvePlan is the cut of the elimination tree for the solves.
type solvePlan struct {
	treeCut
	bound   []int32 // each subtree's top rows (positions in top), ascending: bound[boundAt[s]:boundAt[s+1]]
	boundAt []int32
}

// plan returns the analysis's solve plan, computing it once from a
// factor's row indices (the pattern of L, the same for every factor of
// the analysis); nil when the factor is too small to share.
func (s *LDLAnalysis) plan(rowIdx []int32) *solvePlan {
	s.planOnce.Do(func() {
		if s.NNZ() >= solvePlanMinNNZ {
			s.solvePlan = s.cutForSolves(rowIdx)
		}
	})
	return s.solvePlan
}

// cutTree cuts the elimination tree into subtrees of at most
// 1/parts of the total work (work[j]: column j's own) and the top part.
func cutTree(parent []int32, work []int64, parts int) *treeCut {
	n := len(parent)
	sub := make([]int64, n) // work of the subtree of each column (its own column included)
	total := int64(0)
	for j := range n {
		sub[j] += work[j]
		if p := parent[j]; p >= 0 {
			sub[p] += sub[j]
		} else {
			total += sub[j]
		}
	}
	limit := total / int64(parts)
	owner := make([]int32, n) // subtree of each column, −1 for the top part
	p := &treeCut{topPos: make([]int32, n)}
	for j := n - 1; j >= 0; j-- {
		par := parent[j]
		switch {
		case sub[j] > limit:
			owner[j] = -1
		case par < 0 || owner[par] < 0:
			owner[j] = int32(len(p.root))
			p.root = append(p.root, int32(j))
		default:
			owner[j] = owner[par]
		}
	}
	m := len(p.root)
	p.colStart = make([]int32, m+1)
	for j := range n {
		p.topPos[j] = -1
		if o := owner[j]; o >= 0 {
			p.colStart[o+1]++
		} else {
			p.topPos[j] = int32(len(p.top))
			p.top = append(p.top, int32(j))
		}
	}
	for t := range m {
		p.colStart[t+1] += p.colStart[t]
	}
	p.cols = make([]int32, p.colStart[m])
	next := slices.Clone(p.colStart[:m])
	for j := range n {
		if o := owner[j]; o >= 0 {
			p.cols[next[o]] = int32(j)
			next[o]++
		}
	}
	p.order = make([]int32, m)
	for t := range p.order {
		p.order[t] = int32(t)
	}
	slices.SortStableFunc(p.order, func(a, b int32) int { return cmp.Compare(sub[p.root[b]], sub[p.root[a]]) })
	return p
}

// cutForSolves cuts the elimination tree by the factor's entries and
// finds each subtree's rows in the top part.
func (s *LDLAnalysis) cutForSolves(rowIdx []int32) *solvePlan {
	work := make([]int64, s.n)
	for j := range s.n {
		work[j] = int64(s.colStart[j+1]-s.colStart[j]) + 1
	}
	p := &solvePlan{treeCut: *cutTree(s.parent, work, solveParts)}
	m := len(p.root)
	// Each subtree's top rows: the rows beyond its root in its columns.
	mark := make([]int32, len(p.top))
	for i := range mark {
		mark[i] = -1
	}
	p.boundAt = make([]int32, m+1)
	for t := range m {
		r0 := p.root[t]
		start := len(p.bound)
		for _, j := range p.cols[p.colStart[t]:p.colStart[t+1]] {
			for _, r := range rowIdx[s.colStart[j]:s.colStart[j+1]] {
				if r > r0 {
					if q := p.topPos[r]; mark[q] != int32(t) {
						mark[q] = int32(t)
						p.bound = append(p.bound, q)
					}
				}
			}
		}
		slices.Sort(p.bound[start:])
		p.boundAt[t+1] = int32(len(p.bound))
	}
	return p
}

// solvePlanned overwrites y with (L·D·Lᵀ)⁻¹·y in the factor's order by the
// plan.
func (f *LDL) solvePlanned(p *solvePlan, y []float64) {
	cs, rowIdx, val := f.s.colStart, f.rowIdx, f.val
	m := len(p.root)
	acc := make([]float64, len(p.bound)) // the subtrees' sums for their top rows
	var pool sync.Pool
	backend.ParallelFor(m, 1, func(lo, hi int) {
		sum, _ := pool.Get().([]float64)
		if sum == nil {
			sum = make([]float64, len(p.top))
		}
		for _, t := range p.order[lo:hi] {
			r0 := p.root[t]
			for _, j := range p.cols[p.colStart[t]:p.colStart[t+1]] {
				yj := y[j]
				if yj == 0 {
					continue
				}
				rows, vals := rowIdx[cs[j]:cs[j+1]], val[cs[j]:cs[j+1]]
				vals = vals[:len(rows)]
				for e, r := range rows {
					if r <= r0 {
						y[r] -= vals[e] * yj
					} else {
						sum[p.topPos[r]] -= vals[e] * yj
					}
				}
			}
			for k, q := range p.bound[p.boundAt[t]:p.boundAt[t+1]] {
				acc[int(p.boundAt[t])+k] = sum[q]
				sum[q] = 0
			}
		}
		pool.Put(sum)
	})
	for t := range m {
		for k, q := range p.bound[p.boundAt[t]:p.boundAt[t+1]] {
			y[p.top[q]] += acc[int(p.boundAt[t])+k]
		}
	}
	for _, j := range p.top {
		axpyBelow(y, rowIdx[cs[j]:cs[j+1]], val[cs[j]:cs[j+1]], y[j])
	}
	for j, d := range f.d {
		y[j] /= d
	}
	for i := len(p.top) - 1; i >= 0; i-- {
		j := p.top[i]
		y[j] = dotBelow(y, rowIdx[cs[j]:cs[j+1]], val[cs[j]:cs[j+1]], y[j])
	}
	backend.ParallelFor(m, 1, func(lo, hi int) {
		for _, t := range p.order[lo:hi] {
			cols := p.cols[p.colStart[t]:p.colStart[t+1]]
			for i := len(cols) - 1; i >= 0; i-- {
				j := cols[i]
				y[j] = dotBelow(y, rowIdx[cs[j]:cs[j+1]], val[cs[j]:cs[j+1]], y[j])
			}
		}
	})
}

// axpyBelow sets y[rows[e]] −= vals[e]·yj (a column of the forward
// solve; nothing when yj is 0).
func axpyBelow(y []float64, rows []int32, vals []float64, yj float64) {
	if yj == 0 {
		return
	}
	vals = vals[:len(rows)]
	for e, r := range rows {
		y[r] -= vals[e] * yj
	}
}

// dotBelow returns s − Σ vals[e]·y[rows[e]] (a column of the backward
// solve).
func dotBelow(y []float64, rows []int32, vals []float64, s float64) float64 {
	vals = vals[:len(rows)]
	for e, r := range rows {
		s -= vals[e] * y[r]
	}
	return s
}

// solvePlannedBlock is solvePlanned for the n×b row-major y (b ≥ 2): the
// b columns in one pass over the factor.
func (f *LDL) solvePlannedBlock(p *solvePlan, y []float64, b int) {
	cs, rowIdx, val := f.s.colStart, f.rowIdx, f.val
	m := len(p.root)
	acc := make([]float64, len(p.bound)*b)
	var pool sync.Pool
	axpy := func(dst []float64, l float64, x []float64) {
		if len(x) == 2 { // the eigensolver's usual block
			dst = dst[:2]
			dst[0] -= l * x[0]
			dst[1] -= l * x[1]
			return
		}
		dst = dst[:len(x)]
		for c, v := range x {
			dst[c] -= l * v
		}
	}
	backend.ParallelFor(m, 1, func(lo, hi int) {
		sum, _ := pool.Get().([]float64)
		if sum == nil {
			sum = make([]float64, len(p.top)*b)
		}
		for _, t := range p.order[lo:hi] {
			r0 := p.root[t]
			for _, j := range p.cols[p.colStart[t]:p.colStart[t+1]] {
				yj := y[int(j)*b : int(j)*b+b]
				rows, vals := rowIdx[cs[j]:cs[j+1]], val[cs[j]:cs[j+1]]
				vals = vals[:len(rows)]
				for e, r := range rows {
					if r <= r0 {
						axpy(y[int(r)*b:int(r)*b+b], vals[e], yj)
					} else {
						q := int(p.topPos[r])
						axpy(sum[q*b:q*b+b], vals[e], yj)
					}
				}
			}
			for k, q := range p.bound[p.boundAt[t]:p.boundAt[t+1]] {
				o := (int(p.boundAt[t]) + k) * b
				copy(acc[o:o+b], sum[int(q)*b:int(q)*b+b])
				clear(sum[int(q)*b : int(q)*b+b])
			}
		}
		pool.Put(sum)
	})
	for t := range m {
		for k, q := range p.bound[p.boundAt[t]:p.boundAt[t+1]] {
			o := (int(p.boundAt[t]) + k) * b
			yr := y[int(p.top[q])*b : int(p.top[q])*b+b]
			for c, v := range acc[o : o+b] {
				yr[c] += v
			}
		}
	}
	for _, j := range p.top {
		yj := y[int(j)*b : int(j)*b+b]
		rows, vals := rowIdx[cs[j]:cs[j+1]], val[cs[j]:cs[j+1]]
		vals = vals[:len(rows)]
		for e, r := range rows {
			axpy(y[int(r)*b:int(r)*b+b], vals[e], yj)
		}
	}
	for j, d := range f.d {
		for c := range b {
			y[j*b+c] /= d
		}
	}
	dotsBelow := func(j int32) {
		yj := y[int(j)*b : int(j)*b+b]
		rows, vals := rowIdx[cs[j]:cs[j+1]], val[cs[j]:cs[j+1]]
		vals = vals[:len(rows)]
		if b == 2 {
			s0, s1 := yj[0], yj[1]
			for e, r := range rows {
				l := vals[e]
				yr := y[2*int(r) : 2*int(r)+2 : 2*int(r)+2]
				s0 -= l * yr[0]
				s1 -= l * yr[1]
			}
			yj[0], yj[1] = s0, s1
			return
		}
		for e, r := range rows {
			l := vals[e]
			yr := y[int(r)*b : int(r)*b+b]
			for c := range yj {
				yj[c] -= l * yr[c]
			}
		}
	}
	for i := len(p.top) - 1; i >= 0; i-- {
		dotsBelow(p.top[i])
	}
	backend.ParallelFor(m, 1, func(lo, hi int) {
		for _, t := range p.order[lo:hi] {
			cols := p.cols[p.colStart[t]:p.colStart[t+1]]
			for i := len(cols) - 1; i >= 0; i-- {
				dotsBelow(cols[i])
			}
		}
	})
}
