package engine

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// geoIndex is what the geodesic models (Isomap, Landmark Isomap) need to
// map one new point, prepared once per model: the exact neighbour search
// over the training rows and the stored graph ready for Dijkstra. Mapping
// a point then costs the search (a pruned scan, below), one Dijkstra from
// the point's neighbours, O((n + e)·log n), and the triangulation, O(n·dim).
type geoIndex struct {
	method string
	search *exactSearch
	paths  *sparse.PathGraph
	k      int
	eps    float64
	cols   []int // reference (landmark) columns; nil: every training point
	f32    bool  // round the squared geodesics to float32 as the fit stored them
	// between > 0 (SupervisedConstant) is the geodesic to the training
	// points a new point's paths do not reach (those of other classes than
	// its neighbours'), as the fit set it.
	between float64
	// symmetric: the graph's edges go both ways with one length.
	symmetric bool
	// approx, when the fit's neighbour graph was approximate (NN-descent),
	// answers the neighbour queries in place of search, by a best-first
	// search of the stored graph.
	approx *neighbors.Index
	tri    triangulation
	pool   sync.Pool // *geoScratch
	// table, once ready (Prepare builds it when it fits geoTableMax), holds
	// the training geodesics d(j → c) for every training point j (rows) and
	// reference column c (tableCols of them): a new point's geodesics are
	// then min over its neighbours j of |x − j| + d(j → c), k·R additions in
	// place of a Dijkstra over the whole graph.
	tableOnce  sync.Once
	tableReady atomic.Bool
	table      []float64
}

// geoTableMax bounds the memory of a geodesic model's table (see
// geoIndex.table): 1 GiB, an Isomap model of up to 11,585 training points
// or a Landmark Isomap model of N·L ≤ 134 million, and never more than a
// quarter of the memory available (AvailableMemory). Larger models map new
// points by Dijkstra.
const geoTableMax = 1 << 30

// prepareTable builds the table once if it fits geoTableMax: one
// shortest-path search from each training point (from each landmark when
// the graph is symmetric and only landmark columns are needed), in
// parallel. It costs about what the fit's geodesic stage cost; after it a
// row's geodesics cost k·R flam.
func (gi *geoIndex) prepareTable() {
	gi.tableOnce.Do(func() {
		n := gi.paths.Len()
		r := n
		if gi.cols != nil {
			r = len(gi.cols)
		}
		bytes := int64(n) * int64(r) * 8
		if n == 0 || r == 0 || bytes > geoTableMax {
			return
		}
		if avail := AvailableMemory().Available; avail > 0 && bytes > avail/4 {
			return // never more than a quarter of what the machine has left
		}
		if gi.cols != nil && !gi.symmetric {
			return // d(j → landmark) would need a search from every j
		}
		t := make([]float64, n*r)
		if gi.cols == nil {
			backend.ParallelFor(n, 16, func(lo, hi int) {
				src, zero := []int{0}, []float64{0}
				for j := lo; j < hi; j++ {
					src[0] = j
					gi.paths.SeededPathsTo(t[j*r:(j+1)*r], src, zero, false)
				}
			})
		} else {
			backend.ParallelFor(r, 4, func(lo, hi int) {
				src, zero := []int{0}, []float64{0}
				col := make([]float64, n)
				for c := lo; c < hi; c++ {
					src[0] = gi.cols[c]
					gi.paths.SeededPathsTo(col, src, zero, false) // d(landmark → j) = d(j → landmark)
					for j, v := range col {
						t[j*r+c] = v
					}
				}
			})
		}
		gi.table = t
		gi.tableReady.Store(true)
	})
}

// tablePaths writes into ref the squared geodesics from a new point with
// neighbours js at distances ds to the reference columns, by the table:
// the same minimum over the neighbours that the seeded Dijkstra computes.
func (gi *geoIndex) tablePaths(ref []float64, js []int, ds []float64) {
	r := len(ref)
	row := func(c int) []float64 { return gi.table[js[c]*r : js[c]*r+r : js[c]*r+r] }
	// Two neighbours per pass over ref (the table's rows stream from
	// memory; ref stays in cache), the first pass setting it, the last
	// squaring it.
	c := 0
	if len(js)%2 == 1 {
		r0, d0 := row(0), ds[0]
		for i := range ref {
			ref[i] = d0 + r0[i]
		}
		c = 1
	} else {
		r0, r1, d0, d1 := row(0), row(1), ds[0], ds[1]
		for i := range ref {
			ref[i] = min(d0+r0[i], d1+r1[i])
		}
		c = 2
	}
	for ; c < len(js); c += 2 {
		r0, r1, d0, d1 := row(c), row(c+1), ds[c], ds[c+1]
		for i, v := range ref {
			ref[i] = min(v, d0+r0[i], d1+r1[i])
		}
	}
	for i, v := range ref {
		ref[i] = v * v
	}
}

type geoScratch struct {
	s   searchScratch
	sq  []float64 // squared geodesics to every training point
	ref []float64 // those of the reference columns
}

// lazyGeo builds a model's geoIndex once, on first use (or Prepare), so
// that fitting pays nothing for it and every Transform after the first
// finds it ready.
type lazyGeo struct {
	once  sync.Once
	build func() (*geoIndex, error)
	gi    *geoIndex
	err   error
}

func newLazyGeo(build func() (*geoIndex, error)) *lazyGeo { return &lazyGeo{build: build} }

func (l *lazyGeo) get() (*geoIndex, error) {
	l.once.Do(func() { l.gi, l.err = l.build() })
	return l.gi, l.err
}

// newGeoIndex prepares the index; with approx (the fit's graph came from
// NN-descent) the neighbour queries go through a neighbors.Index of the
// training rows and the stored graph. It fails only on a graph the shortest
// paths cannot use (a corrupt model file).
func newGeoIndex(method string, train blas64.General, graph *sparse.CSR, k int, eps float64, cols []int, f32 bool, between float64, approx bool, tri triangulation) (*geoIndex, error) {
	pg, err := sparse.NewPathGraph(graph)
	if err != nil {
		return nil, modelErr("%s model: graph: %v", method, err)
	}
	if k == 0 && eps == 0 {
		k = min(10, train.Rows) // supervised K = 0: no class for new points
	}
	k = min(k, train.Rows)
	gi := &geoIndex{method: method, search: newExactSearch(train), paths: pg, k: k, eps: eps, cols: cols, f32: f32, between: between, tri: tri, symmetric: graph.IsSymmetric(0)}
	if approx && eps == 0 {
		n, _ := graph.Dims()
		lists := &neighbors.Result{Ptr: graph.RowPtr()[:n+1], Ind: graph.ColIdx(), Dist: graph.Values()}
		gi.approx, err = neighbors.IndexFromLists(context.Background(), toDense(train), lists, neighbors.ApproxOptions{})
		if err != nil {
			return nil, fmt.Errorf("%s model: neighbour index: %w", method, err)
		}
	}
	return gi, nil
}

// transformRow maps one finite row: its training neighbours (the k nearest,
// or those within eps), the squared geodesics through them to the
// reference points, and the triangulation y = −½·(δ − mean δ)·pinv.
func (gi *geoIndex) transformRow(ctx context.Context, dst, x []float64) error {
	if len(x) != gi.search.train.Cols {
		return fmt.Errorf("%s transform: %w: %d features, the model has %d", gi.method, ErrShape, len(x), gi.search.train.Cols)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkTransformRange(gi.method, blas64.General{Rows: 1, Cols: len(x), Stride: len(x), Data: x}, gi.search.train.Rows); err != nil {
		return err
	}
	sc, _ := gi.pool.Get().(*geoScratch)
	if sc == nil {
		sc = &geoScratch{sq: make([]float64, gi.paths.Len())}
		if gi.cols != nil {
			sc.ref = make([]float64, len(gi.cols))
		}
	}
	defer gi.pool.Put(sc)
	var js []int
	var ds []float64
	switch {
	case gi.eps > 0:
		js, ds = gi.search.radius(&sc.s, x, gi.eps)
	case gi.approx != nil:
		nb, err := gi.approx.Query(ctx, mat.NewDense(1, len(x), x), gi.k, 0)
		if err != nil {
			return fmt.Errorf("%s transform: %w", gi.method, err)
		}
		js, ds = nb.Row(0)
	default:
		js, ds = gi.search.knn(&sc.s, x, gi.k)
	}
	if len(js) == 0 {
		return fmt.Errorf("%s transform: %w: the new point has no training point within the graph's neighbourhood", gi.method, ErrNoTransform)
	}
	ref := sc.sq
	if gi.cols != nil {
		ref = sc.ref
	}
	if gi.tableReady.Load() {
		for _, d := range ds {
			if !(d >= 0) || math.IsInf(d, 1) {
				return fmt.Errorf("%s transform: %w: a neighbour at distance %v", gi.method, ErrNumerical, d)
			}
		}
		gi.tablePaths(ref, js, ds)
	} else {
		if _, err := gi.paths.SeededPathsTo(sc.sq, js, ds, true); err != nil {
			return fmt.Errorf("%s transform: %w", gi.method, err)
		}
		if gi.cols != nil {
			for c, j := range gi.cols {
				sc.ref[c] = sc.sq[j]
			}
		}
	}
	if gi.between > 0 {
		for j, v := range ref {
			if math.IsInf(v, 1) {
				ref[j] = gi.between * gi.between
			}
		}
	}
	if gi.f32 {
		// A squared geodesic past the float32 range stays in float64:
		// rounding it would give +Inf and a NaN coordinate.
		for j, v := range ref {
			if v <= math.MaxFloat32 {
				ref[j] = float64(float32(v))
			}
		}
	}
	t := gi.tri
	for c := range dst {
		dst[c] = 0
	}
	dim := len(dst)
	for j, v := range ref {
		w := -0.5 * (v - t.meanSq[j])
		row := t.pinv.Data[j*t.pinv.Stride : j*t.pinv.Stride+dim]
		for c, p := range row {
			dst[c] += w * p
		}
	}
	return checkTransformOutput(gi.method, blas64.General{Rows: 1, Cols: dim, Stride: dim, Data: dst})
}

// exactSearch finds the exact nearest training rows of one query with a
// lower bound that prunes most of the scan. The training rows are
// projected once on their top principal directions P (p of them, p ≤ 32);
// for any orthonormal P,
//
//	‖q − t‖² = ‖Pᵀ(q − t)‖² + ‖R(q − t)‖² ≥ ‖Pᵀq̄ − Pᵀt̄‖² + (‖Rq̄‖ − ‖Rt̄‖)²
//
// (R the projector on the complement, x̄ = x − mean), so a query costs
// n·p flam for the bounds plus D flam for each row whose bound does not
// rule it out, instead of n·D. The rows kept are those of a brute-force
// search, with their distances computed the same way (the difference of
// the rows, as engine/neighbors finishes its candidates), sorted by
// (distance, index).
type exactSearch struct {
	train blas64.General
	mean  []float64
	basis blas64.General // D×p, orthonormal columns
	proj  []float64      // n×p: Pᵀ(t − mean)
	res   []float64      // n: ‖R(t − mean)‖
	slack []float64      // n: bound on the rounding error of res
	// t32 and tn: the rows in float32 and their squared norms (float64),
	// for a cheap screen of the rows the bound leaves (screen).
	t32 []float32
	tn  []float64
	// maxAbs is the largest |value| of the rows: the screen runs only when
	// the float32 products cannot overflow (screenable).
	maxAbs float64
}

type searchScratch struct {
	lb  []float64
	qp  []float64
	js  []int
	ds  []float64
	cj  []int // candidates by bound
	cb  []float64
	out []float64
	x32 []float32
}

const searchDirections = 32

func newExactSearch(train blas64.General) *exactSearch {
	n, d := train.Rows, train.Cols
	s := &exactSearch{train: train, mean: make([]float64, d)}
	for i := 0; i < n; i++ {
		for j, v := range train.Data[i*train.Stride : i*train.Stride+d] {
			s.mean[j] += v
		}
	}
	for j := range s.mean {
		s.mean[j] /= float64(n)
	}
	p := min(searchDirections, d)
	if p < d && n > 1 && d <= 2048 {
		// The directions only make the bound tight (any orthonormal basis
		// gives a valid bound): a sample of the rows finds them.
		step := max(1, n/2000)
		ns := (n + step - 1) / step
		c := newGeneral(ns, d)
		for i := 0; i < ns; i++ {
			for j, v := range train.Data[i*step*train.Stride : i*step*train.Stride+d] {
				c.Data[i*d+j] = v - s.mean[j]
			}
		}
		cov := blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: make([]float64, d*d)}
		blas64.Syrk(blas.Trans, 1, c, 0, cov)
		_, vecs, err := backend.EigTop(backend.Active(), cov, p)
		if err == nil {
			s.basis = vecs
		}
	}
	if s.basis.Data == nil { // coordinate axes: few features (the bound is then the distance), very many, or a failed eigensolve
		s.basis = newGeneral(d, p)
		for j := 0; j < p; j++ {
			s.basis.Data[j*p+j] = 1
		}
	}
	s.proj = make([]float64, n*p)
	s.res = make([]float64, n)
	s.slack = make([]float64, n)
	s.t32 = make([]float32, n*d)
	s.tn = make([]float64, n)
	backend.ParallelFor(n, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := train.Data[i*train.Stride : i*train.Stride+d]
			s.res[i], s.slack[i] = s.project(s.proj[i*p:(i+1)*p], row)
			for j, v := range row {
				s.t32[i*d+j] = float32(v)
				s.tn[i] += v * v
			}
		}
	})
	for i := 0; i < n; i++ {
		for _, v := range train.Data[i*train.Stride : i*train.Stride+d] {
			s.maxAbs = max(s.maxAbs, math.Abs(v))
		}
	}
	return s
}

// project writes Pᵀ(x − mean) into dst and returns ‖R(x − mean)‖ and a
// bound on its rounding error (‖R x̄‖² is found as ‖x̄‖² − ‖Pᵀx̄‖², whose
// cancellation costs up to a few ulps of ‖x̄‖²).
func (s *exactSearch) project(dst, x []float64) (float64, float64) {
	b := s.basis
	p := b.Cols
	for c := range dst[:p] {
		dst[c] = 0
	}
	nx := 0.0
	for j, v := range x {
		c := v - s.mean[j]
		nx += c * c
		row := b.Data[j*b.Stride : j*b.Stride+p]
		for t, w := range row {
			dst[t] += c * w
		}
	}
	np := 0.0
	for _, v := range dst[:p] {
		np += v * v
	}
	r := math.Sqrt(max(0, nx-np))
	return r, math.Sqrt(1e-13 * nx)
}

func (sc *searchScratch) grow(n, p, k, d int) {
	if len(sc.lb) < n {
		sc.lb = make([]float64, n)
	}
	if len(sc.qp) < p {
		sc.qp = make([]float64, p)
	}
	if cap(sc.x32) < d {
		sc.x32 = make([]float32, d)
	}
	if cap(sc.js) < k {
		sc.js, sc.ds = make([]int, 0, k), make([]float64, 0, k)
		sc.cj, sc.cb = make([]int, 0, k), make([]float64, 0, k)
		sc.out = make([]float64, 0, k)
	}
}

// bounds fills sc.lb with lower bounds of the squared distances of x to
// every training row, shaved by a relative 1e-9 against rounding.
func (s *exactSearch) bounds(sc *searchScratch, x []float64) {
	n, p := s.train.Rows, s.basis.Cols
	qp := sc.qp[:p]
	rq, eq := s.project(qp, x)
	lb := sc.lb[:n]
	for i := range lb {
		sum := sqDiff(qp, s.proj[i*p:i*p+p])
		if r := math.Abs(rq-s.res[i]) - eq - s.slack[i]; r > 0 {
			sum += r * r
		}
		lb[i] = sum * (1 - 1e-9)
	}
}

func (s *exactSearch) sqDist(x []float64, j int) float64 {
	return sqDiff(x, s.train.Data[j*s.train.Stride:j*s.train.Stride+len(x)])
}

// sqDiff returns ‖a − b‖² (len(b) ≥ len(a)), summed in four interleaved
// partial sums: four independent chains of additions run about three
// times as fast as one on a superscalar core, and the result differs from
// the sequential sum only by rounding (a few ulps), which the bounds'
// margin (1 − 1e-9) and the exact distances' comparisons absorb alike.
func sqDiff(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		e0, e1, e2, e3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		s0 += e0 * e0
		s1 += e1 * e1
		s2 += e2 * e2
		s3 += e3 * e3
	}
	for ; i < len(a); i++ {
		e := a[i] - b[i]
		s0 += e * e
	}
	return (s0 + s1) + (s2 + s3)
}

// knn returns the k nearest training rows of x (indices, distances), in
// scratch owned by sc, sorted by (distance, index).
func (s *exactSearch) knn(sc *searchScratch, x []float64, k int) ([]int, []float64) {
	n, p := s.train.Rows, s.basis.Cols
	sc.grow(n, p, k, s.train.Cols)
	// First the bound on the leading q directions alone (a lower bound
	// too: it drops terms of a sum of squares), which rules out most rows
	// at a quarter of the full bound's cost; the rest of the bound only
	// for the rows it does not rule out.
	q := min(p, 8)
	qp := sc.qp[:p]
	rq, eq := s.project(qp, x)
	d := len(x)
	x32 := sc.x32[:d]
	xn := 0.0
	for j, v := range x {
		x32[j] = float32(v)
		xn += v * v
	}
	// screen(i) is a lower bound of ‖x − tᵢ‖² from a float32 dot product:
	// ‖x‖² + ‖tᵢ‖² − 2·x·tᵢ less a bound on its error, (D + 4)·2⁻²³ of
	// 2‖x‖‖tᵢ‖ (Higham, "Accuracy and Stability of Numerical Algorithms",
	// 2002, §3.1: the float32 sum and the roundings of x and tᵢ), doubled.
	// Values whose float32 products could overflow skip the screen; those
	// that underflow are covered by an absolute term, D·2⁻¹⁴⁹ for every
	// product and rounded value, quadrupled.
	mx := 0.0
	for _, v := range x {
		mx = max(mx, math.Abs(v))
	}
	screenable := mx <= 1e36 && s.maxAbs <= 1e36 && mx*s.maxAbs*float64(d) <= 1e36
	screenErr := 4 * float64(d+4) * 0x1p-23
	screenAbs := 4 * float64(d) * 0x1p-149 * (mx + s.maxAbs + 1)
	screen := func(i int) float64 {
		if !screenable {
			return math.Inf(-1)
		}
		dot := float64(blas32.Dot(blas32.Vector{N: d, Inc: 1, Data: x32}, blas32.Vector{N: d, Inc: 1, Data: s.t32[i*d : i*d+d]}))
		return xn + s.tn[i] - 2*dot - screenErr*math.Sqrt(xn*s.tn[i]) - screenAbs
	}
	lb := sc.lb[:n]
	if q == 8 {
		q0, q1, q2, q3, q4, q5, q6, q7 := qp[0], qp[1], qp[2], qp[3], qp[4], qp[5], qp[6], qp[7]
		for i := range lb {
			t := s.proj[i*p : i*p+8 : i*p+8]
			e0, e1, e2, e3 := q0-t[0], q1-t[1], q2-t[2], q3-t[3]
			e4, e5, e6, e7 := q4-t[4], q5-t[5], q6-t[6], q7-t[7]
			lb[i] = (e0*e0 + e1*e1) + (e2*e2 + e3*e3) + ((e4*e4 + e5*e5) + (e6*e6 + e7*e7))
		}
	} else {
		for i := range lb {
			lb[i] = sqDiff(qp[:q], s.proj[i*p:i*p+q])
		}
	}
	// full(i, b) completes the partial sum b of row i: the remaining
	// directions and the residual term. Every bound is shaved by a relative
	// 1e-9 against rounding before it is compared.
	full := func(i int, b float64) float64 {
		sum := b + sqDiff(qp[q:], s.proj[i*p+q:i*p+p])
		if r := math.Abs(rq-s.res[i]) - eq - s.slack[i]; r > 0 {
			sum += r * r
		}
		return sum * (1 - 1e-9)
	}
	// The k rows of least bound, then their exact distances: a first
	// threshold τ (the k-th least distance so far).
	cj, cb := sc.cj[:0], sc.cb[:0]
	worst := math.Inf(1)
	for i, b := range lb {
		if len(cb) == k && b >= worst {
			continue // the indices grow: a tie never displaces
		}
		cj, cb = keepLeast(cj, cb, k, i, b)
		if len(cb) == k {
			worst = maxOf(cb)
		}
	}
	js, ds := sc.js[:0], sc.ds[:0]
	for _, j := range cj {
		js, ds = keepLeast(js, ds, k, j, s.sqDist(x, j))
	}
	tau := math.Inf(1)
	if len(ds) == k {
		tau = maxOf(ds)
	}
	for i, b := range lb {
		if b*(1-1e-9) > tau || contains(cj, i) || (p > q && full(i, b) > tau) || screen(i) > tau {
			continue
		}
		js, ds = keepLeast(js, ds, k, i, s.sqDist(x, i))
		if len(ds) == k {
			tau = maxOf(ds)
		}
	}
	sortByDist(ds, js)
	for c, v := range ds {
		ds[c] = math.Sqrt(v)
	}
	sc.js, sc.ds, sc.cj, sc.cb = js, ds, cj, cb
	return js, ds
}

// radius returns the training rows within distance eps of x (inclusive).
func (s *exactSearch) radius(sc *searchScratch, x []float64, eps float64) ([]int, []float64) {
	n := s.train.Rows
	sc.grow(n, s.basis.Cols, 16, s.train.Cols)
	s.bounds(sc, x)
	thr := eps * eps
	js, ds := sc.js[:0], sc.ds[:0]
	for i, b := range sc.lb[:n] {
		if b > thr {
			continue
		}
		if d := s.sqDist(x, i); d <= thr {
			js, ds = append(js, i), append(ds, math.Sqrt(d))
		}
	}
	sc.js, sc.ds = js, ds
	return js, ds
}

// keepLeast keeps in (js, ds) the at most k pairs least by (d, j); k is
// small (the neighbours of one point), so a linear scan replaces a heap.
func keepLeast(js []int, ds []float64, k, j int, d float64) ([]int, []float64) {
	if len(ds) < k {
		return append(js, j), append(ds, d)
	}
	w := 0
	for c := 1; c < len(ds); c++ {
		if ds[c] > ds[w] || (ds[c] == ds[w] && js[c] > js[w]) {
			w = c
		}
	}
	if d < ds[w] || (d == ds[w] && j < js[w]) {
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

func contains(js []int, j int) bool {
	for _, v := range js {
		if v == j {
			return true
		}
	}
	return false
}

// sortByDist sorts the pairs by (d, j): insertion sort, k is small.
func sortByDist(ds []float64, js []int) {
	for i := 1; i < len(ds); i++ {
		for c := i; c > 0 && (ds[c] < ds[c-1] || (ds[c] == ds[c-1] && js[c] < js[c-1])); c-- {
			ds[c], ds[c-1] = ds[c-1], ds[c]
			js[c], js[c-1] = js[c-1], js[c]
		}
	}
}
