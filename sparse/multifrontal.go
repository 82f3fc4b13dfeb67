package sparse

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
)

// supernodes is the supernodal structure of an analysis: the pattern of L
// by column and the fundamental supernodes (Liu, Ng & Peyton, "On finding
// supernodes for sparse matrix computations", SIAM J. Matrix Anal. Appl.
// 14(1), 1993): maximal runs of columns j, j+1, … where j+1 is j's only
// child in the elimination tree and column j's pattern is column j+1's
// plus j+1 itself. Within a supernode the factor is a dense trapezoid.
type supernodes struct {
	pattern    []int32   // rows of L below the diagonal, by column (colStart), ascending
	start      []int32   // supernode s holds columns start[s] … start[s+1]−1
	parent     []int32   // supernode of the parent of the last column; −1 at roots
	kids       [][]int32 // children of each supernode, ascending
	order      []int32   // a postorder of the supernodes
	maxFront   int       // rows of the largest front
	peakUpdate int       // most update-matrix entries alive at once, in order
}

// multifrontalMaxFrontWork: Factor works on fronts only when the entries
// its fronts touch (Σ m²) are at most this fraction of its flam; a factor
// of narrow supernodes (RCM's envelopes) is cheaper row by row.
const multifrontalMaxFrontWork = 0.5

// multifrontalMinFlam is the factorization cost from which Factor works on
// dense fronts: below it the fronts are small and the up-looking
// row-by-row algorithm has less overhead (measured, bench/scale/ldlorder).
const multifrontalMinFlam = 3e7

// frontPanel is the width of the panels a front's columns are factored
// in, and frontRows the height of the row blocks of its trailing update:
// the products then stay near the lower triangle.
const (
	frontPanel = 32
	frontRows  = 64
)

// frontParallelFlam is the size of a panel's trailing update (rows² ×
// panel width) from which its row blocks are shared among goroutines.
const frontParallelFlam = 1 << 20

// partition finds the fundamental supernodes from the elimination tree and
// the column counts (O(n)) and the work of the multifrontal factorization
// beyond its flam: clearing and assembling a front of m rows touches m²
// entries whatever its width.
func (s *LDLAnalysis) partition() (sn *supernodes, frontWork float64) {
	n := s.n
	sn = &supernodes{}
	children := make([]int32, n)
	for _, p := range s.parent {
		if p >= 0 {
			children[p]++
		}
	}
	super := make([]int32, n)
	for j := 0; j < n; j++ {
		cnt := s.colStart[j+1] - s.colStart[j]
		if j == 0 || s.parent[j-1] != int32(j) || children[j] != 1 || s.colStart[j]-s.colStart[j-1] != cnt+1 {
			sn.start = append(sn.start, int32(j))
		}
		super[j] = int32(len(sn.start) - 1)
	}
	sn.start = append(sn.start, int32(n))
	ns := len(sn.start) - 1
	sn.parent = make([]int32, ns)
	sn.kids = make([][]int32, ns)
	var roots []int32
	for t := range ns {
		last := sn.start[t+1] - 1
		sn.parent[t] = -1
		if p := s.parent[last]; p >= 0 {
			sn.parent[t] = super[p]
			sn.kids[super[p]] = append(sn.kids[super[p]], int32(t))
		} else {
			roots = append(roots, int32(t))
		}
		f := sn.start[t]
		m := 1 + s.colStart[f+1] - s.colStart[f]
		sn.maxFront = max(sn.maxFront, m)
		frontWork += float64(m) * float64(m)
	}
	// A postorder of the supernodal tree: a supernode's update matrix
	// then waits only for its siblings' subtrees, and the live update
	// matrices form a stack (the peak of which sizes the working memory).
	sn.order = make([]int32, 0, ns)
	live, peak := 0, 0
	size := func(t int32) int {
		f := sn.start[t]
		below := s.colStart[f+1] - s.colStart[f] + 1 - int(sn.start[t+1]-f)
		return below * (below + 1) / 2
	}
	type frame struct{ t, next int32 }
	var stack []frame
	for _, r := range roots {
		stack = append(stack[:0], frame{r, 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if int(top.next) < len(sn.kids[top.t]) {
				c := sn.kids[top.t][top.next]
				top.next++
				stack = append(stack, frame{c, 0})
				continue
			}
			t := top.t
			stack = stack[:len(stack)-1]
			sn.order = append(sn.order, t)
			for _, c := range sn.kids[t] {
				live -= size(c)
			}
			if sn.parent[t] >= 0 {
				live += size(t)
			}
			peak = max(peak, live)
		}
	}
	sn.peakUpdate = peak
	return sn, frontWork
}

// supernodal returns the analysis's supernodes with the pattern of L,
// computing them once (a has the analysed pattern). It returns ctx's
// error if ctx is done first.
func (s *LDLAnalysis) supernodal(ctx context.Context, a *CSR) (*supernodes, error) {
	s.superMu.Lock()
	defer s.superMu.Unlock()
	if s.super != nil {
		return s.super, nil
	}
	n := s.n
	sn, _ := s.partition()
	sn.pattern = make([]int32, s.NNZ())
	// The pattern of L by column: row k's pattern is its row subtree (the
	// walk of symbolicLDL), appended to the columns it crosses in
	// increasing k.
	stop := &stopper{ctx: ctx}
	next := make([]int, n)
	copy(next, s.colStart[:n])
	flag := make([]int32, n)
	for k := 0; k < n; k++ {
		flag[k] = int32(k)
		v := s.perm[k]
		walked := a.indptr[v+1] - a.indptr[v] + 1
		for _, w := range a.ind[a.indptr[v]:a.indptr[v+1]] {
			for i := s.inv[w]; i < int32(k); i = s.parent[i] {
				// A walk past a root of the elimination forest, or into
				// a full column: a as a matrix without the analysed
				// pattern.
				if i < 0 {
					return nil, errPattern
				}
				if flag[i] == int32(k) {
					break
				}
				if next[i] >= s.colStart[i+1] {
					return nil, errPattern
				}
				sn.pattern[next[i]] = int32(k)
				next[i]++
				flag[i] = int32(k)
				walked++
			}
		}
		if stop.tick(walked) {
			return nil, fmt.Errorf("sparse: LDLᵀ: %w", stop.err)
		}
	}
	s.super = sn
	return sn, nil
}

// factorMultifrontal computes f's factor on dense frontal matrices
// (Duff & Reid, "The multifrontal solution of indefinite sparse symmetric
// linear equations", ACM TOMS 9(3), 1983; Liu, SIAM Review 34(1), 1992):
// supernode by supernode, the front gathers the entries of A − σI in its
// columns and its children's update matrices (extend-add), its first w
// columns are factored densely (the w×w diagonal block by scalar LDLᵀ
// without pivoting, the rows below by a triangular solve) and the rest of
// the front, less L₂₁·D·L₂₁ᵀ (one matrix product), is its update matrix for
// its parent. The factor is stored in f's column layout (maxL collects
// each column's largest entry), so the solves and the inertia are those of
// the up-looking factor. It returns ‖A − σI‖∞, or the error at the first
// zero pivot.
func (s *LDLAnalysis) factorMultifrontal(ctx context.Context, a *CSR, f *LDL, maxL []float64) (float64, error) {
	n := s.n
	sn, err := s.supernodal(ctx, a)
	if err != nil {
		return 0, err
	}
	ns := len(sn.start) - 1
	update := make([][]float64, ns) // update matrix of each supernode (packed lower triangle), until its parent takes it
	var live atomic.Int64           // update-matrix entries held by all workers
	store := &updateStore{limit: frontWorkers(ns) * sn.peakUpdate}
	newWorker := func() *frontWorker {
		w := &frontWorker{s: s, sn: sn, a: a, f: f, update: update, pos: make([]int32, n), live: &live, peak: &f.peakUpdate, store: store}
		for i := range w.pos {
			w.pos[i] = -1
		}
		return w
	}
	norm := 0.0
	if workers := frontWorkers(ns); workers <= 1 {
		w := newWorker()
		for _, t := range sn.order {
			if err := w.front(ctx, t); err != nil {
				return 0, err
			}
		}
		norm = w.norm
	} else {
		if norm, err = s.factorSubtrees(ctx, sn, workers, newWorker); err != nil {
			return 0, err
		}
	}
	f.rowIdx = sn.pattern // shared, read-only: the same for every factorization
	for j := range n {
		for _, l := range f.val[s.colStart[j]:s.colStart[j+1]] {
			maxL[j] = max(maxL[j], math.Abs(l))
		}
	}
	return norm, nil
}

// subtreeMinSupernodes: Factor shares the supernodes among goroutines
// only when each has at least this many on average.
const subtreeMinSupernodes = 64

// frontWorkers is the number of goroutines that factor the fronts of ns
// supernodes.
func frontWorkers(ns int) int {
	return max(1, min(runtime.GOMAXPROCS(0), ns/subtreeMinSupernodes))
}

// factorSubtrees runs the fronts on workers goroutines: a supernode is
// ready once its children are done, and each worker takes the supernode
// made ready last (depth first, as a postorder would, so that few update
// matrices are alive at once). Disjoint subtrees run at once; the fronts
// near the root, one at a time, share their products among the goroutines
// as before. A front adds its children's update matrices in a fixed order
// whatever the schedule, so the factor is the same bit for bit with any
// number of workers. It returns ‖A − σI‖∞ or the first error met.
func (s *LDLAnalysis) factorSubtrees(ctx context.Context, sn *supernodes, workers int, newWorker func() *frontWorker) (float64, error) {
	ns := len(sn.start) - 1
	pending := make([]int, ns) // children not yet factored
	for t := range ns {
		pending[t] = len(sn.kids[t])
	}
	ready := make([]int32, 0, ns)
	for i := len(sn.order) - 1; i >= 0; i-- { // the first leaf of the postorder on top
		if t := sn.order[i]; pending[t] == 0 {
			ready = append(ready, t)
		}
	}
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	remaining := ns
	var firstErr error
	norms := make([]float64, workers)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker()
			defer func() { norms[k] = w.norm }()
			mu.Lock()
			for {
				for len(ready) == 0 && remaining > 0 && firstErr == nil {
					cond.Wait()
				}
				if remaining == 0 || firstErr != nil {
					mu.Unlock()
					return
				}
				t := ready[len(ready)-1]
				ready = ready[:len(ready)-1]
				mu.Unlock()
				err := w.front(ctx, t)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					cond.Broadcast()
					continue
				}
				remaining--
				if p := sn.parent[t]; p >= 0 {
					if pending[p]--; pending[p] == 0 {
						ready = append(ready, p)
						cond.Signal()
					}
				}
				if remaining == 0 {
					cond.Broadcast()
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	norm := 0.0
	for _, v := range norms {
		norm = max(norm, v)
	}
	return norm, nil
}

// frontWorker holds one goroutine's working space for the fronts: the
// dense front, the positions of its rows, and scratch.
type frontWorker struct {
	s      *LDLAnalysis
	sn     *supernodes
	a      *CSR
	f      *LDL
	update [][]float64 // shared: written by a child, read by its parent after
	pos    []int32     // position of a row in the current front, −1 elsewhere
	buf    []float64   // the front, grown as needed
	idx    []int32     // the front's rows
	rel    []int32     // positions in the front of a child's update rows
	scr    []float64
	norm   float64 // ‖A − σI‖∞ over the columns seen
	work   float64 // since ctx was last checked
	// live counts the update matrices' entries held by all workers, peak
	// its largest value (for the tests of FactorBytes).
	live, peak *atomic.Int64
	store      *updateStore // shared: the update matrices' storage, recycled
}

// updateStore recycles the storage of the update matrices within one
// factorization: a front's extend-add frees its children's, which later
// fronts take (by size class, powers of two), so a factorization
// allocates about its peak of live update matrices rather than all of
// them, and a recycled one needs no zeroing (every entry is written). It
// keeps at most limit entries of free storage (FactorBytes' count of the
// update matrices; beyond it a freed one is left to the collector).
// LLE of a 50,000-point swiss roll, a fresh process a fit: peak RSS
// 299–320 → 239–261 MB; the fit's time within the machine's noise
// (1.34–1.65 → 1.28–1.46 s in one sitting, 1.37–1.51 → 1.38–1.56 s in
// the next).
type updateStore struct {
	mu      sync.Mutex
	free    [64][][]float64
	freeCap int // entries of storage in free
	limit   int
}

// get returns a slice of length n: a free one of n's size class (capacity
// the next power of two) or of one of the next two classes — storage
// already held, which a front near the root, whose update matrix rarely
// matches a freed child's class, would otherwise allocate afresh (LLE of
// 20,000 deformed digits: 7.4 → 2.5 GB allocated for update matrices,
// peak RSS 6.6 → 5.0 GB, the same factor) — or a new one.
func (u *updateStore) get(n int) []float64 {
	c := bits.Len(uint(n - 1))
	u.mu.Lock()
	for k := c; k < min(c+3, len(u.free)); k++ {
		if l := len(u.free[k]); l > 0 {
			b := u.free[k][l-1]
			u.free[k] = u.free[k][:l-1]
			u.freeCap -= cap(b)
			u.mu.Unlock()
			return b[:n]
		}
	}
	u.mu.Unlock()
	return make([]float64, n, 1<<c)
}

// put gives b's storage back.
func (u *updateStore) put(b []float64) {
	c := bits.Len(uint(cap(b) - 1))
	if cap(b) != 1<<c {
		return
	}
	u.mu.Lock()
	if u.freeCap+cap(b) <= u.limit {
		u.free[c] = append(u.free[c], b)
		u.freeCap += cap(b)
	}
	u.mu.Unlock()
}

// held adds d entries to the update matrices held and records the peak.
func (fw *frontWorker) held(d int) {
	v := fw.live.Add(int64(d))
	for p := fw.peak.Load(); v > p && !fw.peak.CompareAndSwap(p, v); p = fw.peak.Load() {
	}
}

// front assembles and partly factors supernode t's front, stores its
// columns of L and D in f and leaves its update matrix for its parent.
func (fw *frontWorker) front(ctx context.Context, t int32) error {
	s, sn, a, f, pos := fw.s, fw.sn, fw.a, fw.f, fw.pos
	n := s.n
	kids, update := sn.kids, fw.update
	if fw.work > 1e5 {
		fw.work = 0
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("sparse: LDLᵀ: %w", err)
		}
	}
	j0, j1 := int(sn.start[t]), int(sn.start[t+1])
	w := j1 - j0
	lo, hi := s.colStart[j0], s.colStart[j0+1]
	m := 1 + hi - lo
	// The front's rows: j0, then column j0's pattern (j0+1 … j1−1 first).
	idx := append(fw.idx[:0], int32(j0))
	idx = append(idx, sn.pattern[lo:hi]...)
	fw.idx = idx
	for q, r := range idx {
		pos[r] = int32(q)
	}
	if cap(fw.buf) < m*m {
		// A front past a quarter of the largest takes the largest's
		// size at once: growing front by front toward the root left a
		// trail of buffers of hundreds of MB to the collector (LLE of
		// 20,000 digits: peak RSS 8.2 → 6.8 GB). FactorBytes counts
		// the largest front for each worker.
		size := m * m
		if 4*m > fw.sn.maxFront {
			size = fw.sn.maxFront * fw.sn.maxFront
		}
		fw.buf = make([]float64, size)
	}
	F := fw.buf[:m*m]
	for r := range m {
		clear(F[r*m : r*m+r+1]) // the lower triangle is all that is read
	}
	// A − σI in the front's columns (lower triangle, row-major F[r][c]).
	for j := j0; j < j1; j++ {
		v := s.perm[j]
		c := int(pos[j])
		rowSum, diag := 0.0, -f.sigma
		for p := a.indptr[v]; p < a.indptr[v+1]; p++ {
			i := s.inv[a.ind[p]]
			x := a.data[p]
			if i == int32(j) {
				diag += x
				continue
			}
			rowSum += math.Abs(x)
			if i < int32(j) {
				continue
			}
			r := pos[i]
			if r < 0 {
				return errPattern
			}
			F[int(r)*m+c] += x
		}
		F[c*m+c] += diag
		fw.norm = max(fw.norm, rowSum+math.Abs(diag))
	}
	// Extend-add the children's update matrices.
	for _, ch := range kids[t] {
		u := update[ch]
		cf := int(sn.start[ch])
		cidx := sn.pattern[s.colStart[cf]+int(sn.start[ch+1])-cf-1 : s.colStart[cf+1]]
		mu := len(cidx)
		rel := fw.rel[:0]
		for _, rx := range cidx {
			px := pos[rx]
			if px < 0 {
				return errPattern
			}
			rel = append(rel, px)
		}
		fw.rel = rel
		// Both index lists ascend, so row x's entries y ≤ x land in
		// the lower triangle of the front.
		for x, px := range rel {
			urow := u[x*(x+1)/2 : x*(x+1)/2+x+1]
			frow := F[int(px)*m : int(px)*m+m]
			for y, v := range urow {
				frow[rel[y]] += v
			}
		}
		update[ch] = nil
		fw.store.put(u)
		fw.held(-len(u))
		fw.work += float64(mu * mu)
	}
	// Partial LDLᵀ of the front's first w columns, in panels of
	// frontPanel columns: the panel's diagonal block by scalar LDLᵀ,
	// the rows below it by a triangular solve (X = L·D), then the
	// trailing lower triangle less L·Xᵀ by matrix products on blocks
	// of rows. What remains below and right of column w is the update
	// matrix.
	for p0 := 0; p0 < w; p0 += frontPanel {
		p1 := min(p0+frontPanel, w)
		for p := p0; p < p1; p++ {
			d := F[p*m+p]
			for q := p0; q < p; q++ {
				d -= F[p*m+q] * F[p*m+q] * F[q*m+q]
			}
			if d == 0 || math.IsNaN(d) || math.IsInf(d, 0) {
				return fmt.Errorf("%w: pivot %d of %d is %g (σ = %g)", ErrSingular, j0+p, n, d, f.sigma)
			}
			F[p*m+p] = d
			for r := p + 1; r < p1; r++ {
				x := F[r*m+p]
				for q := p0; q < p; q++ {
					x -= F[r*m+q] * F[q*m+q] * F[p*m+q]
				}
				F[r*m+p] = x / d
			}
		}
		rest := m - p1
		if rest == 0 {
			continue
		}
		b := p1 - p0
		frontBLAS(float64(rest)*float64(b)*float64(b)/2).Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.Unit, rest, b, 1, F[p0*m+p0:], m, F[p1*m+p0:], m)
		// xt = Xᵀ (b × rest), so that the products run along rows
		// (axpy kernels) rather than as short dot products.
		if cap(fw.scr) < rest*b {
			fw.scr = make([]float64, rest*b)
		}
		xt := fw.scr[:rest*b]
		for r := range rest {
			row := F[(p1+r)*m+p0 : (p1+r)*m+p1]
			for q, v := range row {
				xt[q*rest+r] = v
				row[q] = v / F[(p0+q)*m+p0+q]
			}
		}
		gemmRows := func(rb int) {
			re := min(rb+frontRows, rest)
			frontBLAS(float64(re-rb)*float64(re)*float64(b)).Dgemm(blas.NoTrans, blas.NoTrans, re-rb, re, b, -1, F[(p1+rb)*m+p0:], m, xt, rest, 1, F[(p1+rb)*m+p1:], m)
		}
		blocks := (rest + frontRows - 1) / frontRows
		if workers := min(runtime.GOMAXPROCS(0), blocks); workers > 1 && float64(rest)*float64(rest)*float64(b) > frontParallelFlam {
			// The row blocks are independent: the workers take them
			// from the last (the widest) down, and stop taking them
			// once ctx is done (a panel of a front of thousands of rows
			// is 10⁸–10⁹ flam: checking only between panels left a
			// cancelled LLE of 20,000 digits running 42–106 ms; now
			// 3–34 ms).
			var nextBlock atomic.Int64
			nextBlock.Store(int64(blocks))
			var wg sync.WaitGroup
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for ctx.Err() == nil {
						i := nextBlock.Add(-1)
						if i < 0 {
							return
						}
						gemmRows(int(i) * frontRows)
					}
				}()
			}
			wg.Wait()
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("sparse: LDLᵀ: %w", err)
			}
		} else {
			for rb := 0; rb < rest; rb += frontRows {
				gemmRows(rb)
			}
		}
		fw.work += float64(rest) * float64(rest) * float64(b)
		if fw.work > 1e7 { // a wide front: check between its panels too
			fw.work = 0
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("sparse: LDLᵀ: %w", err)
			}
		}
	}
	below := m - w
	if below > 0 && sn.parent[t] >= 0 {
		u := fw.store.get(below * (below + 1) / 2) // packed lower triangle, by rows
		for r := range below {
			copy(u[r*(r+1)/2:r*(r+1)/2+r+1], F[(w+r)*m+w:(w+r)*m+w+r+1])
		}
		update[t] = u
		fw.held(len(u))
	}
	// The w columns in f's layout (column j0+p holds the rows of idx
	// after position p; the rows are the pattern, shared by every
	// factor): tiles of frontPanel columns, read along the front's
	// rows.
	for p := 0; p < w; p++ {
		f.d[j0+p] = F[p*m+p]
	}
	for pc := 0; pc < w; pc += frontPanel {
		pe := min(pc+frontPanel, w)
		for r := pc + 1; r < m; r++ {
			for p := pc; p < min(pe, r); p++ {
				f.val[s.colStart[j0+p]+r-p-1] = F[r*m+p]
			}
		}
	}
	for _, r := range idx {
		pos[r] = -1
	}
	return nil
}

// frontCFlam is the size (flam) from which a front's triangular solve or
// product goes to the BLAS registered with gonum (blas64); smaller ones
// run gonum's Go BLAS on the calling goroutine. They are the same code in
// the pure-Go build. Under -tags openblas the registered BLAS is the C
// library: one call at a time (the backend's thread budget), each waking
// its threads, so the small products of the fronts that run at once on
// several goroutines waited for each other and paid the library's set-up
// for microseconds of arithmetic. Factorizations on fronts under -tags
// openblas (BenchmarkLDLFile factor/fronts=true, 2 cores, four each) with
// every product in C, in Go, and split at 10⁵ flam: the 50,000-point
// roll's kNN Laplacian 128, 83, 64 ms; its LLE matrix 245, 286, 201 ms;
// 5000 deformed digits' kNN Laplacian 148, 286, 138 ms and LLE matrix
// 489, 768, 427 ms (the pure-Go build: 76, 277, 266, 886 ms); 3·10⁴ and
// 3·10⁵ were no better.
const frontCFlam = 1e5

// frontBLAS returns the BLAS for a front's call of flam multiply-adds.
func frontBLAS(flam float64) blas.Float64 {
	if flam >= frontCFlam {
		return blas64.Implementation()
	}
	return gonumblas.Implementation{}
}
