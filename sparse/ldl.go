package sparse

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"
)

// ErrSingular is wrapped by the error of LDLAnalysis.Factor when a pivot
// of the factorization is zero (or not finite): the shifted matrix, or one
// of its leading principal submatrices in the chosen order, is singular.
var ErrSingular = errors.New("sparse: zero pivot in LDLᵀ factorization")

// ErrTooLarge is wrapped by the error of AnalyzeLDLWithin when the factor
// would hold more entries than allowed under every ordering tried.
var ErrTooLarge = errors.New("sparse: factor too large")

// errPattern is the error of a factorization whose matrix does not have
// the analysed pattern.
var errPattern = fmt.Errorf("%w: the matrix's pattern is not the analysed one (or not symmetric)", ErrInvalid)

// LDLAnalysis is the symbolic LDLᵀ factorization of a sparse symmetric
// matrix: a fill-reducing ordering P, the elimination tree of P·A·Pᵀ and the
// column counts of its factor L (Liu, "The role of elimination trees in
// sparse factorization", SIAM J. Matrix Anal. Appl. 11(1), 1990). It
// depends only on the pattern, so one analysis serves factorizations of
// A − σ·I for any σ (Factor).
type LDLAnalysis struct {
	n        int
	perm     []int32 // new → old
	inv      []int32 // old → new
	parent   []int32 // elimination tree; −1 at roots
	colStart []int   // column j of L at [colStart[j], colStart[j+1])
	flam     float64
	ordering Ordering
	tried    map[Ordering]int // predicted nnz(L) of every ordering tried

	frontWork float64     // Σ m² over the supernodes' fronts (partition)
	superMu   sync.Mutex  // guards super
	super     *supernodes // for the multifrontal factorization, on first use

	planOnce  sync.Once
	solvePlan *solvePlan // for the solves on all cores, on first use (nil: too small)

	rowCutOnce sync.Once
	rowCutVal  *treeCut // for the row-by-row factorization on all cores, on first use
}

// AnalyzeLDL orders the symmetric a (only its pattern is read; a must be
// square and structurally symmetric) and computes the symbolic
// factorization. With OrderAuto it tries approximate minimum degree and
// reverse Cuthill–McKee and keeps the ordering whose factorization is
// predicted to take the least time (factorCost: its flam, a third of them
// when Factor can work on dense fronts; TriedFill reports the entries of
// those whose analysis finished). RCM is not kept, nor reported, when
// AMD's factor is multifrontal: an envelope is factored row by row, and it
// was the slower on every such matrix measured; nor when the columns of
// its factor would cost more than AMD's (rcmCannotWin: its analysis is
// dropped). With two or more cores the two analyses
// run at once on two goroutines (RCM's abandoned as soon as AMD's proves
// multifrontal); the analysis kept is the one the serial loop keeps.
// Nested dissection is not tried either: it cost more
// than AMD on every matrix measured (bench/scale/ldlorder: swiss rolls,
// deformed digits, grids) and its ordering takes as long as AMD's. Time,
// not entries: on the neighbour graphs of high-dimensional data AMD stores
// the fewest entries yet costs more flam than RCM (LLE's M on 10,000
// deformed digits: 16.3 M entries and 2.3e10 flam against 18.1 M and
// 2.0e10), but its supernodes make them 6× faster (5.9 s on fronts against
// 35.1 s row by row).
//
// It returns an error wrapping ErrInvalid when a is not square, and ctx's
// error if ctx is done first (it is checked every ~10⁵ entries visited:
// the orderings and the analysis of a million-entry matrix take hundreds
// of milliseconds).
func AnalyzeLDL(ctx context.Context, a *CSR, ord Ordering) (*LDLAnalysis, error) {
	return AnalyzeLDLWithin(ctx, a, ord, 0)
}

// AnalyzeLDLWithin is AnalyzeLDL for a factor of at most maxEntries entries
// below the diagonal (0: any): an ordering whose factor would hold more is
// abandoned — AMD as soon as its elimination has counted them, the others
// once the column counts (in time proportional to A's entries) say so —
// so that a matrix whose factor cannot be afforded (the neighbour graphs
// of high-dimensional data fill in to 10⁹–10¹⁰ entries) costs the
// orderings, never a factor's worth of work. When every ordering is
// abandoned the error wraps ErrTooLarge.
func AnalyzeLDLWithin(ctx context.Context, a *CSR, ord Ordering, maxEntries int64) (*LDLAnalysis, error) {
	if a.r != a.c {
		return nil, fmt.Errorf("%w: LDLᵀ of a %d×%d matrix", ErrInvalid, a.r, a.c)
	}
	var cands []Ordering
	switch ord {
	case OrderAuto:
		cands = []Ordering{OrderAMD, OrderRCM}
	case OrderRCM, OrderND, OrderNatural, OrderAMD:
		cands = []Ordering{ord}
	default:
		return nil, fmt.Errorf("%w: ordering %d", ErrInvalid, int(ord))
	}
	if ord == OrderAuto && runtime.GOMAXPROCS(0) >= 2 {
		return analyzeAuto(ctx, a, maxEntries)
	}
	return analyzeSerial(ctx, a, cands, maxEntries)
}

// analyzeSerial analyses a under each ordering of cands in turn (with
// OrderAuto, AMD's and then RCM's, not made at all when AMD's factor works
// on fronts) and keeps the cheapest (keepCheapest).
func analyzeSerial(ctx context.Context, a *CSR, cands []Ordering, maxEntries int64) (*LDLAnalysis, error) {
	var made [2]*LDLAnalysis
	for k, o := range cands {
		if k > 0 && made[0] != nil && made[0].usesFronts() {
			break // RCM's envelope is factored row by row: slower
		}
		stop := &stopper{ctx: ctx, limit: maxEntries}
		made[k] = analyzeWith(stop, a, o)
		if stop.err != nil {
			return nil, stop.err
		}
	}
	return keepCheapest(made[0], made[1], maxEntries)
}

// keepCheapest returns the cheaper of the analyses made — first (AMD's
// with OrderAuto, else the one ordering's) and rcm (RCM's with OrderAuto)
// — nil where not made or over the entry limit, with the orderings tried
// and their fill: RCM's is dropped, and not reported, when it cannot be
// cheaper than first (rcmCannotWin). When neither is left the error wraps
// ErrTooLarge.
func keepCheapest(first, rcm *LDLAnalysis, maxEntries int64) (*LDLAnalysis, error) {
	best := first
	tried := map[Ordering]int{}
	if first != nil {
		tried[first.ordering] = first.NNZ()
	}
	if rcm != nil && !rcmCannotWin(rcm, first) {
		tried[OrderRCM] = rcm.NNZ()
		if best == nil || rcm.cheaper(best) {
			best = rcm
		}
	}
	if best == nil {
		return nil, tooLarge(maxEntries)
	}
	best.tried = tried
	return best, nil
}

// rcmCannotWin reports whether RCM's analysis rcm cannot be cheaper than
// amd's (nil: none), which is factored row by row: such an RCM analysis is
// dropped, and not reported among the orderings tried. RCM's factor could
// work on fronts (a third of the flam) only from multifrontalMinFlam flam
// on, so below a cost of multifrontalMinFlam/3 the bound on its flam is
// amd's cost itself, and above it three times that cost.
func rcmCannotWin(rcm, amd *LDLAnalysis) bool {
	if amd == nil {
		return false
	}
	c := amd.factorCost()
	if c >= multifrontalMinFlam/3 {
		c *= 3
	}
	return rcm.flam > c
}

func tooLarge(maxEntries int64) error {
	return fmt.Errorf("%w: more than %d entries in the factor under every ordering tried", ErrTooLarge, maxEntries)
}

// analyzeAuto is AnalyzeLDL with OrderAuto on two goroutines: AMD's
// analysis and RCM's at once (StartLDLAnalysis, then Wait). It keeps the
// analysis the serial loop keeps.
func analyzeAuto(ctx context.Context, a *CSR, maxEntries int64) (*LDLAnalysis, error) {
	p, err := StartLDLAnalysis(ctx, a, maxEntries)
	if err != nil {
		return nil, err
	}
	return p.Wait()
}

// PendingLDL is an analysis with OrderAuto under way (StartLDLAnalysis):
// AMD's ordering and symbolic factorization run on a goroutine of their
// own, RCM's on the goroutine that calls Wait. A caller with work of its
// own starts the analysis, does that work on its core while AMD's runs on
// another, and lends its goroutine to RCM's only once it needs the
// result: two analyses at once, never beside the caller's work. Wait
// keeps the analysis AnalyzeLDLWithin keeps.
type PendingLDL struct {
	a          *CSR
	maxEntries int64
	rcmCtx     context.Context // cancelled once AMD's factor proves multifrontal
	cancelRCM  context.CancelFunc
	amdDone    chan struct{} // closed when AMD's analysis has ended
	amdStop    *stopper
	amd        *LDLAnalysis
	waited     bool
	an         *LDLAnalysis // Wait's result
	err        error
}

// StartLDLAnalysis starts the analysis of a with OrderAuto within
// maxEntries (as AnalyzeLDLWithin) and returns before it is done: AMD's
// half runs on a new goroutine (which inherits the caller's profile
// labels) and checks ctx as it goes. The caller must call Wait, even when
// it no longer wants the result (cancel ctx first: Wait then returns
// within ~10⁵ entry visits). It returns an error wrapping ErrInvalid when
// a is not square.
func StartLDLAnalysis(ctx context.Context, a *CSR, maxEntries int64) (*PendingLDL, error) {
	if a.r != a.c {
		return nil, fmt.Errorf("%w: LDLᵀ of a %d×%d matrix", ErrInvalid, a.r, a.c)
	}
	rcmCtx, cancel := context.WithCancel(ctx)
	p := &PendingLDL{a: a, maxEntries: maxEntries, rcmCtx: rcmCtx, cancelRCM: cancel,
		amdDone: make(chan struct{}), amdStop: &stopper{ctx: ctx, limit: maxEntries}}
	go func() {
		defer close(p.amdDone)
		p.amd = analyzeWith(p.amdStop, a, OrderAMD)
		if p.amdFronts() {
			cancel() // RCM's envelope is factored row by row: slower
		}
	}()
	return p, nil
}

// amdFronts reports whether AMD's analysis ended and its factor works on
// fronts (RCM's is then not wanted).
func (p *PendingLDL) amdFronts() bool {
	return p.amdStop.err == nil && p.amd != nil && p.amd.usesFronts()
}

// Wait runs RCM's analysis on the calling goroutine (unless AMD's has
// already proved it unwanted), waits for AMD's and returns the analysis
// kept, or the error: ctx's, or one wrapping ErrTooLarge when both
// orderings passed maxEntries. Later calls return the same. One goroutine
// calls it.
func (p *PendingLDL) Wait() (*LDLAnalysis, error) {
	if p.waited {
		return p.an, p.err
	}
	p.waited = true
	defer p.cancelRCM()
	rstop := &stopper{ctx: p.rcmCtx, limit: p.maxEntries}
	var rcmAn *LDLAnalysis
	if p.rcmCtx.Err() == nil {
		rcmAn = analyzeWith(rstop, p.a, OrderRCM)
	}
	<-p.amdDone
	p.a = nil // the matrix may go now
	p.an, p.err = p.keep(rcmAn, rstop)
	return p.an, p.err
}

// keep chooses between AMD's analysis and RCM's (rcmAn, under rstop) as
// the serial loop does (keepCheapest).
func (p *PendingLDL) keep(rcmAn *LDLAnalysis, rstop *stopper) (*LDLAnalysis, error) {
	if p.amdStop.err != nil {
		return nil, p.amdStop.err
	}
	if p.amdFronts() {
		return keepCheapest(p.amd, nil, p.maxEntries) // RCM's unwanted
	}
	if err := p.rcmCtx.Err(); rcmAn == nil && err != nil && rstop.err == nil {
		rstop.err = err // cancelled before it began
	}
	if rstop.err != nil {
		return nil, rstop.err
	}
	return keepCheapest(p.amd, rcmAn, p.maxEntries)
}

// analyzeWith orders a by o and analyses it (a partial analysis once stop
// says so).
func analyzeWith(stop *stopper, a *CSR, o Ordering) *LDLAnalysis {
	var perm, inv []int32
	switch o {
	case OrderRCM:
		perm, inv = rcm(stop, a)
	case OrderND:
		perm, inv = nestedDissection(stop, a)
	case OrderAMD:
		perm, inv = approximateMinimumDegree(stop, a)
	default:
		perm, inv = make([]int32, a.r), make([]int32, a.r)
		for i := range perm {
			perm[i], inv[i] = int32(i), int32(i)
		}
	}
	if stop.err != nil || stop.over {
		return nil
	}
	stop.fill = 0 // the ordering's own count (AMD's) is done
	s, post := symbolicLDL(stop, a, perm, inv)
	if stop.err != nil || stop.over {
		return nil
	}
	s.postorder(post)
	s.ordering = o
	_, s.frontWork = s.partition()
	return s
}

// cheaper reports whether s's factorization is predicted to take less
// time than t's (fewer entries on a tie).
func (s *LDLAnalysis) cheaper(t *LDLAnalysis) bool {
	return s.factorCost() < t.factorCost() || s.factorCost() == t.factorCost() && s.NNZ() < t.NNZ()
}

// symbolicLDL computes the elimination tree and the column counts of the
// factor of P·A·Pᵀ in time about proportional to the entries of A, not of
// the factor: the tree by Liu's algorithm with path compression ("A
// compact row storage scheme for Cholesky factors using elimination
// trees", ACM TOMS 12(2), 1986), the counts from the leaves of the row
// subtrees in a postorder of the tree (Gilbert, Ng & Peyton, "An
// efficient algorithm to compute row and column counts for sparse
// Cholesky factorization", SIAM J. Matrix Anal. Appl. 15(4), 1994; as in
// Davis, "Direct Methods for Sparse Linear Systems", SIAM 2006, §4.5).
// It returns the analysis and the postorder it used (for postorder); a
// partial analysis and no postorder once the context is done, and the
// whole count with stop.over set when the entries pass stop's limit.
func symbolicLDL(stop *stopper, a *CSR, perm, inv []int32) (*LDLAnalysis, []int32) {
	n := a.r
	s := &LDLAnalysis{n: n, perm: perm, inv: inv, parent: make([]int32, n), colStart: make([]int, n+1)}
	parent := s.parent
	// The elimination tree: column k's entries above the diagonal (row
	// v = perm[k] of the symmetric a) climb to their subtrees' roots,
	// which k adopts.
	anc := make([]int32, n)
	for k := range n {
		parent[k], anc[k] = -1, -1
		v := perm[k]
		for _, w := range a.ind[a.indptr[v]:a.indptr[v+1]] {
			for i := inv[w]; i != -1 && i < int32(k); {
				next := anc[i]
				anc[i] = int32(k)
				if next == -1 {
					parent[i] = int32(k)
				}
				i = next
			}
		}
		if stop.tick(a.indptr[v+1] - a.indptr[v] + 1) {
			return s, nil
		}
	}
	post := etreePostorder(parent)
	// first[j]: the postorder number of j's first descendant; a leaf of
	// the tree counts its own column once (delta).
	first, delta := make([]int32, n), make([]int32, n)
	for j := range first {
		first[j] = -1
	}
	for k, j := range post {
		if first[j] == -1 {
			delta[j] = 1
		}
		for ; j != -1 && first[j] == -1; j = parent[j] {
			first[j] = int32(k)
		}
	}
	// Each entry (i, j), i > j, with j a leaf of row i's subtree adds
	// one to column j and takes one off at the least common ancestor of j
	// and the previous leaf (the subtrees' sums then count each row once).
	maxFirst, prevLeaf := anc, make([]int32, n) // anc reused
	setAnc := make([]int32, n)
	for i := range n {
		maxFirst[i], prevLeaf[i], setAnc[i] = -1, -1, int32(i)
	}
	for _, j := range post {
		if p := parent[j]; p != -1 {
			delta[p]--
		}
		v := perm[j]
		for _, w := range a.ind[a.indptr[v]:a.indptr[v+1]] {
			i := inv[w]
			if i <= j || first[j] <= maxFirst[i] {
				continue // j is not a leaf of row i's subtree
			}
			maxFirst[i] = first[j]
			prev := prevLeaf[i]
			prevLeaf[i] = j
			delta[j]++
			if prev == -1 {
				continue // j is the subtree's first leaf
			}
			q := prev
			for q != setAnc[q] {
				q = setAnc[q]
			}
			for t := prev; t != q; {
				t, setAnc[t] = setAnc[t], q
			}
			delta[q]--
		}
		if p := parent[j]; p != -1 {
			setAnc[j] = p
		}
		if stop.tick(a.indptr[v+1] - a.indptr[v] + 1) {
			return s, nil
		}
	}
	// Column counts (the diagonal included) are the subtrees' sums of
	// delta; parent[j] > j, so one pass in column order adds them up.
	for j := range n {
		if p := parent[j]; p != -1 {
			delta[p] += delta[j]
		}
	}
	flam := int64(0)
	for j := range n {
		c := int(delta[j]) - 1
		s.colStart[j+1] = s.colStart[j] + c
		flam += columnFlam(c)
	}
	s.flam = float64(flam)
	stop.grow(s.colStart[n]) // over the limit: the caller drops s
	return s, post
}

// etreePostorder returns a postorder of the forest parent (children in
// increasing order, each subtree's nodes before its root), new → old.
func etreePostorder(parent []int32) []int32 {
	n := len(parent)
	head := make([]int32, n) // first child, −1 none
	next := make([]int32, n) // next sibling
	for i := range head {
		head[i] = -1
	}
	for j := n - 1; j >= 0; j-- { // children linked in increasing order
		if p := parent[j]; p >= 0 {
			next[j], head[p] = head[p], int32(j)
		}
	}
	post := make([]int32, 0, n)
	stack := make([]int32, 0, 64)
	for r := range n {
		if parent[r] >= 0 {
			continue
		}
		stack = append(stack[:0], int32(r))
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			if c := head[j]; c >= 0 {
				head[j] = next[c] // the next child the next time round
				stack = append(stack, c)
				continue
			}
			stack = stack[:len(stack)-1]
			post = append(post, j)
		}
	}
	return post
}

// columnFlam is the flam of column j of the factor, with c entries below
// the diagonal: its pivot and the updates it makes.
func columnFlam(c int) int64 { return int64(c)*int64(c+3)/2 + 1 }

// postorder renumbers the columns in post, symbolicLDL's postorder of
// the elimination tree (children in increasing order, each subtree's columns contiguous and
// before its root's). The factor has the same entries and flam — an
// equivalent reordering (Liu, "The role of elimination trees in sparse
// factorization", 1990) — but every subtree, and every supernode's run of
// columns, now lies in one stretch of the factor's memory: the solves on
// all cores stream their subtrees' columns instead of jumping through the
// whole factor.
func (s *LDLAnalysis) postorder(post []int32) {
	n := s.n
	where := make([]int32, n) // old column → new
	for k, j := range post {
		where[j] = int32(k)
	}
	perm := make([]int32, n)
	parent := make([]int32, n)
	colStart := make([]int, n+1)
	for k, j := range post {
		perm[k] = s.perm[j]
		s.inv[perm[k]] = int32(k)
		parent[k] = -1
		if p := s.parent[j]; p >= 0 {
			parent[k] = where[p]
		}
		colStart[k+1] = colStart[k] + s.colStart[j+1] - s.colStart[j]
	}
	s.perm, s.parent, s.colStart = perm, parent, colStart
}

// N returns the order of the matrix.
func (s *LDLAnalysis) N() int { return s.n }

// NNZ returns the number of entries of L below the diagonal (the fill
// included): a factorization stores 12 bytes for each and 8 for each of
// the N pivots.
func (s *LDLAnalysis) NNZ() int { return s.colStart[s.n] }

// Flam returns the predicted cost of a numerical factorization,
// Σⱼ cⱼ(cⱼ + 3)/2 + 1 flam for the column counts cⱼ (one solve costs
// 2·NNZ + N).
func (s *LDLAnalysis) Flam() float64 { return s.flam }

// Perm returns the fill-reducing permutation: row k of the factored
// P·A·Pᵀ is row Perm()[k] of A (a copy).
func (s *LDLAnalysis) Perm() []int {
	p := make([]int, s.n)
	for k, v := range s.perm {
		p[k] = int(v)
	}
	return p
}

// Ordering returns the ordering used.
func (s *LDLAnalysis) Ordering() Ordering { return s.ordering }

// TriedFill returns the predicted NNZ of every ordering whose analysis
// AnalyzeLDL finished.
func (s *LDLAnalysis) TriedFill() map[Ordering]int {
	out := make(map[Ordering]int, len(s.tried))
	for k, v := range s.tried {
		out[k] = v
	}
	return out
}

// LDL is the factorization P·(A − σ·I)·Pᵀ = L·D·Lᵀ, L unit lower
// triangular with the pattern of its LDLAnalysis, D diagonal, computed
// without pivoting. By Sylvester's law of inertia the signs of D are those
// of the eigenvalues of A − σ·I: Inertia counts the eigenvalues of A below,
// at and above σ (spectrum slicing; Parlett, "The Symmetric Eigenvalue
// Problem", SIAM 1998, §3.3). Without pivoting the factorization of an
// indefinite matrix is exact for a nearby matrix only while the entries of
// L stay moderate; Growth reports max|lᵢⱼ|·√(|dⱼ|/‖A−σI‖) for the caller to
// judge (it is at most 1 for a positive definite matrix).
type LDL struct {
	s      *LDLAnalysis
	sigma  float64
	rowIdx []int32   // row of each entry of L, by column
	val    []float64 // entries of L, by column
	d      []float64 // pivots
	growth float64
	// peakUpdate is the most update-matrix entries a multifrontal
	// factorization held at once.
	peakUpdate atomic.Int64
}

// Factor computes the LDLᵀ factorization of a − sigma·I, a the matrix
// analysed (its values are read now; the pattern must be the analysed
// one). It returns an error wrapping ErrSingular at a zero or non-finite
// pivot, one wrapping ErrInvalid when a holds NaN or Inf or does not
// match the analysis; ctx is checked every million flam (about one
// milliseconds) between columns.
func (s *LDLAnalysis) Factor(ctx context.Context, a *CSR, sigma float64) (*LDL, error) {
	n := s.n
	if a.r != n || a.c != n {
		return nil, fmt.Errorf("%w: LDLᵀ analysed for order %d, matrix is %d×%d", ErrInvalid, n, a.r, a.c)
	}
	if err := a.checkFinite("LDLᵀ"); err != nil {
		return nil, err
	}
	if math.IsNaN(sigma) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("%w: LDLᵀ shift σ = %v", ErrInvalid, sigma)
	}
	f := &LDL{s: s, sigma: sigma, val: make([]float64, s.NNZ()), d: make([]float64, n)}
	maxL := make([]float64, n) // max |l_ij| of column j
	if s.usesFronts() && !upLookingOnly {
		norm, err := s.factorMultifrontal(ctx, a, f, maxL)
		if err != nil {
			return nil, err
		}
		f.setGrowth(maxL, norm)
		return f, nil
	}
	f.rowIdx = make([]int32, s.NNZ())
	cols := make([]ldlColumn, n)
	for j := range cols {
		cols[j] = ldlColumn{start: s.colStart[j], next: s.colStart[j], end: s.colStart[j+1]}
	}
	var norm float64 // ‖A − σI‖∞
	var err error
	if cut := s.rowCut(); cut != nil {
		norm, err = s.factorRowsParallel(ctx, cut, a, f, sigma, cols)
	} else {
		u := s.newUpLooking(a, f, sigma, cols)
		for k := 0; k < n && err == nil; k++ {
			err = u.rowChecked(ctx, k)
		}
		norm = u.norm
	}
	if err != nil {
		return nil, err
	}
	for j := range cols {
		maxL[j] = cols[j].maxL
	}
	f.setGrowth(maxL, norm)
	return f, nil
}

// ldlColumn is what the row-by-row factorization reads and writes of
// column j each time a row reaches it, in one place (40 bytes: one or two
// cache lines, where five arrays cost five): where its entries start, the
// next one goes and they end, its pivot and its largest |l_ij| so far.
type ldlColumn struct {
	start, next, end int
	d, maxL          float64
}

// upLooking is one goroutine's state in the row-by-row (up-looking)
// factorization: row k of L is found by a sparse triangular solve with
// the rows above it, along k's row subtree of the elimination tree
// (Davis, "Direct Methods for Sparse Linear Systems", SIAM 2006, §4.8).
// cols is shared; a row writes only into columns of its own row subtree.
type upLooking struct {
	s       *LDLAnalysis
	a       *CSR
	f       *LDL
	sigma   float64
	cols    []ldlColumn // shared
	y       []float64
	flag    []int32
	pattern []int32
	norm    float64 // of the rows this state computed
	work    int     // flam since ctx was last checked
	// lo is the smallest column the rows may touch: their subtree's first
	// (a subtree's columns are contiguous in the analysis's postorder),
	// 0 when every row is computed here. A row of a matrix without the
	// analysed pattern that reaches below it fails before it writes.
	lo int32
}

func (s *LDLAnalysis) newUpLooking(a *CSR, f *LDL, sigma float64, cols []ldlColumn) *upLooking {
	n := s.n
	u := &upLooking{s: s, a: a, f: f, sigma: sigma, cols: cols,
		y: make([]float64, n), flag: make([]int32, n), pattern: make([]int32, n), work: 5e6}
	for i := range u.flag {
		u.flag[i] = -1
	}
	return u
}

// rowChecked is row, with ctx checked every million flam (before the
// first row too).
func (u *upLooking) rowChecked(ctx context.Context, k int) error {
	if u.work > 1_000_000 {
		u.work = 0
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("sparse: LDLᵀ: %w", err)
		}
	}
	return u.row(k)
}

// row computes row k of L and the pivot d_k.
func (u *upLooking) row(k int) error {
	s, a, f := u.s, u.a, u.f
	n := s.n
	y, flag, pattern := u.y, u.flag, u.pattern
	top := n
	flag[k] = int32(k)
	v := s.perm[k]
	rowSum, diag := 0.0, -u.sigma
	for p := a.indptr[v]; p < a.indptr[v+1]; p++ {
		i := s.inv[a.ind[p]]
		x := a.data[p]
		if i == int32(k) {
			diag += x
			continue
		}
		rowSum += math.Abs(x)
		if i > int32(k) {
			continue
		}
		y[i] += x
		ln := 0
		for ; i < u.lo || flag[i] != int32(k); i = s.parent[i] {
			if i < u.lo || i > int32(k) {
				return errPattern
			}
			pattern[ln] = i
			ln++
			flag[i] = int32(k)
		}
		for ln > 0 {
			top--
			ln--
			pattern[top] = pattern[ln]
		}
	}
	u.norm = max(u.norm, rowSum+math.Abs(diag))
	dk := diag
	cols := u.cols
	for ; top < n; top++ {
		i := pattern[top]
		yi := y[i]
		y[i] = 0
		c := &cols[i]
		p1 := c.next
		rows, vals := f.rowIdx[c.start:p1], f.val[c.start:p1]
		vals = vals[:len(rows)] // (no bounds check below)
		for t, r := range rows {
			y[r] -= vals[t] * yi
		}
		u.work += len(rows)
		l := yi / c.d
		dk -= l * yi
		if p1 >= c.end {
			return errPattern
		}
		f.rowIdx[p1], f.val[p1] = int32(k), l
		c.next++
		if a := math.Abs(l); a > c.maxL { // not max: l is finite or dk is not
			c.maxL = a
		}
	}
	if dk == 0 || math.IsNaN(dk) || math.IsInf(dk, 0) {
		return fmt.Errorf("%w: pivot %d of %d is %g (σ = %g)", ErrSingular, k, n, dk, u.sigma)
	}
	f.d[k] = dk
	cols[k].d = dk
	return nil
}

// rowCutMinFlam is the factor size (flam) from which the row-by-row
// factorization runs disjoint subtrees on several goroutines; below it a
// factorization takes about a millisecond.
const rowCutMinFlam = 1e6

// rowCut returns the cut of the elimination tree that the row-by-row
// factorization runs on all cores (nil: the factor is too small, one
// core, or fewer than two subtrees), computed once per analysis: no subtree holds more than 1/P of
// the flam, P = GOMAXPROCS, and the rows above them are computed alone.
// Measured on the Laplacian of a 10,000-point swiss roll's kNN graph
// (6e6 flam, two cores): 1/2 13.0–14.9 ms serial → 7.3–7.5 ms, 1/4
// 7.7–8.7, 1/8 9.3–10.3, 1/32 9.2–10.2. Whatever the cut, every entry
// is computed as the serial algorithm computes it.
func (s *LDLAnalysis) rowCut() *treeCut {
	if s.flam < rowCutMinFlam || runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	s.rowCutOnce.Do(func() {
		work := make([]int64, s.n)
		for j := range s.n {
			work[j] = columnFlam(s.colStart[j+1] - s.colStart[j])
		}
		if cut := cutTree(s.parent, work, runtime.GOMAXPROCS(0)); len(cut.root) >= 2 {
			s.rowCutVal = cut // else nothing to share
		}
	})
	return s.rowCutVal
}

// factorRowsParallel computes the rows of the cut's subtrees on all cores
// (each subtree on one goroutine, its rows in increasing order: a row
// reads and writes only columns of its own subtree) and then the rows of
// the top part in increasing order on one. Every entry is computed in the
// order of the serial algorithm, so the factor is the same bit for bit.
// Of several singular pivots it names the first of the subtree that fails
// earliest, or the first of the top part.
func (s *LDLAnalysis) factorRowsParallel(ctx context.Context, cut *treeCut, a *CSR, f *LDL, sigma float64, cols []ldlColumn) (float64, error) {
	m := len(cut.root)
	errs := make([]error, m)
	errRow := make([]int, m)
	workers := min(runtime.GOMAXPROCS(0), m)
	states := make([]*upLooking, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		states[w] = s.newUpLooking(a, f, sigma, cols)
		wg.Add(1)
		go func(u *upLooking) {
			defer wg.Done()
			for {
				t := int(next.Add(1) - 1)
				if t >= m {
					return
				}
				t = int(cut.order[t])
				cols := cut.cols[cut.colStart[t]:cut.colStart[t+1]]
				u.lo = cols[0]
				for _, k := range cols {
					if err := u.rowChecked(ctx, int(k)); err != nil {
						errs[t], errRow[t] = err, int(k)
						break
					}
				}
			}
		}(states[w])
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("sparse: LDLᵀ: %w", err)
	}
	var first error
	firstRow := s.n
	for t, err := range errs {
		if err != nil && errRow[t] < firstRow {
			first, firstRow = err, errRow[t]
		}
	}
	if first != nil {
		return 0, first
	}
	u := states[0]
	u.lo = 0
	for _, k := range cut.top {
		if err := u.rowChecked(ctx, int(k)); err != nil {
			return 0, err
		}
	}
	norm := 0.0
	for _, st := range states {
		norm = max(norm, st.norm)
	}
	return norm, nil
}

// FactorBytes returns the memory one Factor holds at its peak: the
// factor's values and indices and the pivots, and for a multifrontal
// factorization the fronts and update matrices its goroutines hold (the
// supernodes' pattern of L, kept by the analysis from the first Factor on,
// serves as the indices of every factor). With W goroutines it counts W
// fronts of the largest size and W times the update matrices alive at
// once in a postorder: the goroutines follow the tree depth first, each
// on its own subtree (measured: TestFactorBytesBoundsTheFronts), three
// times over — their storage is rounded up to a power of two, and as much
// again of freed storage is kept for reuse (updateStore).
func (s *LDLAnalysis) FactorBytes() int64 {
	b := 12*int64(s.NNZ()) + 8*int64(s.n)
	if s.usesFronts() && !upLookingOnly {
		sn, _ := s.partition()
		w := int64(frontWorkers(len(sn.start) - 1))
		b += w * (8*int64(sn.maxFront)*int64(sn.maxFront) + 3*8*int64(sn.peakUpdate) + 4*int64(s.n))
	}
	return b
}

// Multifrontal reports whether Factor works on dense fronts, supernode by
// supernode (for large factors with wide supernodes), rather than row by
// row.
func (s *LDLAnalysis) Multifrontal() bool { return s.usesFronts() && !upLookingOnly }

// usesFronts reports whether Factor works on dense fronts.
func (s *LDLAnalysis) usesFronts() bool {
	return s.flam >= multifrontalMinFlam && s.frontWork <= multifrontalMaxFrontWork*s.flam
}

// factorCost predicts the time of Factor in flam of the row-by-row
// algorithm: on dense fronts a flam costs about a third (measured: 2.6–3.4
// GFLAM/s on fronts against 0.6–1.1 row by row, pure Go on two cores).
func (s *LDLAnalysis) factorCost() float64 {
	if s.usesFronts() {
		return s.flam / 3
	}
	return s.flam
}

// serialSolves makes the solves run column by column on one goroutine
// whatever the factor's size (for the tests that compare the two).
var serialSolves = false

// upLookingOnly makes Factor use the row-by-row algorithm whatever the
// cost (for the tests and benchmarks that compare the two).
var upLookingOnly = false

// setGrowth sets the growth factor from the columns' largest entries and
// ‖A − σI‖∞.
func (f *LDL) setGrowth(maxL []float64, norm float64) {
	if norm > 0 {
		for j, m := range maxL {
			f.growth = max(f.growth, m*math.Sqrt(math.Abs(f.d[j])/norm))
		}
	}
}

// N returns the order of the factored matrix.
func (f *LDL) N() int { return f.s.n }

// Sigma returns the shift σ of the factored A − σ·I.
func (f *LDL) Sigma() float64 { return f.sigma }

// Analysis returns the symbolic factorization used.
func (f *LDL) Analysis() *LDLAnalysis { return f.s }

// Inertia returns the numbers of negative, zero and positive pivots: by
// Sylvester's law, the numbers of eigenvalues of A below, equal to and above
// σ (zero is always 0: Factor refuses a zero pivot).
func (f *LDL) Inertia() (neg, zero, pos int) {
	for _, d := range f.d {
		switch {
		case d < 0:
			neg++
		case d > 0:
			pos++
		default:
			zero++
		}
	}
	return neg, zero, pos
}

// Growth returns max over the columns of max|lᵢⱼ|·√(|dⱼ|/‖A − σI‖∞): at
// most 1 when A − σI is positive definite; a large value says that the
// factorization without pivoting was unstable, and its inertia may be that
// of a matrix farther from A − σI than rounding.
func (f *LDL) Growth() float64 { return f.growth }

// SolveTo sets dst = (A − σI)⁻¹·b. dst and b may be the same slice. It
// panics if their lengths are not N. It allocates one vector of length N
// (and, for a factor of 2¹⁷ entries or more, whose solves run the
// elimination tree's subtrees on all cores, a few of the length of the
// tree's top part); it is safe for concurrent use.
func (f *LDL) SolveTo(dst, b []float64) {
	n := f.s.n
	if len(dst) != n || len(b) != n {
		panic(fmt.Sprintf("sparse: LDL.SolveTo: order %d, dst has length %d, b has %d", n, len(dst), len(b)))
	}
	y := make([]float64, n)
	for k, v := range f.s.perm {
		y[k] = b[v]
	}
	f.solvePermuted(y)
	for k, v := range f.s.perm {
		dst[v] = y[k]
	}
}

// solvePermuted overwrites y with (L·D·Lᵀ)⁻¹·y in the factor's order.
func (f *LDL) solvePermuted(y []float64) {
	if p := f.s.plan(f.rowIdx); p != nil && !serialSolves {
		f.solvePlanned(p, y)
		return
	}
	n := f.s.n
	cs := f.s.colStart
	for j := 0; j < n; j++ {
		axpyBelow(y, f.rowIdx[cs[j]:cs[j+1]], f.val[cs[j]:cs[j+1]], y[j])
	}
	for j, d := range f.d {
		y[j] /= d
	}
	for j := n - 1; j >= 0; j-- {
		y[j] = dotBelow(y, f.rowIdx[cs[j]:cs[j+1]], f.val[cs[j]:cs[j+1]], y[j])
	}
}

// solve2 overwrites the n×2 row-major y with (L·D·Lᵀ)⁻¹·y in the
// factor's order: the two columns in one pass over L.
func (f *LDL) solve2(y []float64) {
	n := f.s.n
	cs := f.s.colStart
	for j := 0; j < n; j++ {
		y0, y1 := y[2*j], y[2*j+1]
		if y0 == 0 && y1 == 0 {
			continue
		}
		rows, vals := f.rowIdx[cs[j]:cs[j+1]], f.val[cs[j]:cs[j+1]]
		vals = vals[:len(rows)]
		for t, r := range rows {
			l := vals[t]
			yr := y[2*int(r) : 2*int(r)+2 : 2*int(r)+2]
			yr[0] -= l * y0
			yr[1] -= l * y1
		}
	}
	for j, d := range f.d {
		y[2*j] /= d
		y[2*j+1] /= d
	}
	for j := n - 1; j >= 0; j-- {
		rows, vals := f.rowIdx[cs[j]:cs[j+1]], f.val[cs[j]:cs[j+1]]
		vals = vals[:len(rows)]
		s0, s1 := y[2*j], y[2*j+1]
		for t, r := range rows {
			l := vals[t]
			yr := y[2*int(r) : 2*int(r)+2 : 2*int(r)+2]
			s0 -= l * yr[0]
			s1 -= l * yr[1]
		}
		y[2*j], y[2*j+1] = s0, s1
	}
}

// permuteRows copies the rows of g (n×b) into the row-major y in the
// factor's order (back: from y into g, in the matrix's), one assignment
// a value: a copy call a row cost a tenth of a two-column solve.
func (f *LDL) permuteRows(y []float64, g blas64.General, back bool) {
	b, st := g.Cols, g.Stride
	for k, v := range f.s.perm {
		yr, gr := y[k*b:(k+1)*b], g.Data[int(v)*st:int(v)*st+b]
		if back {
			yr, gr = gr, yr
		}
		if b == 2 {
			yr[0], yr[1] = gr[0], gr[1]
			continue
		}
		for c := range yr {
			yr[c] = gr[c]
		}
	}
}

// SolveBlockTo sets the n×b dst to (A − σI)⁻¹·X for the n×b X (row-major),
// one pass over the factor for all b columns. dst and x may be the same
// matrix. It panics on a shape mismatch.
func (f *LDL) SolveBlockTo(dst, x blas64.General) {
	n, b := f.s.n, x.Cols
	if x.Rows != n || dst.Rows != n || dst.Cols != b {
		panic(fmt.Sprintf("sparse: LDL.SolveBlockTo: order %d, dst is %d×%d, x is %d×%d", n, dst.Rows, dst.Cols, x.Rows, x.Cols))
	}
	if b == 1 {
		y := make([]float64, n)
		for k, v := range f.s.perm {
			y[k] = x.Data[int(v)*x.Stride]
		}
		f.solvePermuted(y)
		for k, v := range f.s.perm {
			dst.Data[int(v)*dst.Stride] = y[k]
		}
		return
	}
	y := make([]float64, n*b)
	f.permuteRows(y, x, false)
	cs := f.s.colStart
	if p := f.s.plan(f.rowIdx); p != nil && !serialSolves {
		f.solvePlannedBlock(p, y, b)
		f.permuteRows(y, dst, true)
		return
	}
	if b == 2 {
		f.solve2(y)
		f.permuteRows(y, dst, true)
		return
	}
	for j := 0; j < n; j++ {
		yj := y[j*b : (j+1)*b]
		rows, vals := f.rowIdx[cs[j]:cs[j+1]], f.val[cs[j]:cs[j+1]]
		for t, r := range rows {
			l := vals[t]
			yr := y[int(r)*b : int(r)*b+b]
			for c, v := range yj {
				yr[c] -= l * v
			}
		}
	}
	for j, d := range f.d {
		yj := y[j*b : (j+1)*b]
		for c := range yj {
			yj[c] /= d
		}
	}
	for j := n - 1; j >= 0; j-- {
		yj := y[j*b : (j+1)*b]
		rows, vals := f.rowIdx[cs[j]:cs[j+1]], f.val[cs[j]:cs[j+1]]
		for t, r := range rows {
			l := vals[t]
			yr := y[int(r)*b : int(r)*b+b]
			for c, v := range yr {
				yj[c] -= l * v
			}
		}
	}
	f.permuteRows(y, dst, true)
}
