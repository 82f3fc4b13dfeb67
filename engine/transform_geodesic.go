package engine

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// geoIndex is what the geodesic models (Isomap, Landmark Isomap) need to
// map one new point, prepared once per model: the exact neighbour search
// over the training rows (neighbors.Exact) and the stored graph ready for
// Dijkstra. Mapping a point then costs the search, one Dijkstra from the
// point's neighbours, O((n + e)·log n), or with the table k·R additions,
// and the triangulation, O(R·dim).
type geoIndex struct {
	method string
	train  blas64.General
	search *neighbors.Exact // nil when approx answers the queries
	paths  *sparse.PathGraph
	k      int
	eps    float64
	cols   []int // reference (landmark) columns; nil: every training point
	f32    bool  // round the squared geodesics to float32 as the fit stored them
	exp32  int   // with f32: the fit's lengths were scaled by 2^−exp32 (float32Exp)
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
	width  int // approx's search width (0: the default; see Neighbors.Width)
	tri    triangulation
	pinvT  []float64 // tri.pinv transposed (dim×R): a row's triangulation reads it by columns
	pool   sync.Pool // *geoScratch
	// table, once ready (Prepare builds it when it fits geoTableMax), holds
	// the training geodesics d(j → c) for every training point j (rows) and
	// reference column c (tableCols of them): a new point's geodesics are
	// then min over its neighbours j of |x − j| + d(j → c), k·R additions in
	// place of a Dijkstra over the whole graph.
	tableMu    sync.Mutex // held while the table is built
	tableMax   int64      // the table's memory bound: geoTableMax
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
// parallel, ctx checked between searches (a cancelled build is dropped and
// the table left to a later call). It costs about what the fit's geodesic
// stage cost; after it a row's geodesics cost k·R flam.
func (gi *geoIndex) prepareTable(ctx context.Context) error {
	gi.tableMu.Lock()
	defer gi.tableMu.Unlock()
	if gi.tableReady.Load() {
		return nil
	}
	n := gi.paths.Len()
	r := n
	if gi.cols != nil {
		r = len(gi.cols)
	}
	bytes := int64(n) * int64(r) * 8
	if n == 0 || r == 0 || bytes > gi.tableMax {
		return nil
	}
	if avail := AvailableMemory().Available; avail > 0 && bytes > avail/4 {
		return nil // never more than a quarter of what the machine has left
	}
	if gi.cols != nil && !gi.symmetric {
		return nil // d(j → landmark) would need a search from every j
	}
	// The allocation (which the runtime may have to clear: on this VM the
	// first touch of memory costs about 2.5 s a GB) on its own goroutine,
	// so that a cancelled ctx returns at once; then the fresh pages
	// faulted in a megabyte at a time between context checks (a landmark's
	// column is written across every page of the table, which would
	// otherwise fall inside the first search).
	alloc := make(chan []float64, 1)
	go func() { alloc <- make([]float64, n*r) }()
	var t []float64
	select {
	case t = <-alloc:
	case <-ctx.Done():
		return ctx.Err()
	}
	err := backend.ParallelForCtx(ctx, len(t), 1<<17, func(lo, hi int) {
		for i := lo; i < hi; i += 512 {
			t[i] = 0
		}
	})
	if err != nil {
		return err
	}
	if gi.cols == nil {
		err = backend.ParallelForCtx(ctx, n, 16, func(lo, hi int) {
			src, zero := []int{0}, []float64{0}
			for j := lo; j < hi; j++ {
				src[0] = j
				gi.paths.SeededPathsTo(t[j*r:(j+1)*r], src, zero, false)
			}
		})
	} else {
		err = backend.ParallelForCtx(ctx, r, 1, func(lo, hi int) {
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
	if err != nil {
		return err
	}
	gi.table = t
	gi.tableReady.Store(true)
	return nil
}

// tablePaths writes into ref the squared geodesics from a new point with
// neighbours js at distances ds to the reference columns, by the table:
// the same minimum over the neighbours that the seeded Dijkstra computes.
func (gi *geoIndex) tablePaths(ref []float64, js []int, ds []float64) {
	r := len(ref)
	row := func(c int) []float64 { return gi.table[js[c]*r : js[c]*r+r : js[c]*r+r] }
	// Two neighbours per pass over ref (the table's rows stream from
	// memory; ref stays in cache), from +Inf, the last squaring it.
	for i := range ref {
		ref[i] = math.Inf(1)
	}
	for c := 0; c < len(js); c += 2 {
		c1 := min(c+1, len(js)-1) // an odd last neighbour pairs with itself
		minPlus2(ref, row(c), row(c1), ds[c], ds[c1])
	}
	for i, v := range ref {
		ref[i] = v * v
	}
}

type geoScratch struct {
	s   neighbors.ExactScratch
	sq  []float64 // squared geodesics to every training point
	ref []float64 // those of the reference columns
	// js, ds: a new point's neighbours found by the approximate index
	js []int
	ds []float64
}

// lazyGeo builds a model's geoIndex once, on first use (or Prepare), so
// that fitting pays nothing for it and every Transform after the first
// finds it ready; a Transform cancelled while it builds returns within
// the context's bounds and leaves the build to the next call (lazy).
type lazyGeo struct {
	l     lazy[*geoIndex]
	build func(context.Context) (*geoIndex, error)
}

func newLazyGeo(build func(context.Context) (*geoIndex, error)) *lazyGeo {
	return &lazyGeo{build: build}
}

func (l *lazyGeo) get(ctx context.Context) (*geoIndex, error) { return l.l.get(ctx, l.build) }

// prepare builds the index and its geodesic table (the model's Prepare).
func (l *lazyGeo) prepare(ctx context.Context) error {
	gi, err := l.get(ctx)
	if err != nil {
		return err
	}
	return gi.prepareTable(ctx)
}

// transformRow maps the row x into dst through the index.
func (l *lazyGeo) transformRow(ctx context.Context, dst, x []float64) error {
	gi, err := l.get(ctx)
	if err != nil {
		return err
	}
	return gi.transformRow(ctx, dst, x)
}

// newGeoIndex prepares the index; with near (the fit's graph came from
// NN-descent: graphLists) the neighbour queries go through its
// neighbors.Index of the training rows and the stored graph. It fails only on a graph the shortest
// paths cannot use (a corrupt model file).
func newGeoIndex(ctx context.Context, method string, train blas64.General, graph *sparse.CSR, k int, eps float64, cols []int, f32 bool, between float64, near *trainingLists, tri triangulation) (*geoIndex, error) {
	approx := near != nil
	pg, err := sparse.NewPathGraph(graph)
	if err != nil {
		return nil, modelErr("%s model: graph: %v", method, err)
	}
	if k == 0 && eps == 0 {
		k = min(10, train.Rows) // supervised K = 0: no class for new points
	}
	k = min(k, train.Rows)
	gi := &geoIndex{method: method, train: train, paths: pg, k: k, eps: eps, cols: cols, f32: f32, between: between, tri: tri, symmetric: graph.IsSymmetric(0), tableMax: geoTableMax}
	if f32 {
		gi.exp32 = float32Exp(graph)
	}
	if !approx {
		// The exact search; a model fitted with approximate neighbours
		// answers its queries by the index below instead.
		gi.search = neighbors.NewExact(train)
		gi.search.SeedWith(graph)
	}
	r, dim := tri.pinv.Rows, tri.pinv.Cols
	gi.pinvT = make([]float64, dim*r)
	for j := 0; j < r; j++ {
		for c, v := range tri.pinv.Data[j*tri.pinv.Stride : j*tri.pinv.Stride+dim] {
			gi.pinvT[c*r+j] = v
		}
	}
	if approx {
		gi.width = near.width
		if gi.approx, err = near.index(ctx, train); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s model: neighbour index: %w", method, err)
		}
	}
	return gi, nil
}

// transformRow maps one finite row: its training neighbours (the k nearest,
// or those within eps), the squared geodesics through them to the
// reference points, and the triangulation y = −½·(δ − mean δ)·pinv.
func (gi *geoIndex) transformRow(ctx context.Context, dst, x []float64) error {
	if len(x) != gi.train.Cols {
		return fmt.Errorf("%s transform: %w: %d features, the model has %d", gi.method, ErrShape, len(x), gi.train.Cols)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkTransformRange(gi.method, samples{dense: blas64.General{Rows: 1, Cols: len(x), Stride: len(x), Data: x}}, gi.train.Rows); err != nil {
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
		js, ds = gi.search.Radius(&sc.s, x, gi.eps)
	case gi.approx != nil:
		if len(sc.js) != gi.k {
			sc.js, sc.ds = make([]int, gi.k), make([]float64, gi.k)
		}
		js, ds = sc.js, sc.ds
		if err := gi.approx.QueryRow(ctx, x, js, ds, gi.width); err != nil {
			return fmt.Errorf("%s transform: %w", gi.method, err)
		}
	default:
		js, ds = gi.search.KNN(&sc.s, x, gi.k)
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
		// Rounded as the fit stored them: scaled by 2^(−2·exp32) (see
		// float32Scaled). One past the float32 range stays in float64:
		// rounding it would give +Inf and a NaN coordinate.
		for j, v := range ref {
			if sv := math.Ldexp(v, -2*gi.exp32); sv <= math.MaxFloat32 {
				ref[j] = math.Ldexp(float64(float32(sv)), 2*gi.exp32)
			}
		}
	}
	// y = −½·(δ − mean δ)·pinv: the weights in place of δ, then one dot
	// product with each column of pinv (stored as rows of pinvT).
	for j, v := range ref {
		ref[j] = -0.5 * (v - gi.tri.meanSq[j])
	}
	r := len(ref)
	for c := range dst {
		dst[c] = blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: ref}, blas64.Vector{N: r, Inc: 1, Data: gi.pinvT[c*r : c*r+r]})
	}
	return checkRowOutput(gi.method, dst)
}
