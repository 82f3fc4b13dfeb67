package geodesic

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/sysmem"
	"github.com/manifoldlab/manifold/sparse"
)

// ErrNoNeighbour is returned by Row for a point that has no training point
// within the graph's neighbourhood (an ε-graph's radius).
var ErrNoNeighbour = errors.New("the new point has no training point within the graph's neighbourhood")

// ErrDistance is returned by Row, followed by the distance, when a
// neighbour's distance is not a finite number ≥ 0 (rows whose squared
// distances overflow).
var ErrDistance = errors.New("a neighbour at distance")

// TableMax bounds the memory of an Index's geodesic table (see
// PrepareTable): 1 GiB, an Isomap model of up to 11,585 training points or
// a Landmark Isomap model of N·L ≤ 134 million, and never more than a
// quarter of the memory available. Larger models map new points by
// Dijkstra.
const TableMax = 1 << 30

// Config is what an Index is built from: a fitted model's training rows,
// graph and triangulation.
type Config struct {
	Train blas64.General // the training rows
	Graph *sparse.CSR    // the training graph, edge lengths as weights
	K     int            // neighbours of a new point (0 with Eps 0: 10)
	Eps   float64        // > 0: the neighbours within Eps instead
	// Cols are the reference (landmark) columns of the triangulation; nil:
	// every training point.
	Cols []int
	// Float32 rounds the squared geodesics to float32 as the fit stored
	// them, scaled by 2^(−2·Exp32).
	Float32 bool
	Exp32   int
	// Between > 0 is the geodesic to the training points a new point's
	// paths do not reach (those of other classes than its neighbours'), as
	// a supervised fit set it.
	Between float64
	// Approx, when the fit's graph was approximate (NN-descent), answers
	// the neighbour queries in place of the exact search, with search width
	// Width (0: its default).
	Approx *neighbors.Index
	Width  int
	// Pinv (R×dim) and MeanSq (R) are the triangulation: the pseudo-inverse
	// transpose of the reference embedding and each reference point's mean
	// squared distance to the others.
	Pinv   blas64.General
	MeanSq []float64
}

// Index maps new rows into a geodesic embedding. It is safe for concurrent
// use.
type Index struct {
	train  blas64.General
	search *neighbors.Exact // nil when approx answers the queries
	paths  *sparse.PathGraph
	k      int
	eps    float64
	cols   []int
	f32    bool
	exp32  int
	// between: see Config.Between.
	between float64
	// symmetric: the graph's edges go both ways with one length.
	symmetric bool
	approx    *neighbors.Index
	width     int
	meanSq    []float64
	pinvT     []float64 // Pinv transposed (dim×R): a row's triangulation reads it by columns
	pool      sync.Pool // *scratch
	// table, once ready (PrepareTable builds it when it fits tableMax),
	// holds the training geodesics d(j → c) for every training point j
	// (rows) and reference column c (tableCols of them): a new point's
	// geodesics are then min over its neighbours j of |x − j| + d(j → c),
	// k·R additions in place of a Dijkstra over the whole graph.
	tableMu    sync.Mutex // held while the table is built
	tableMax   int64
	tableReady atomic.Bool
	table      []float64
}

type scratch struct {
	s   neighbors.ExactScratch
	sq  []float64 // squared geodesics to every training point
	ref []float64 // those of the reference columns
	// js, ds: a new point's neighbours found by the approximate index
	js []int
	ds []float64
}

// New prepares the index. It fails only on a graph the shortest paths
// cannot use (a corrupt model file).
func New(c Config) (*Index, error) {
	pg, err := sparse.NewPathGraph(c.Graph)
	if err != nil {
		return nil, err
	}
	k := c.K
	if k == 0 && c.Eps == 0 {
		k = min(10, c.Train.Rows) // supervised K = 0: no class for new points
	}
	k = min(k, c.Train.Rows)
	gi := &Index{train: c.Train, paths: pg, k: k, eps: c.Eps, cols: c.Cols, f32: c.Float32, exp32: c.Exp32,
		between: c.Between, meanSq: c.MeanSq, symmetric: c.Graph.IsSymmetric(0), tableMax: TableMax,
		approx: c.Approx, width: c.Width}
	if c.Approx == nil {
		// The exact search; a model fitted with approximate neighbours
		// answers its queries by its index instead.
		gi.search = neighbors.NewExact(c.Train)
		gi.search.SeedWith(c.Graph)
	}
	r, dim := c.Pinv.Rows, c.Pinv.Cols
	gi.pinvT = make([]float64, dim*r)
	for j := 0; j < r; j++ {
		for col, v := range c.Pinv.Data[j*c.Pinv.Stride : j*c.Pinv.Stride+dim] {
			gi.pinvT[col*r+j] = v
		}
	}
	return gi, nil
}

// Approximate reports whether the neighbour queries go through an
// approximate neighbors.Index.
func (gi *Index) Approximate() bool { return gi.approx != nil }

// Width is the approximate queries' search width (0: the index's default).
func (gi *Index) Width() int { return gi.width }

// Exact is the exact neighbour search over the training rows (nil when the
// index is approximate).
func (gi *Index) Exact() *neighbors.Exact { return gi.search }

// TableReady reports whether PrepareTable has stored the geodesic table.
func (gi *Index) TableReady() bool { return gi.tableReady.Load() }

// LimitTable lowers the memory bound of the table PrepareTable may build
// (TableMax by default) to bytes; 0 keeps it from building one.
func (gi *Index) LimitTable(bytes int64) {
	gi.tableMu.Lock()
	defer gi.tableMu.Unlock()
	gi.tableMax = min(gi.tableMax, bytes)
}

// PrepareTable builds the geodesic table once if it fits the bound
// (TableMax, LimitTable): one shortest-path search from each training
// point (from each landmark when the graph is symmetric and only landmark
// columns are needed), in parallel, ctx checked between searches (a
// cancelled build is dropped and the table left to a later call). It costs
// about what the fit's geodesic stage cost; after it a row's geodesics
// cost k·R flam.
func (gi *Index) PrepareTable(ctx context.Context) error {
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
	if avail, _ := sysmem.Available(); avail > 0 && bytes > avail/4 {
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
func (gi *Index) tablePaths(ref []float64, js []int, ds []float64) {
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

// Row maps one finite row x of the training rows' width into dst (dim
// values): its training neighbours (the k nearest, or those within eps),
// the squared geodesics through them to the reference points, and the
// triangulation y = −½·(δ − mean δ)·pinv. It returns ctx's error,
// ErrNoNeighbour, ErrDistance, or the approximate query's or the shortest
// paths' error.
func (gi *Index) Row(ctx context.Context, dst, x []float64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	sc, _ := gi.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{sq: make([]float64, gi.paths.Len())}
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
			return err
		}
	default:
		js, ds = gi.search.KNN(&sc.s, x, gi.k)
	}
	if len(js) == 0 {
		return ErrNoNeighbour
	}
	ref := sc.sq
	if gi.cols != nil {
		ref = sc.ref
	}
	if gi.tableReady.Load() {
		for _, d := range ds {
			if !(d >= 0) || math.IsInf(d, 1) {
				return fmt.Errorf("%w %v", ErrDistance, d)
			}
		}
		gi.tablePaths(ref, js, ds)
	} else {
		if _, err := gi.paths.SeededPathsTo(sc.sq, js, ds, true); err != nil {
			return err
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
		// Rounded as the fit stored them: scaled by 2^(−2·exp32). One past
		// the float32 range stays in float64: rounding it would give +Inf
		// and a NaN coordinate.
		for j, v := range ref {
			if sv := math.Ldexp(v, -2*gi.exp32); sv <= math.MaxFloat32 {
				ref[j] = math.Ldexp(float64(float32(sv)), 2*gi.exp32)
			}
		}
	}
	// y = −½·(δ − mean δ)·pinv: the weights in place of δ, then one dot
	// product with each column of pinv (stored as rows of pinvT).
	for j, v := range ref {
		ref[j] = -0.5 * (v - gi.meanSq[j])
	}
	r := len(ref)
	for c := range dst {
		dst[c] = blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: ref}, blas64.Vector{N: r, Inc: 1, Data: gi.pinvT[c*r : c*r+r]})
	}
	return nil
}

// Rows is the number of training rows.
func (gi *Index) Rows() int { return gi.train.Rows }

// Cols is the width of the training rows, which Row's x must have.
func (gi *Index) Cols() int { return gi.train.Cols }
