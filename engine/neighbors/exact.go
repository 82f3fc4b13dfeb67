package neighbors

import (
	"cmp"
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/sparse"
)

// Exact finds the exact nearest training rows of one query row at a time
// (the request path of engine's geodesic models' Transform: Isomap,
// Landmark Isomap), with lower bounds that rule out most rows without
// reading them; KNN and Radius answer what KNNQuery and RadiusQuery would,
// one row at a time, with no allocation once the scratch has grown. The training rows are
// projected once on their top principal directions P (p of them); for any
// orthonormal P,
//
//	‖q − t‖² = ‖Pᵀ(q − t)‖² + ‖R(q − t)‖² ≥ ‖Pᵀq̄ − Pᵀt̄‖² + (‖Rq̄‖ − ‖Rt̄‖)²
//
// (R the projector on the complement, x̄ = x − mean). The rows are stored
// in the order of the leaves of a k-d tree on their first 8 projected
// coordinates (at most searchLeafRows rows a leaf), each leaf with the box
// of those coordinates and the range of its residual norms, and a leaf's
// projections chunk-major (its rows' coordinates 0–7 together, then 8–15,
// …), so that the bounds of a leaf stream through a few cache lines. A
// query is a best-first search over one queue of leaves (by their boxes)
// and rows (by their whole bounds), least first:
//
//   - a leaf taken from the queue bounds its rows 8 coordinates at a time
//     (bound8.go's kernels), dropping a row as soon as its partial sum
//     passes τ, the k-th least distance found so far, then adds the
//     residual term, and gives the rows that remain their exact distances
//     (τ shrinking as it goes);
//   - the search ends when the least bound in the queue passes τ.
//
// Before there is a τ, the first leaf gives its k rows of least bound their
// exact distances at once and puts its other rows into the queue (by their
// bounds), and the graph neighbours of the nearest of them (SeedWith: the
// model's neighbour graph) get theirs too, which brings τ close to its
// final value before the queue is searched: a row that survives its leaf's
// bounds after that is nearly always one the queue would have given an
// exact distance, so it gets one at once rather than a place in the queue.
// The rows kept are those of a brute-force search, with their distances
// computed by the same function (sqDist: the difference of the rows, in
// four partial sums), sorted by (distance, index). Memory:
// n·(p + 4) values besides the training rows (p = 64 for more than 64
// features).
//
// On USPS digits (7291 rows of 256 pixels, k = 10) a query opens about 85
// of 128 leaves, bounds about 4900 rows on 8 coordinates and adds 5000
// more 8-coordinate chunks, and computes about 61 exact distances: 108–137
// µs on 2026-11-25 (engine's BenchmarkTransformSearchUSPS, 2-core EPYC
// VM; 197–224 µs the same hour before the SSE2 kernels and the direct
// exact distances), where the 7291 exact distances are 1.9 million flam.
type Exact struct {
	train  blas64.General // the training rows, in their order
	mean   []float64
	basisT []float64 // p×D: the rows are orthonormal directions
	dirs   int       // p
	chunks int       // ⌈p/8⌉: the projections are padded with zeros to 8·chunks
	// In leaf order (position): the training index, Pᵀ(t − mean)
	// (chunk-major within each leaf, see leafBounds), ‖R(t − mean)‖ and a
	// bound on the rounding error of the latter.
	index  []int
	proj   []float64 // n×8·chunks
	res    []float64
	slack  []float64
	leaves []searchLeaf
	// position[i] is the position of training row i; near, when set
	// (SeedWith), lists training neighbours whose exact distances KNN
	// takes early.
	position []int32
	near     *searchGraph
}

// searchGraph lists each training row's neighbours (CSR row pointers and
// column indices of the model's graph).
type searchGraph struct{ ptr, ind []int }

// neighbours returns at most searchSeeds neighbours of training row i.
func (g *searchGraph) neighbours(i int) []int {
	lo, hi := g.ptr[i], g.ptr[i+1]
	return g.ind[lo:min(hi, lo+searchSeeds)]
}

// SeedWith lets KNN take the exact distances of the graph neighbours of
// the nearest row it has found first (see KNN); graph is a neighbour graph
// on the training rows, n×n (a model's). A graph of another size is
// ignored.
func (s *Exact) SeedWith(graph *sparse.CSR) {
	n, _ := graph.Dims()
	if n == s.train.Rows {
		s.near = &searchGraph{ptr: graph.RowPtr()[:n+1], ind: graph.ColIdx()}
	}
}

// searchLeaf is a run [lo, hi) of positions with the box of their first 8
// projected coordinates and the range of their residual norms.
type searchLeaf struct {
	lo, hi       int
	low, high    [searchBox]float64
	resLo, resHi float64
	slack        float64 // the largest slack of its rows
}

// ExactScratch is one query's working memory for Exact's KNN and Radius;
// its zero value is ready to use, and it grows to fit as it is used.
type ExactScratch struct {
	qp    []float64
	xc    []float64
	lb    [searchLeafRows]float64
	alive []int
	queue []searchItem
	first []searchItem
	done  []int32
	js    []int
	ds    []float64
}

const (
	// searchDirections is the number p of principal directions on which
	// the exact search bounds distances.
	searchDirections = 64
	// searchBox is the number of leading coordinates in a leaf's box.
	searchBox = 8
	// searchSeeds bounds the graph neighbours KNN seeds τ with.
	searchSeeds = 32
	// searchLeafRows is the largest number of rows of a leaf.
	searchLeafRows = 64
	// searchShave shaves every bound by a relative 1e-9 against rounding
	// before it is compared.
	searchShave = 1 - 1e-9
)

// NewExact prepares the search over the rows of train (n×D), which it
// keeps and reads at every query: the caller must not change them.
func NewExact(train blas64.General) *Exact {
	n, d := train.Rows, train.Cols
	s := &Exact{train: train, mean: make([]float64, d)}
	for i := 0; i < n; i++ {
		for j, v := range train.Data[i*train.Stride : i*train.Stride+d] {
			s.mean[j] += v
		}
	}
	for j := range s.mean {
		s.mean[j] /= float64(n)
	}
	p := min(searchDirections, d)
	var basis blas64.General
	if p < d && n > 1 && d <= 2048 {
		// The directions only make the bound tight (any orthonormal basis
		// gives a valid bound): a sample of the rows finds them.
		step := max(1, n/2000)
		ns := (n + step - 1) / step
		c := blas64.General{Rows: ns, Cols: d, Stride: d, Data: make([]float64, ns*d)}
		for i := 0; i < ns; i++ {
			for j, v := range train.Data[i*step*train.Stride : i*step*train.Stride+d] {
				c.Data[i*d+j] = v - s.mean[j]
			}
		}
		cov := blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: make([]float64, d*d)}
		blas64.Syrk(blas.Trans, 1, c, 0, cov)
		_, vecs, err := backend.EigTopCtx(context.Background(), backend.Active(), cov, p)
		if err == nil {
			basis = vecs
		}
	}
	s.basisT, s.dirs = make([]float64, p*d), p
	if basis.Data != nil {
		for j := 0; j < d; j++ {
			for c, v := range basis.Data[j*basis.Stride : j*basis.Stride+p] {
				s.basisT[c*d+j] = v
			}
		}
	} else { // coordinate axes: few features (the bound is then the distance), very many, or a failed eigensolve
		for j := 0; j < p; j++ {
			s.basisT[j*d+j] = 1
		}
	}
	s.chunks = (p + 7) / 8
	pp := 8 * s.chunks
	proj := make([]float64, n*pp)
	res := make([]float64, n)
	slack := make([]float64, n)
	backend.ParallelFor(n, 256, func(lo, hi int) {
		xc := make([]float64, d)
		for i := lo; i < hi; i++ {
			res[i], slack[i] = s.project(proj[i*pp:(i+1)*pp], xc, train.Data[i*train.Stride:i*train.Stride+d])
		}
	})
	s.index = make([]int, n)
	for i := range s.index {
		s.index[i] = i
	}
	s.split(proj, pp, min(p, searchBox), 0, n)
	s.position = make([]int32, n)
	for pos, i := range s.index {
		s.position[i] = int32(pos)
	}
	s.proj = make([]float64, n*pp)
	s.res = make([]float64, n)
	s.slack = make([]float64, n)
	for l := range s.leaves {
		f := &s.leaves[l]
		m := f.hi - f.lo
		f.resLo, f.resHi = math.Inf(1), math.Inf(-1)
		for c := range f.low {
			f.low[c], f.high[c] = math.Inf(1), math.Inf(-1)
		}
		for pos := f.lo; pos < f.hi; pos++ {
			i, r := s.index[pos], pos-f.lo
			for c := 0; c < s.chunks; c++ {
				copy(s.proj[f.lo*pp+(c*m+r)*8:][:8], proj[i*pp+c*8:])
			}
			for c, v := range proj[i*pp : i*pp+min(pp, searchBox)] {
				f.low[c], f.high[c] = min(f.low[c], v), max(f.high[c], v)
			}
			s.res[pos], s.slack[pos] = res[i], slack[i]
			f.resLo, f.resHi = min(f.resLo, res[i]), max(f.resHi, res[i])
			f.slack = max(f.slack, slack[i])
		}
	}
	return s
}

// split orders s.index[lo:hi] as the leaves of a k-d tree on the first
// axes projected coordinates (proj, pp a row): halves at the median of the
// coordinate of widest spread, until a part has at most searchLeafRows
// rows.
func (s *Exact) split(proj []float64, pp, axes, lo, hi int) {
	if hi-lo <= searchLeafRows {
		s.leaves = append(s.leaves, searchLeaf{lo: lo, hi: hi})
		return
	}
	axis, widest := 0, -1.0
	for c := 0; c < axes; c++ {
		a, b := math.Inf(1), math.Inf(-1)
		for _, i := range s.index[lo:hi] {
			a, b = min(a, proj[i*pp+c]), max(b, proj[i*pp+c])
		}
		if b-a > widest {
			axis, widest = c, b-a
		}
	}
	slices.SortFunc(s.index[lo:hi], func(i, j int) int {
		if c := cmp.Compare(proj[i*pp+axis], proj[j*pp+axis]); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	mid := lo + (hi-lo)/2
	s.split(proj, pp, axes, lo, mid)
	s.split(proj, pp, axes, mid, hi)
}

// project writes Pᵀ(x − mean) into dst (zeros past p), using xc (len(x))
// for x − mean, and returns ‖R(x − mean)‖ and a bound on its rounding
// error (‖R x̄‖² is found as ‖x̄‖² − ‖Pᵀx̄‖², whose cancellation costs up to
// a few ulps of ‖x̄‖²).
func (s *Exact) project(dst, xc, x []float64) (float64, float64) {
	d, p := len(x), s.dirs
	nx := 0.0
	for j, v := range x {
		c := v - s.mean[j]
		xc[j] = c
		nx += c * c
	}
	np := 0.0
	for c := range dst {
		if c >= p {
			dst[c] = 0
			continue
		}
		v := blas64.Dot(blas64.Vector{N: d, Inc: 1, Data: s.basisT[c*d : c*d+d]}, blas64.Vector{N: d, Inc: 1, Data: xc})
		dst[c] = v
		np += v * v
	}
	r := math.Sqrt(max(0, nx-np))
	return r, math.Sqrt(1e-13 * nx)
}

// prepare projects the query x into sc.qp and returns the projection, the
// residual norm and its error bound, with the scratch ready for k
// neighbours.
func (s *Exact) prepare(sc *ExactScratch, x []float64, k int) ([]float64, float64, float64) {
	pp := 8 * s.chunks
	if len(sc.qp) < pp {
		sc.qp = make([]float64, pp)
	}
	if cap(sc.queue) < len(s.leaves) {
		sc.queue = make([]searchItem, 0, 2*len(s.leaves)+searchLeafRows)
	}
	if cap(sc.alive) < searchLeafRows {
		sc.alive = make([]int, 0, searchLeafRows)
		sc.first = make([]searchItem, 0, searchLeafRows)
	}
	if cap(sc.js) < k {
		sc.js, sc.ds = make([]int, 0, k), make([]float64, 0, k)
	}
	if len(sc.xc) < len(x) {
		sc.xc = make([]float64, len(x))
	}
	qp := sc.qp[:pp]
	rq, eq := s.project(qp, sc.xc[:len(x)], x)
	return qp, rq, eq
}

// leafQueue returns the search queue holding every leaf with its lower
// bound for the query whose projection is qp (residual rq, its error eq).
func (s *Exact) leafQueue(sc *ExactScratch, qp []float64, rq, eq float64) []searchItem {
	h := sc.queue[:0]
	for l := range s.leaves {
		f := &s.leaves[l]
		b := 0.0
		for c, v := range qp[:min(len(qp), searchBox)] {
			if e := f.low[c] - v; e > 0 {
				b += e * e
			} else if e := v - f.high[c]; e > 0 {
				b += e * e
			}
		}
		r := 0.0
		if rq < f.resLo {
			r = f.resLo - rq
		} else if rq > f.resHi {
			r = rq - f.resHi
		}
		if r -= eq + f.slack; r > 0 {
			b += r * r
		}
		h = append(h, searchItem{b: b, id: int32(-1 - l)})
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	return h
}

// leafBounds returns the rows of leaf f (offsets from f.lo) whose bounds
// do not pass tau, with their bounds in sc.lb. The leaf's projections lie
// chunk-major: chunk c of its row r at proj[lo·pp + (c·m + r)·8 :][:8], m
// the leaf's rows, so each pass over a chunk reads one run of memory.
func (s *Exact) leafBounds(sc *ExactScratch, f *searchLeaf, qp []float64, rq, eq, tau float64) []int {
	m := f.hi - f.lo
	lb := sc.lb[:m]
	base := s.proj[f.lo*8*s.chunks:]
	res, slack := s.res[f.lo:f.hi], s.slack[f.lo:f.hi]
	tau /= searchShave
	// The rows kept are written without a branch: each is written at n,
	// and n moves on when it stays.
	alive := sc.alive[:m]
	n := 0
	sqDist8Rows(lb, (*[8]float64)(qp), base)
	for r, v := range lb {
		alive[n] = r
		if v <= tau {
			n++
		}
	}
	alive = alive[:n]
	for c := 1; c < s.chunks && n > 0; c++ {
		sqDist8Add(lb, (*[8]float64)(qp[c*8:]), base[c*m*8:], alive)
		n = 0
		for _, r := range alive {
			alive[n] = r
			if lb[r] <= tau {
				n++
			}
		}
		alive = alive[:n]
	}
	n = 0
	for _, r := range alive {
		v := lb[r]
		if e := math.Abs(rq-res[r]) - eq - slack[r]; e > 0 {
			v += e * e
		}
		lb[r] = v
		alive[n] = r
		if v <= tau {
			n++
		}
	}
	return alive[:n]
}

// KNN returns the k nearest training rows of x (indices, distances), in
// scratch owned by sc (valid until its next use), sorted by (distance,
// index). One Exact serves concurrent queries, each with its own scratch.
func (s *Exact) KNN(sc *ExactScratch, x []float64, k int) ([]int, []float64) {
	qp, rq, eq := s.prepare(sc, x, k)
	js, ds := sc.js[:0], sc.ds[:0]
	tau := math.Inf(1)
	exact := func(pos int) {
		js, ds = keepLeast(js, ds, k, s.index[pos], s.sqDist(x, s.index[pos]))
		if len(ds) == k {
			tau = maxOf(ds)
		}
	}
	// done: the positions given exact distances out of the queue's order
	// (the first leaf's best and the seeds), which the queue then skips.
	done := sc.done[:0]
	h := s.leafQueue(sc, qp, rq, eq)
	for len(h) > 0 && h[0].b*searchShave <= tau {
		var top searchItem
		top, h = popItem(h)
		if top.id >= 0 {
			if !slices.Contains(done, top.id) {
				exact(int(top.id))
			}
			continue
		}
		f := &s.leaves[-1-top.id]
		alive := s.leafBounds(sc, f, qp, rq, eq, tau)
		if len(ds) == k {
			// With τ close to its final value, a row whose bound passes
			// τ is nearly always among the distances the queue would give
			// it: it gets its exact distance now (τ shrinking as it goes).
			for _, r := range alive {
				if pos := int32(f.lo + r); sc.lb[r]*searchShave <= tau && !slices.Contains(done, pos) {
					exact(int(pos))
				}
			}
			continue
		}
		// No τ yet (the first leaf, τ = +Inf: every row is alive): the
		// exact distances of the rows of least bound give one at once,
		// the others wait in the queue.
		first := sc.first[:0]
		for _, r := range alive {
			first = append(first, searchItem{b: sc.lb[r], id: int32(f.lo + r)})
		}
		slices.SortFunc(first, func(a, b searchItem) int {
			if a.less(b) {
				return -1
			}
			return 1
		})
		need := k - len(ds)
		for c, it := range first {
			if c < need {
				exact(int(it.id))
				done = append(done, it.id)
			} else {
				h = pushItem(h, it)
			}
		}
		if len(ds) == k && s.near != nil {
			// The training neighbours of the nearest row so far are
			// likely among the query's: their exact distances bring τ
			// near its final value before the queue is searched.
			best := 0
			for c := range ds {
				if ds[c] < ds[best] || (ds[c] == ds[best] && js[c] < js[best]) {
					best = c
				}
			}
			for _, u := range s.near.neighbours(js[best]) {
				if pos := s.position[u]; !slices.Contains(done, pos) {
					exact(int(pos))
					done = append(done, pos)
				}
			}
		}
	}
	sc.done = done
	sc.queue = h
	sortPairs(ds, js)
	for c, v := range ds {
		ds[c] = math.Sqrt(v)
	}
	sc.js, sc.ds = js, ds
	return js, ds
}

// Radius returns the training rows within distance eps of x (inclusive),
// in leaf order, in scratch owned by sc (valid until its next use).
func (s *Exact) Radius(sc *ExactScratch, x []float64, eps float64) ([]int, []float64) {
	qp, rq, eq := s.prepare(sc, x, 16)
	thr := eps * eps
	js, ds := sc.js[:0], sc.ds[:0]
	leaves := s.leafQueue(sc, qp, rq, eq)
	for _, it := range leaves {
		if it.b*searchShave > thr {
			continue
		}
		f := &s.leaves[-1-it.id]
		for _, r := range s.leafBounds(sc, f, qp, rq, eq, thr) {
			pos := f.lo + r
			if v := s.sqDist(x, s.index[pos]); v <= thr {
				js, ds = append(js, s.index[pos]), append(ds, math.Sqrt(v))
			}
		}
	}
	sc.queue = leaves
	sc.js, sc.ds = js, ds
	return js, ds
}

// searchItem is an entry of the search queue: a row (its position, id ≥ 0)
// or a leaf (id = −1 − leaf) with its lower bound b.
type searchItem struct {
	b  float64
	id int32
}

func (a searchItem) less(b searchItem) bool { return a.b < b.b || (a.b == b.b && a.id < b.id) }

// pushItem, popItem and siftDown keep a binary min-heap by (b, id).
func pushItem(h []searchItem, it searchItem) []searchItem {
	h = append(h, it)
	for i := len(h) - 1; i > 0; {
		up := (i - 1) / 2
		if !h[i].less(h[up]) {
			break
		}
		h[i], h[up] = h[up], h[i]
		i = up
	}
	return h
}

func popItem(h []searchItem) (searchItem, []searchItem) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	siftDown(h, 0)
	return top, h
}

func siftDown(h []searchItem, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].less(h[c]) {
			c++
		}
		if !h[c].less(h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// sqDist returns the squared distance of x to training row i, as every
// exact search of this package reports it (sqDist, four partial sums).
func (s *Exact) sqDist(x []float64, i int) float64 {
	return sqDist(x, s.train.Data[i*s.train.Stride:i*s.train.Stride+len(x)])
}

// keepLeast keeps in (js, ds) the at most k pairs least by (d, j); k is
// small (the neighbours of one point), so a linear scan replaces a heap.
func keepLeast(js []int, ds []float64, k, j int, d float64) ([]int, []float64) {
	if len(ds) < k {
		return append(js, j), append(ds, d)
	}
	w := 0
	for c := 1; c < len(ds); c++ {
		if pairBefore(ds[w], js[w], ds[c], js[c]) {
			w = c
		}
	}
	if pairBefore(d, j, ds[w], js[w]) {
		js[w], ds[w] = j, d
	}
	return js, ds
}

func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v[1:] {
		m = max(m, x)
	}
	return m
}
