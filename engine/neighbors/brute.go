package neighbors

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/sparse"
)

// space is what blocked brute force needs of a metric space: distance
// keys (squared Euclidean distances, or cosine distances) for a tile of
// queries × points from a fast kernel (Gemm or sparse products), the same
// key computed directly for one pair (used to finish the selected pairs, so
// every method reports the same distances), and the map from key to the
// reported distance.
type space interface {
	numPoints() int
	numQueries() int
	// colBlock is the number of points per tile.
	colBlock() int
	// keyCost is the flam of one key (the features of a dense row, the
	// stored entries of an average sparse row).
	keyCost() float64
	// tile fills dst[(i−q0)·cb + (j−c0)] for queries [q0, q1) and points
	// [c0, c1), with row stride cb = c1 − c0.
	tile(dst []float64, q0, q1, c0, c1 int) error
	exact(q, j int) float64
	report(key float64) float64
}

// euclidSpace: dense rows, squared Euclidean keys from backend.SqDistCtx.
type euclidSpace struct {
	impl   backend.Impl
	x, q   blas64.General
	xn, qn []float64
}

func (s *euclidSpace) numPoints() int   { return s.x.Rows }
func (s *euclidSpace) numQueries() int  { return s.q.Rows }
func (s *euclidSpace) colBlock() int    { return 2048 }
func (s *euclidSpace) keyCost() float64 { return float64(max(1, s.x.Cols)) }

func (s *euclidSpace) tile(dst []float64, q0, q1, c0, c1 int) error {
	cb := c1 - c0
	return backend.SqDistCtx(context.Background(), s.impl, blas64.General{Rows: q1 - q0, Cols: cb, Stride: cb, Data: dst},
		rows(s.q, q0, q1), rows(s.x, c0, c1), s.qn[q0:q1], s.xn[c0:c1])
}

func (s *euclidSpace) exact(q, j int) float64 {
	a := s.q.Data[q*s.q.Stride : q*s.q.Stride+s.q.Cols]
	b := s.x.Data[j*s.x.Stride : j*s.x.Stride+s.x.Cols]
	return sqDist(a, b)
}

func (s *euclidSpace) report(key float64) float64 { return math.Sqrt(key) }

// sqDist is the squared Euclidean distance of two float64 rows: the
// reported distance of the exact searches, the k-d tree and the float64
// rows searched approximately (sqDistSums).
func sqDist(a, b []float64) float64 { return sqDistSums(a, b) }

// rows returns the view of rows [r0, r1) of g.
func rows(g blas64.General, r0, r1 int) blas64.General {
	if r1 == r0 {
		return blas64.General{Cols: g.Cols, Stride: max(1, g.Stride)}
	}
	return blas64.General{Rows: r1 - r0, Cols: g.Cols, Stride: g.Stride, Data: g.Data[r0*g.Stride:]}
}

// cosineSpace: dense rows scaled to unit norm (zero rows stay zero), keys
// 1 − x̂·ŷ from one Gemm per tile.
type cosineSpace struct {
	impl backend.Impl
	x, q blas64.General // normalised copies
}

func normalizedCopy(g blas64.General) blas64.General {
	out := blas64.General{Rows: g.Rows, Cols: g.Cols, Stride: max(1, g.Cols), Data: make([]float64, g.Rows*g.Cols)}
	for i := 0; i < g.Rows; i++ {
		src := g.Data[i*g.Stride : i*g.Stride+g.Cols]
		dst := out.Data[i*g.Cols : (i+1)*g.Cols]
		s := 0.0
		for _, v := range src {
			s += v * v
		}
		if s == 0 {
			continue
		}
		s = 1 / math.Sqrt(s)
		for c, v := range src {
			dst[c] = v * s
		}
	}
	return out
}

func (s *cosineSpace) numPoints() int   { return s.x.Rows }
func (s *cosineSpace) numQueries() int  { return s.q.Rows }
func (s *cosineSpace) colBlock() int    { return 2048 }
func (s *cosineSpace) keyCost() float64 { return float64(max(1, s.x.Cols)) }

func (s *cosineSpace) tile(dst []float64, q0, q1, c0, c1 int) error {
	cb := c1 - c0
	d := blas64.General{Rows: q1 - q0, Cols: cb, Stride: cb, Data: dst}
	s.impl.Gemm(blas.NoTrans, blas.Trans, -1, rows(s.q, q0, q1), rows(s.x, c0, c1), 0, d)
	for k := range dst[:(q1-q0)*cb] {
		dst[k] = math.Max(0, 1+dst[k])
	}
	return nil
}

func (s *cosineSpace) exact(q, j int) float64 {
	a := s.q.Data[q*s.q.Stride : q*s.q.Stride+s.q.Cols]
	b := s.x.Data[j*s.x.Stride : j*s.x.Stride+s.x.Cols]
	b = b[:len(a)]
	dot := 0.0
	for c, v := range a {
		dot += v * b[c]
	}
	return math.Max(0, 1-dot)
}

func (s *cosineSpace) report(key float64) float64 { return key }

// sparseSpace: sparse rows; dot products accumulated through the points'
// transpose (an inverted index), so a tile costs the products of
// overlapping terms only. Keys are squared Euclidean or cosine distances.
type sparseSpace struct {
	metric Metric
	x, q   *sparse.CSR
	xt     *sparse.CSR // xᵀ: for every term, the points that hold it
	xn, qn []float64   // squared row norms
}

func newSparseSpace(metric Metric, x, q *sparse.CSR) *sparseSpace {
	s := &sparseSpace{metric: metric, x: x, q: q, xt: x.Transpose(), xn: sqNorms(x)}
	if q == x {
		s.qn = s.xn
	} else {
		s.qn = sqNorms(q)
	}
	return s
}

func sqNorms(a *sparse.CSR) []float64 {
	r, _ := a.Dims()
	out := make([]float64, r)
	for i := range out {
		_, v := a.Row(i)
		for _, x := range v {
			out[i] += x * x
		}
	}
	return out
}

func (s *sparseSpace) numPoints() int  { r, _ := s.x.Dims(); return r }
func (s *sparseSpace) numQueries() int { r, _ := s.q.Dims(); return r }
func (s *sparseSpace) colBlock() int   { return s.numPoints() }
func (s *sparseSpace) keyCost() float64 {
	return max(1, float64(s.x.NNZ())/float64(max(1, s.numPoints())))
}

func (s *sparseSpace) tile(dst []float64, q0, q1, c0, c1 int) error {
	cb := c1 - c0
	backend.ParallelFor(q1-q0, 16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			acc := dst[i*cb : (i+1)*cb]
			clear(acc)
			terms, vals := s.q.Row(q0 + i)
			for p, t := range terms {
				v := vals[p]
				docs, ws := s.xt.Row(t)
				for r, j := range docs {
					if j >= c0 && j < c1 {
						acc[j-c0] += v * ws[r]
					}
				}
			}
			qn := s.qn[q0+i]
			for c := range acc {
				acc[c] = s.key(acc[c], qn, s.xn[c0+c])
			}
		}
	})
	return nil
}

func (s *sparseSpace) key(dot, qn, xn float64) float64 {
	if s.metric == Cosine {
		if qn == 0 || xn == 0 {
			return 1
		}
		return math.Max(0, 1-dot/math.Sqrt(qn*xn))
	}
	return math.Max(0, qn+xn-2*dot)
}

func (s *sparseSpace) exact(q, j int) float64 {
	ac, av := s.q.Row(q)
	bc, bv := s.x.Row(j)
	if s.metric == Cosine {
		return s.key(sparse.Dot(ac, av, bc, bv), s.qn[q], s.xn[j])
	}
	// Euclidean: Σ over the union of the two patterns of (a − b)².
	return sparse.SqDist(ac, av, bc, bv)
}

func (s *sparseSpace) report(key float64) float64 {
	if s.metric == Cosine {
		return key
	}
	return math.Sqrt(key)
}

// queryBlock returns the number of queries per tile: 512, fewer when a
// tile row is long (at most 2²¹ keys, 16 MiB, per tile) or its keys are
// costly (at most tileFlam per tile, so that ctx is checked every ~20 ms).
func queryBlock(cb int, keyCost float64) int {
	return max(1, min(512, (1<<21)/max(1, cb), int(tileFlam/(float64(max(1, cb))*keyCost))))
}

// tileFlam bounds the work of one tile between two checks of ctx: about
// 20 ms of the pure-Go backend.
const tileFlam = 3e7

// symmetricSpace marks the dense spaces whose tile (J, I) is the transpose
// of tile (I, J) when the queries are the points.
type symmetricSpace interface{ symmetric() }

func (*euclidSpace) symmetric() {}
func (*cosineSpace) symmetric() {}

// bruteKNN finds the k nearest points of every query; self says that the
// queries are the points (query i skips point i).
func bruteKNN(ctx context.Context, s space, k int, self bool) (*Result, error) {
	m, n := s.numQueries(), s.numPoints()
	res := &Result{Ptr: make([]int, m+1), Ind: make([]int, m*k), Dist: make([]float64, m*k)}
	for i := range res.Ptr {
		res.Ptr[i] = i * k
	}
	if m == 0 || k == 0 {
		return res, nil
	}
	if _, ok := s.(symmetricSpace); ok && self && n > symBlock {
		return res, bruteKNNSym(ctx, s, k, res)
	}
	heaps := make([]*topK, queryBlock(min(n, s.colBlock()), s.keyCost()))
	for i := range heaps {
		heaps[i] = newTopK(k + tieSlack(k))
	}
	err := tiles(ctx, s, func(q0, q1 int) {
		for i := q0; i < q1; i++ {
			heaps[i-q0].reset()
		}
	}, func(q, c0 int, row []float64) {
		h := heaps[q%len(heaps)]
		skip := -1
		if self {
			skip = q - c0
		}
		bound := h.bound()
		for c, d := range row {
			if d <= bound && c != skip {
				h.push(d, c0+c)
				bound = h.bound()
			}
		}
	}, func(q0, q1 int) {
		backend.ParallelFor(q1-q0, 16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				finish(s, q0+i, k, heaps[i], res)
			}
		})
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// tiles computes the keys of every query against every point, a tile of
// queryBlock queries × colBlock points at a time, and hands each query's
// row of a tile to visit (in parallel over the queries of the tile, each
// query on one goroutine at a time). begin and end bracket each block of
// queries; ctx is checked between blocks.
func tiles(ctx context.Context, s space, begin func(q0, q1 int), visit func(q, c0 int, row []float64), end func(q0, q1 int)) error {
	m, n := s.numQueries(), s.numPoints()
	cb := max(1, min(n, s.colBlock()))
	qb := queryBlock(cb, s.keyCost())
	buf := make([]float64, qb*cb)
	for q0 := 0; q0 < m; q0 += qb {
		q1 := min(m, q0+qb)
		begin(q0, q1)
		for c0 := 0; c0 < n; c0 += cb {
			if err := ctx.Err(); err != nil {
				return err
			}
			c1 := min(n, c0+cb)
			w := c1 - c0
			if err := s.tile(buf, q0, q1, c0, c1); err != nil {
				return err
			}
			backend.ParallelFor(q1-q0, 16, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					visit(q0+i, c0, buf[i*w:(i+1)*w])
				}
			})
		}
		end(q0, q1)
		addProgress(ctx, q1-q0)
	}
	return nil
}

// symBlock is the largest tile edge of the symmetric brute force (a
// 1024×1024 tile of keys is 8 MiB); with many features the edge shrinks
// so that a tile stays within tileFlam (symEdge).
const symBlock = 1024

// symEdge is the tile edge for keys of the given cost: a multiple of 64
// between 64 and symBlock.
func symEdge(keyCost float64) int {
	e := int(math.Sqrt(tileFlam/keyCost)) / 64 * 64
	return max(64, min(symBlock, e))
}

// bruteKNNSym is bruteKNN for a self search on a symmetric space: only the
// tiles (I, J) with J ≥ I are computed, each offering its pairs to the
// rows of block I and, read by columns, to the rows of block J, so the
// distance kernel does half the m·n·D work. Every row keeps its own heap
// (n·k pairs) until the end.
func bruteKNNSym(ctx context.Context, s space, k int, res *Result) error {
	n := s.numPoints()
	heaps := make([]topK, n)
	kk := k + tieSlack(k)
	pd, pj := make([]float64, n*kk), make([]int, n*kk)
	for i := range heaps {
		heaps[i] = topK{d: pd[i*kk : i*kk : (i+1)*kk], j: pj[i*kk : i*kk : (i+1)*kk], k: kk}
	}
	edge := symEdge(s.keyCost())
	buf := make([]float64, edge*edge)
	nb := (n + edge - 1) / edge
	tilesAll, tile := nb*(nb+1)/2, 0 // progress: n rows spread over the tiles
	for i0 := 0; i0 < n; i0 += edge {
		i1 := min(n, i0+edge)
		for j0 := i0; j0 < n; j0 += edge {
			addProgress(ctx, (tile+1)*n/tilesAll-tile*n/tilesAll)
			tile++
			if err := ctx.Err(); err != nil {
				return err
			}
			j1 := min(n, j0+edge)
			w := j1 - j0
			if err := s.tile(buf, i0, i1, j0, j1); err != nil {
				return err
			}
			// Rows of block I against the points of block J.
			backend.ParallelFor(i1-i0, 16, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					h := &heaps[i0+i]
					skip := -1
					if i0 == j0 {
						skip = i
					}
					bound := h.bound()
					for c, d := range buf[i*w : (i+1)*w] {
						if d <= bound && c != skip {
							h.push(d, j0+c)
							bound = h.bound()
						}
					}
				}
			})
			if i0 == j0 {
				continue
			}
			// Rows of block J against the points of block I: the tile's
			// columns, in strips of 64.
			backend.ParallelFor(w, 64, func(lo, hi int) {
				bounds := make([]float64, hi-lo)
				for c := lo; c < hi; c++ {
					bounds[c-lo] = heaps[j0+c].bound()
				}
				for i := 0; i < i1-i0; i++ {
					row := buf[i*w+lo : i*w+hi]
					for c, d := range row {
						if d <= bounds[c] {
							h := &heaps[j0+lo+c]
							h.push(d, i0+i)
							bounds[c] = h.bound()
						}
					}
				}
			})
		}
	}
	backend.ParallelFor(n, 64, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			finish(s, q, k, &heaps[q], res)
		}
	})
	return nil
}

// tieSlack is how many pairs the fast keys keep beyond the k asked for.
// The fast keys (a Gemm's ‖x‖² + ‖q‖² − 2x·q) carry rounding errors that
// differ between equal pairs — identical rows at different places of a
// tile, under an optimised BLAS — so the k least fast keys need not be
// the k least exact keys, (key, index) order, among near-ties: the slack
// lets the exact keys decide between up to tieSlack(k) of them.
func tieSlack(k int) int { return 2 + k/4 }

// finish writes the k pairs least by exact key (then index) of those kept
// in h as the neighbours of query q: their keys recomputed exactly, sorted
// by (key, index), mapped to distances.
func finish(s space, q, k int, h *topK, res *Result) {
	for c, j := range h.j {
		h.d[c] = s.exact(q, j)
	}
	sortPairs(h.d, h.j)
	ds := res.Dist[q*k : (q+1)*k]
	js := res.Ind[q*k : (q+1)*k]
	copy(js, h.j)
	for c := range ds {
		ds[c] = s.report(h.d[c])
	}
}

// radiusSlack: a pair is a candidate when its fast key is within this
// relative margin of the threshold; the exact key then decides.
const radiusSlack = 1e-6

// bruteRadius finds, for every query, the points whose exact key is at most
// thr.
func bruteRadius(ctx context.Context, s space, thr float64, self bool) (*Result, error) {
	m := s.numQueries()
	lists := make([]struct {
		d []float64
		j []int
	}, m)
	loose := thr*(1+radiusSlack) + 1e-300
	none := func(int, int) {}
	err := tiles(ctx, s, none, func(q, c0 int, row []float64) {
		l := &lists[q]
		for c, d := range row {
			j := c0 + c
			if d > loose || (self && j == q) {
				continue
			}
			if e := s.exact(q, j); e <= thr {
				l.d = append(l.d, e)
				l.j = append(l.j, j)
			}
		}
	}, none)
	if err != nil {
		return nil, err
	}
	res := &Result{Ptr: make([]int, m+1)}
	for q := range lists {
		res.Ptr[q+1] = res.Ptr[q] + len(lists[q].d)
	}
	res.Ind = make([]int, res.Ptr[m])
	res.Dist = make([]float64, res.Ptr[m])
	backend.ParallelFor(m, 64, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			l := lists[q]
			sortPairs(l.d, l.j)
			ds := res.Dist[res.Ptr[q]:res.Ptr[q+1]]
			copy(res.Ind[res.Ptr[q]:], l.j)
			for c, d := range l.d {
				ds[c] = s.report(d)
			}
		}
	})
	return res, nil
}

// newSparseSpaceNoIndex is a sparseSpace for exact pairs only (no inverted
// index is built).
func newSparseSpaceNoIndex(metric Metric, x *sparse.CSR) *sparseSpace {
	n := sqNorms(x)
	return &sparseSpace{metric: metric, x: x, q: x, xn: n, qn: n}
}
