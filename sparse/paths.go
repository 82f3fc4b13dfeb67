package sparse

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync/atomic"
	"unsafe"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// PathOptions says what the shortest-path routines write besides the
// distances. The zero value writes plain distances and no row statistics.
type PathOptions struct {
	// Squared writes d_ij² instead of d_ij (the input of classical MDS).
	Squared bool
	// RowSums, if not nil, receives for every output row the sum of the
	// values written in it (squared when Squared), accumulated in the same
	// pass that writes the row. Its length must be the number of rows.
	RowSums []float64
	// RowMeans, if not nil, receives the row sums divided by the number of
	// columns: backend.DoubleCenterCtx(ctx, S, RowMeans) then needs no extra read
	// of S.
	RowMeans []float64
	// Done, if not nil, is increased by the number of sources finished as
	// each chunk of them completes (read it from another goroutine to
	// report progress).
	Done *atomic.Int64
	// Order, if not nil (all pairs only, length n), asks for the output in
	// the searches' own vertex order (breadth-first, pathGraph): row and
	// column k of the output, and RowSums[k] or RowMeans[k], belong to
	// vertex Order[k], which the call fills in. The n×n matrix is then
	// P·D·Pᵀ for the permutation P that Order gives, which has the
	// eigenvalues of D, and its eigenvectors are D's with their entries
	// permuted.
	Order []int
	// RingInOutput (with Order, float32 all pairs only) keeps the float64
	// rows the searches start from in the output's own last rows, which
	// are written last, rather than in a ring of their own: no memory
	// besides the output when the graph is large enough
	// (AllPairs32ScratchBytes), and the sources whose rows overlay the
	// ring search from scratch — 5 % more time at 10,000 swiss-roll
	// points, within the machine's spread at 40,000.
	RingInOutput bool
}

// pathGraph is a graph prepared for Dijkstra: vertices renumbered in
// breadth-first order (neighbours get nearby numbers, so the distances,
// heap positions and adjacency lists of the vertices a search touches
// together lie together in memory: 3.5× faster than a random order at
// n = 10⁶), int32 indices (less memory traffic than int), self loops
// dropped, each adjacency list sorted.
type pathGraph struct {
	n    int
	perm []int32 // perm[k]: original vertex at position k
	inv  []int32 // inv[v]: position of original vertex v
	ptr  []int32
	adj  []int32
	w    []float64

	// The distance buckets of the searches (buckets.go): their width (0:
	// the heap only) and the size of a worker's ring of buckets, a power
	// of 2. heapOnly is set once a bucket search has given up.
	delta    float64
	ring     int
	heapOnly atomic.Bool
}

// validateGraph checks that a is square with non-negative finite weights.
// It returns stop's error if stop's context is done first.
func validateGraph(stop *stopper, what string, a *CSR) error {
	if a.r != a.c {
		return fmt.Errorf("%w: %s: graph matrix is %d×%d, not square", ErrInvalid, what, a.r, a.c)
	}
	for i := 0; i < a.r; i++ {
		if stop.tick(a.indptr[i+1] - a.indptr[i] + 1) {
			return stop.err
		}
		for p := a.indptr[i]; p < a.indptr[i+1]; p++ {
			if v := a.data[p]; !(v >= 0) || math.IsInf(v, 1) {
				return fmt.Errorf("%w: %s: edge (%d, %d) has weight %v; weights must be finite and non-negative", ErrInvalid, what, i, a.ind[p], v)
			}
		}
	}
	return nil
}

// newPathGraph validates a and prepares it for the searches; it returns
// an error wrapping ctx's if ctx is done first (within a few milliseconds
// at any size).
func newPathGraph(ctx context.Context, what string, a *CSR) (*pathGraph, error) {
	stop := &stopper{ctx: ctx}
	if err := validateGraph(stop, what, a); err != nil {
		if stop.err != nil {
			return nil, fmt.Errorf("sparse: %s: %w", what, err)
		}
		return nil, err
	}
	if a.r >= math.MaxInt32 || a.NNZ() >= math.MaxInt32 {
		return nil, fmt.Errorf("%w: %s: graph with %d vertices and %d edges exceeds the int32 indices of the shortest-path code", ErrInvalid, what, a.r, a.NNZ())
	}
	perm := bfsOrder(stop, a)
	if stop.err != nil {
		return nil, fmt.Errorf("sparse: %s: %w", what, stop.err)
	}
	g, err := orderedPathGraph(ctx, a, perm)
	if err != nil {
		return nil, err
	}
	g.chooseBuckets()
	g.heapOnly.Store(heapOnlyPaths)
	return g, nil
}

// orderedPathGraph builds the pathGraph of a with the vertex order perm
// (new → old), rows in parallel; it returns ctx's error if ctx is done
// first.
func orderedPathGraph(ctx context.Context, a *CSR, perm []int32) (*pathGraph, error) {
	n := a.r
	inv := make([]int32, n)
	for k, v := range perm {
		inv[v] = int32(k)
	}
	g := &pathGraph{n: n, perm: perm, inv: inv, ptr: make([]int32, n+1)}
	err := backend.ParallelForCtx(ctx, n, 4096, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			v := int(perm[k])
			deg := a.indptr[v+1] - a.indptr[v]
			if hasSelfLoop(a, v) {
				deg--
			}
			g.ptr[k+1] = int32(deg)
		}
	})
	if err != nil {
		return nil, err
	}
	for k := 0; k < n; k++ {
		g.ptr[k+1] += g.ptr[k]
	}
	// One slot more than the edges: settle's prefetch reads the first
	// entry of the next vertex's list, which for a last vertex of degree
	// 0 is just past the last list.
	g.adj = make([]int32, g.ptr[n]+1)
	g.w = make([]float64, g.ptr[n]+1)
	err = backend.ParallelForCtx(ctx, n, 4096, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			v := int(perm[k])
			nbr := g.adj[g.ptr[k]:g.ptr[k+1]]
			wts := g.w[g.ptr[k]:g.ptr[k+1]]
			c := 0
			for p := a.indptr[v]; p < a.indptr[v+1]; p++ {
				j := a.ind[p]
				if j == v {
					continue
				}
				wt := a.data[p]
				if wt == 0 {
					wt = 0 // −0 to +0: the heap orders keys by their bits
				}
				// Insertion into the sorted prefix (rows are short).
				x := inv[j]
				i := c
				for i > 0 && nbr[i-1] > x {
					nbr[i], wts[i] = nbr[i-1], wts[i-1]
					i--
				}
				nbr[i], wts[i] = x, wt
				c++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

func hasSelfLoop(a *CSR, v int) bool {
	lo, hi := a.indptr[v], a.indptr[v+1]
	p := lo + sort.SearchInts(a.ind[lo:hi], v)
	return p < hi && a.ind[p] == v
}

// bfsOrder returns a breadth-first order of the vertices (new → old),
// every component from its smallest vertex, following stored edges (a
// directed graph's out-edges; every vertex appears once). It returns nil
// if stop's context is done first.
func bfsOrder(stop *stopper, a *CSR) []int32 {
	n := a.r
	perm := make([]int32, 0, n)
	seen := make([]bool, n)
	for s := 0; s < n; s++ {
		if seen[s] {
			continue
		}
		seen[s] = true
		perm = append(perm, int32(s))
		for h := len(perm) - 1; h < len(perm); h++ {
			u := perm[h]
			if stop.tick(a.indptr[u+1] - a.indptr[u] + 1) {
				return nil
			}
			for _, v := range a.ind[a.indptr[u]:a.indptr[u+1]] {
				if !seen[v] {
					seen[v] = true
					perm = append(perm, int32(v))
				}
			}
		}
	}
	return perm
}

// vert is the per-vertex state of one search: the tentative distance
// (+Inf between runs) and the position in the heap or the bucket the
// vertex waits in (-1 when neither), side by side so that the one cache
// miss that reads the distance also brings the position.
type vert struct {
	d float64
	p int32
	_ int32
}

// dijkstra is one worker's scratch, of O(n), allocated once per worker and
// reused for every source: the vertex states, the distance buckets
// (buckets.go) and, allocated when first needed, an indexed 4-ary min-heap
// of keys and vertices.
//
// The heap keys are the IEEE bit patterns of the (non-negative) distances:
// for non-negative floats the order of the patterns as integers is the
// order of the values, and integer keys let the sift-down pick the least of
// four children without a branch (the float comparisons it replaces were
// mispredicted about half the time and cost a quarter of the run).
type dijkstra struct {
	vs []vert
	hk []uint64
	hv []int32
	bk [][]int32

	// The sources of a search and their distances (reused).
	src  []int32
	dist []float64
	// stop ends a search early when its context is done (stop.err is then
	// set, and s is left in no state to be reused); a nil context never
	// stops.
	stop stopper
}

func newDijkstra(n int) *dijkstra {
	s := &dijkstra{vs: make([]vert, n)}
	for i := range s.vs {
		s.vs[i] = vert{d: math.Inf(1), p: -1}
	}
	return s
}

// run computes the distances from src into s.vs (positions in g's order).
func (s *dijkstra) run(g *pathGraph, src int32) {
	s.src, s.dist = append(s.src[:0], src), append(s.dist[:0], 0)
	s.search(g, s.src, s.dist, nil)
}

// search computes the distances from the sources src (positions in g's
// order) at the distances dist (≥ 0, +0 not −0) into s.vs: by the bucket
// search, or by Dijkstra's heap where the buckets do not suit g. The
// distances in s.vs on entry are labels to start from (+Inf, or walk
// lengths consistent along every edge: rows.go); where the bucket search
// gives up it resets them to +Inf and calls restart, if not nil, to set
// them again for the heap. On return every mark s.vs[v].p is -1 again; the
// caller resets the distances to +Inf while it reads them out (emit).
func (s *dijkstra) search(g *pathGraph, src []int32, dist []float64, restart func()) {
	if g.delta > 0 && !g.heapOnly.Load() {
		if s.buckets(g, src, dist) {
			return
		}
		g.heapOnly.Store(!giveUpAlways)
		if restart != nil {
			restart()
		}
	}
	if s.hk == nil {
		s.hk, s.hv = make([]uint64, g.n), make([]int32, g.n)
	}
	size := 0
	for k, v := range src {
		size = s.push(v, dist[k], size)
	}
	s.settle(g, size)
}

// settle runs Dijkstra's main loop from a heap of the given size already
// holding the sources (their distances set in s.vs).
func (s *dijkstra) settle(g *pathGraph, size int) {
	vs, hk, hv := s.vs, s.hk, s.hv
	n := len(vs)
	hk = hk[:n]
	hv = hv[:n]
	ptr, adj, w := g.ptr, g.adj, g.w
	for pops := 1; size > 0; pops++ {
		if pops%4096 == 0 && s.stop.tick(4096*8) {
			return // cancelled: s is dropped
		}
		u, du := hv[0], math.Float64frombits(hk[0])
		vs[u].p = -1
		size--
		if size > 0 {
			// Sift the last element down from the root.
			lk, lv := hk[size], hv[size]
			i := 0
			for {
				c := 4*i + 1
				if c >= size {
					break
				}
				var m int
				var mk uint64
				if c+3 < size {
					// All four children present (the common case): a
					// branch-free tournament. Keys are below 2⁶³, so the
					// sign of a difference as int64 says which is smaller;
					// on ties the left child wins.
					q := hk[c : c+4 : c+4]
					k0, k1, k2, k3 := int64(q[0]), int64(q[1]), int64(q[2]), int64(q[3])
					d01 := k1 - k0
					s01 := d01 >> 63
					a, ia := k0+d01&s01, int(s01&1)
					d23 := k3 - k2
					s23 := d23 >> 63
					b, ib := k2+d23&s23, 2+int(s23&1)
					dab := b - a
					sab := dab >> 63
					mk = uint64(a + dab&sab)
					m = c + ia + (ib-ia)&int(sab)
				} else {
					m, mk = c, hk[c]
					for j := c + 1; j < size; j++ {
						if hk[j] < mk {
							m, mk = j, hk[j]
						}
					}
				}
				if mk >= lk {
					break
				}
				mv := hv[m]
				hk[i], hv[i] = mk, mv
				vs[mv].p = int32(i)
				i = m
			}
			hk[i], hv[i] = lk, lv
			vs[lv].p = int32(i)
		}
		if size > 0 {
			// Prefetch the next vertex's adjacency: the relaxations below
			// do not wait for it, so its cache misses overlap with them.
			q := ptr[hv[0]]
			prefetch2(unsafe.Pointer(&adj[q]), unsafe.Pointer(&w[q]))
		}
		lo, hi := ptr[u], ptr[u+1]
		nbr := adj[lo:hi]
		wts := w[lo:hi]
		wts = wts[:len(nbr)]
		for e, v := range nbr {
			nd := du + wts[e]
			x := &vs[v]
			if nd >= x.d {
				continue // also every settled vertex: weights are ≥ 0
			}
			x.d = nd
			key := math.Float64bits(nd)
			i := int(x.p)
			if i < 0 {
				i = size
				size++
			}
			for i > 0 {
				p := (i - 1) >> 2
				pk := hk[p]
				if pk <= key {
					break
				}
				pv := hv[p]
				hk[i], hv[i] = pk, pv
				vs[pv].p = int32(i)
				i = p
			}
			hk[i], hv[i] = key, v
			vs[v].p = int32(i)
		}
	}
}

// float is the element type of a distance output.
type float interface{ float32 | float64 }

// emit writes the distances in s.vs to row in the output's column order
// (row[j] = distance of position inv[j], squared if asked: the original
// vertex order, or the positions' own), resets them to +Inf and returns
// the sum of the values written.
func emit[T float](row []T, s *dijkstra, inv []int32, squared bool) float64 {
	vs := s.vs
	inv = inv[:len(row)]
	inf := math.Inf(1)
	sum := 0.0
	if squared {
		for j, k := range inv {
			d := vs[k].d
			vs[k].d = inf
			v := T(d * d)
			row[j] = v
			sum += float64(v)
		}
	} else {
		for j, k := range inv {
			d := vs[k].d
			vs[k].d = inf
			v := T(d)
			row[j] = v
			sum += float64(v)
		}
	}
	return sum
}

// AllPairsShortestPaths writes the length of the shortest path from every
// vertex i to every vertex j of the weighted graph g (edge i→j of weight
// g_ij for every stored entry; a symmetric g is an undirected graph) into
// the caller's n×n row-major dst, +Inf where j cannot be reached from i.
// It runs a single-source search from every source in parallel
// (backend.Workers() goroutines; ctx checked while the graph is prepared
// and every 10⁵ or so steps of each search, so a cancel returns within
// milliseconds even at millions of vertices): distance buckets
// (buckets.go) where the weights suit them, Dijkstra's algorithm on an
// indexed 4-ary heap otherwise, the same distances bit for bit, O(n·(n +
// e)·log n) in all. Each search starts from the rows already written of
// the source's earlier neighbours (rows.go: a third of the time at 10,000
// points; the distances those of searches from scratch to the last bits,
// and the same bits whatever the number of workers). Per-worker scratch
// of O(n) and a reordered copy of the graph of O(n + e): nothing n×n is
// allocated. Each row is written once with its sum (opt.RowSums,
// opt.RowMeans); with opt.Squared the squares are written (MDS), each row
// squared once the searches that start from it have read it.
//
// It returns an error wrapping ErrInvalid if g is not square or has a
// negative, NaN or infinite weight, and one wrapping ctx.Err() if ctx is
// cancelled (dst is then partly written). It panics if dst is not n×n.
func AllPairsShortestPaths(ctx context.Context, g *CSR, dst blas64.General, opt PathOptions) error {
	if dst.Rows != g.r || dst.Cols != g.c {
		panic(fmt.Sprintf("sparse: AllPairsShortestPaths: graph is %d×%d, dst %d×%d", g.r, g.c, dst.Rows, dst.Cols))
	}
	return shortestPaths(ctx, "AllPairsShortestPaths", g, nil, dst.Data, dst.Stride, opt)
}

// AllPairsShortestPaths32 is AllPairsShortestPaths with a float32 output
// (half the memory; distances are computed in float64 and rounded once).
// Its searches start from float64 rows of their earlier neighbours kept in
// a ring of at most AllPairs32ScratchBytes(n, opt.RingInOutput) bytes
// (rows.go).
// dst holds the n×n result with the given row stride (≥ n).
func AllPairsShortestPaths32(ctx context.Context, g *CSR, dst []float32, stride int, opt PathOptions) error {
	n := g.r
	if n > 0 && (stride < n || len(dst) < (n-1)*stride+n) {
		panic(fmt.Sprintf("sparse: AllPairsShortestPaths32: %d elements cannot hold %d×%d with stride %d", len(dst), n, n, stride))
	}
	return shortestPaths(ctx, "AllPairsShortestPaths32", g, nil, dst, stride, opt)
}

// MultiSourceShortestPaths writes the shortest-path lengths from each of
// the given sources (landmarks) to every vertex into the L×n dst, row l for
// sources[l]: O(L·n) memory, O(L·(n + e)·log n) time, in parallel over
// sources. Otherwise as AllPairsShortestPaths. It panics if a source is out
// of range or dst is not len(sources)×n.
func MultiSourceShortestPaths(ctx context.Context, g *CSR, sources []int, dst blas64.General, opt PathOptions) error {
	if dst.Rows != len(sources) || dst.Cols != g.c {
		panic(fmt.Sprintf("sparse: MultiSourceShortestPaths: %d sources, graph %d×%d, dst %d×%d", len(sources), g.r, g.c, dst.Rows, dst.Cols))
	}
	return shortestPaths(ctx, "MultiSourceShortestPaths", g, sources, dst.Data, dst.Stride, opt)
}

// MultiSourceShortestPaths32 is MultiSourceShortestPaths with a float32
// L×n output of the given row stride.
func MultiSourceShortestPaths32(ctx context.Context, g *CSR, sources []int, dst []float32, stride int, opt PathOptions) error {
	l, n := len(sources), g.c
	if l > 0 && (stride < n || len(dst) < (l-1)*stride+n) {
		panic(fmt.Sprintf("sparse: MultiSourceShortestPaths32: %d elements cannot hold %d×%d with stride %d", len(dst), l, n, stride))
	}
	return shortestPaths(ctx, "MultiSourceShortestPaths32", g, sources, dst, stride, opt)
}

func shortestPaths[T float](ctx context.Context, what string, g *CSR, sources []int, dst []T, stride int, opt PathOptions) error {
	rows := g.r
	if sources != nil {
		rows = len(sources)
		for _, s := range sources {
			if s < 0 || s >= g.r {
				panic(fmt.Sprintf("sparse: %s: source %d out of range [0, %d)", what, s, g.r))
			}
		}
	}
	if opt.RowSums != nil && len(opt.RowSums) != rows {
		panic(fmt.Sprintf("sparse: %s: RowSums has length %d, need %d", what, len(opt.RowSums), rows))
	}
	if opt.RowMeans != nil && len(opt.RowMeans) != rows {
		panic(fmt.Sprintf("sparse: %s: RowMeans has length %d, need %d", what, len(opt.RowMeans), rows))
	}
	if opt.Order != nil && (sources != nil || len(opt.Order) != rows) {
		panic(fmt.Sprintf("sparse: %s: Order has length %d and is for all pairs only (%d rows)", what, len(opt.Order), rows))
	}
	pg, err := newPathGraph(ctx, what, g)
	if err != nil {
		return err
	}
	n := pg.n
	if rows == 0 || n == 0 {
		return ctx.Err()
	}
	cols := pg.inv // the position whose distance each output column holds
	if opt.Order != nil {
		cols = make([]int32, n)
		for k, v := range pg.perm {
			opt.Order[k] = int(v)
			cols[k] = int32(k)
		}
	}
	if sources == nil && !plainAllPairs {
		return allPairsFromRows(ctx, what, pg, cols, dst, stride, opt)
	}
	// A search stopped by ctx leaves its scratch behind and says so here:
	// its row is not written, so the call must fail even when the loop had
	// no chunk left to refuse.
	var stopped atomic.Bool
	// Per-worker scratch, taken from and returned to a pool for each chunk.
	pool := make(chan *dijkstra, backend.Workers())
	// Chunks of about 2·10⁶ heap and edge operations (a few milliseconds).
	grain := max(1, 2_000_000/(n+int(pg.ptr[n])+1))
	err = backend.ParallelForCtx(ctx, rows, grain, func(lo, hi int) {
		var s *dijkstra
		select {
		case s = <-pool:
		default:
			s = newDijkstra(n)
		}
		s.stop = stopper{ctx: ctx}
		for r := lo; r < hi; r++ {
			var src int32
			switch {
			case sources != nil:
				src = pg.inv[sources[r]]
			case opt.Order != nil:
				src = int32(r)
			default:
				src = pg.inv[r]
			}
			s.run(pg, src)
			if s.stop.err != nil {
				stopped.Store(true)
				return
			}
			sum := emit(dst[r*stride:r*stride+n], s, cols, opt.Squared)
			if opt.RowSums != nil {
				opt.RowSums[r] = sum
			}
			if opt.RowMeans != nil {
				opt.RowMeans[r] = sum / float64(n)
			}
		}
		if opt.Done != nil {
			opt.Done.Add(int64(hi - lo))
		}
		pool <- s
	})
	if err == nil && stopped.Load() {
		err = fmt.Errorf("sparse: %s: %w", what, ctx.Err())
	}
	return err
}

// FloydWarshall returns the n×n matrix of shortest-path lengths of the
// graph g (as AllPairsShortestPaths: edge i→j for every stored entry) by
// the blocked Floyd–Warshall algorithm, n³ min-plus operations: for small
// dense graphs and as the test oracle of the Dijkstra code. The dst must be
// n×n. Errors as AllPairsShortestPaths.
func FloydWarshall(g *CSR, dst blas64.General) error {
	if dst.Rows != g.r || dst.Cols != g.c {
		panic(fmt.Sprintf("sparse: FloydWarshall: graph is %d×%d, dst %d×%d", g.r, g.c, dst.Rows, dst.Cols))
	}
	if err := validateGraph(&stopper{}, "FloydWarshall", g); err != nil {
		return err
	}
	n := g.r
	inf := math.Inf(1)
	for i := 0; i < n; i++ {
		row := dst.Data[i*dst.Stride : i*dst.Stride+n]
		for j := range row {
			row[j] = inf
		}
		for p := g.indptr[i]; p < g.indptr[i+1]; p++ {
			row[g.ind[p]] = math.Min(row[g.ind[p]], g.data[p])
		}
		row[i] = 0
	}
	const bs = 64
	d, st := dst.Data, dst.Stride
	// relax updates block (I, J) through the pivots k of block K, k outermost.
	relax := func(i0, i1, j0, j1, k0, k1 int) {
		for k := k0; k < k1; k++ {
			rk := d[k*st+j0 : k*st+j1]
			for i := i0; i < i1; i++ {
				dik := d[i*st+k]
				if dik == inf {
					continue
				}
				ri := d[i*st+j0 : i*st+j1]
				ri = ri[:len(rk)]
				for j, v := range rk {
					if s := dik + v; s < ri[j] {
						ri[j] = s
					}
				}
			}
		}
	}
	nb := (n + bs - 1) / bs
	for kb := 0; kb < nb; kb++ {
		k0, k1 := kb*bs, min(n, kb*bs+bs)
		// Phase 1: the pivot block; phase 2: its block row and column.
		relax(k0, k1, k0, k1, k0, k1)
		backend.ParallelFor(nb, 1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				if b == kb {
					continue
				}
				x0, x1 := b*bs, min(n, b*bs+bs)
				relax(k0, k1, x0, x1, k0, k1)
				relax(x0, x1, k0, k1, k0, k1)
			}
		})
		// Phase 3: every other block, a min-plus product of the block column
		// and row just finished.
		backend.ParallelFor(nb, 1, func(lo, hi int) {
			for ib := lo; ib < hi; ib++ {
				if ib == kb {
					continue
				}
				i0, i1 := ib*bs, min(n, ib*bs+bs)
				for jb := 0; jb < nb; jb++ {
					if jb == kb {
						continue
					}
					relax(i0, i1, jb*bs, min(n, jb*bs+bs), k0, k1)
				}
			}
		})
	}
	return nil
}
