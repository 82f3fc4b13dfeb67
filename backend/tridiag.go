package backend

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// Eigenpairs of a symmetric tridiagonal matrix by bisection and inverse
// iteration: the method of LAPACK's DSTEBZ and DSTEIN (Kahan's Sturm-count
// bisection; Wilkinson's inverse iteration with reorthogonalisation inside
// clusters), written for row-major Go. It is what the pure-Go Syevr and
// EigRangeCtx use after the reduction of sytrd.go: eigenvalue j costs O(n) per bisection step (about 60
// steps), its vector O(n) per inverse-iteration step (2 to 5 steps), plus
// O(c·n) reorthogonalisation for a cluster of c close eigenvalues.

const (
	eps      = 0x1p-53
	safmin   = 0x1p-1022
	maxInvIt = 5 // inverse iterations before giving up (DSTEIN's MAXITS)
)

// tridiag is T with diagonal d (len n) and off-diagonal e (len n-1). e is
// modified: negligible entries are set to zero, splitting T into blocks.
type tridiag struct {
	d, e   []float64
	e2     []float64 // e², 0 across splits
	blocks []int     // block boundaries: block b is [blocks[b], blocks[b+1])
	pivmin float64
	tnorm  float64         // max |λ| bound from Gershgorin
	ctx    context.Context // checked before each inverse iteration; nil: never
}

func newTridiag(d, e []float64) *tridiag {
	n := len(d)
	t := &tridiag{d: d, e: e, e2: make([]float64, max(0, n-1))}
	t.blocks = append(t.blocks, 0)
	maxe2 := 0.0
	for i := 0; i < n-1; i++ {
		e2 := e[i] * e[i]
		if e2 <= eps*eps*math.Abs(d[i]*d[i+1])+safmin {
			e[i] = 0
			t.blocks = append(t.blocks, i+1)
			continue
		}
		t.e2[i] = e2
		maxe2 = max(maxe2, e2)
	}
	t.blocks = append(t.blocks, n)
	t.pivmin = safmin * max(1, maxe2)
	for i := 0; i < n; i++ {
		r := 0.0
		if i > 0 {
			r += math.Abs(e[i-1])
		}
		if i < n-1 {
			r += math.Abs(e[i])
		}
		t.tnorm = max(t.tnorm, math.Abs(d[i])+r)
	}
	return t
}

// count returns the number of eigenvalues of block [b0, b1) less than x
// (Sturm count of the LDLᵀ pivots of T − xI).
func (t *tridiag) count(b0, b1 int, x float64) int {
	d, e2, pivmin := t.d[b0:b1], t.e2, t.pivmin
	q := d[0] - x
	if math.Abs(q) < pivmin {
		q = -pivmin
	}
	cnt := 0
	if q < 0 {
		cnt++
	}
	for i := 1; i < len(d); i++ {
		q = d[i] - x - e2[b0+i-1]/q
		if math.Abs(q) < pivmin {
			q = -pivmin
		}
		if q < 0 {
			cnt++
		}
	}
	return cnt
}

// gersh returns Gershgorin bounds of block [b0, b1), widened so the counts at
// the ends are 0 and b1-b0.
func (t *tridiag) gersh(b0, b1 int) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := b0; i < b1; i++ {
		r := 0.0
		if i > b0 {
			r += math.Abs(t.e[i-1])
		}
		if i < b1-1 {
			r += math.Abs(t.e[i])
		}
		lo = min(lo, t.d[i]-r)
		hi = max(hi, t.d[i]+r)
	}
	w := 2*eps*max(math.Abs(lo), math.Abs(hi)) + 2*t.pivmin
	return lo - w, hi + w
}

// bisect returns eigenvalue j (0-based, ascending) of block [b0, b1), to
// a few ulps of the block's own norm: a block split off at the rounding
// level of the whole (the null directions of a rank-1 covariance: entries
// of 1e-18 in a matrix of norm 0.1) holds eigenvalues that an absolute
// tolerance of ε·‖T‖ would not resolve, and inverse iteration at such a
// shift finds no vector (it did not converge in 5 steps). A 1×1 block's
// eigenvalue is its diagonal entry, exactly.
func (t *tridiag) bisect(b0, b1, j int, lo, hi float64) float64 {
	if b1-b0 == 1 {
		return t.d[b0]
	}
	atol := eps * max(t.blockNorm1(b0, b1), safmin)
	for {
		mid := 0.5 * (lo + hi)
		if hi-lo <= max(atol, 2*eps*max(math.Abs(lo), math.Abs(hi))) || mid == lo || mid == hi {
			return mid
		}
		if t.count(b0, b1, mid) <= j {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// globalCount is the Sturm count of all of T.
func (t *tridiag) globalCount(x float64) int {
	c := 0
	for b := 0; b+1 < len(t.blocks); b++ {
		c += t.count(t.blocks[b], t.blocks[b+1], x)
	}
	return c
}

// selected is one eigenvalue chosen for output, with the block it lives in.
type selected struct {
	val    float64
	b0, b1 int
}

// selectRange returns eigenvalues lo..hi-1 of T (ascending) with their blocks.
func (t *tridiag) selectRange(lo, hi int) []selected {
	n := len(t.d)
	glo, ghi := t.gersh(0, n)
	// Global eigenvalues #lo and #hi-1, widened by the bisection tolerance,
	// bound the candidates of every block. Candidates below vlo number base;
	// sorted, candidate i is global eigenvalue base+i (ties across blocks are
	// ordered by block, which is as good as any order).
	tol := 4 * max(eps*max(t.tnorm, safmin), t.pivmin)
	vlo := t.bisectGlobal(lo, glo, ghi) - tol
	vhi := t.bisectGlobal(hi-1, glo, ghi) + tol
	var cand []selected
	var local []int // index of the candidate within its block
	base := 0
	for b := 0; b+1 < len(t.blocks); b++ {
		b0, b1 := t.blocks[b], t.blocks[b+1]
		clo, chi := t.count(b0, b1, vlo), t.count(b0, b1, vhi)
		base += clo
		for j := clo; j < chi; j++ {
			cand = append(cand, selected{b0: b0, b1: b1})
			local = append(local, j)
		}
	}
	ParallelFor(len(cand), 8, func(a, z int) {
		for i := a; i < z; i++ {
			c := &cand[i]
			blo, bhi := t.gersh(c.b0, c.b1)
			c.val = t.bisect(c.b0, c.b1, local[i], blo, bhi)
		}
	})
	slices.SortStableFunc(cand, func(x, y selected) int {
		switch {
		case x.val < y.val:
			return -1
		case x.val > y.val:
			return 1
		}
		return x.b0 - y.b0
	})
	return cand[lo-base : hi-base]
}

// bisectGlobal returns global eigenvalue j by bisection on the whole of T.
func (t *tridiag) bisectGlobal(j int, lo, hi float64) float64 {
	atol := eps * max(t.tnorm, safmin)
	for {
		mid := 0.5 * (lo + hi)
		if hi-lo <= max(atol, 2*eps*max(math.Abs(lo), math.Abs(hi))) || mid == lo || mid == hi {
			return mid
		}
		if t.globalCount(mid) <= j {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// vectors computes orthonormal eigenvectors for sel (ascending, as returned
// by selectRange) into the rows of zt (len(sel) × n, row-major, stride n).
// Groups of eigenvalues in one block closer than 1e-3·‖block‖ (DSTEIN's
// ORTOL) are a cluster, solved on one goroutine with reorthogonalisation;
// clusters run in parallel.
func (t *tridiag) vectors(sel []selected, zt []float64) error {
	n := len(t.d)
	clear(zt[:len(sel)*n])
	// Clusters: consecutive selections in the same block with small gaps.
	// sel is sorted by value, not by block, so group by block first.
	order := make([]int, len(sel))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if sel[a].b0 != sel[b].b0 {
			return sel[a].b0 - sel[b].b0
		}
		return 0
	})
	var clusters [][]int
	for i := 0; i < len(order); {
		s := sel[order[i]]
		onenrm := t.blockNorm1(s.b0, s.b1)
		j := i + 1
		for j < len(order) && sel[order[j]].b0 == s.b0 &&
			sel[order[j]].val-sel[order[j-1]].val <= 1e-3*onenrm {
			j++
		}
		clusters = append(clusters, order[i:j])
		i = j
	}
	errs := make([]error, len(clusters))
	ParallelFor(len(clusters), 1, func(a, z int) {
		ws := newInvItWork(n)
		for c := a; c < z; c++ {
			errs[c] = t.clusterVectors(sel, clusters[c], zt, ws)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *tridiag) blockNorm1(b0, b1 int) float64 {
	nrm := 0.0
	for i := b0; i < b1; i++ {
		r := math.Abs(t.d[i])
		if i > b0 {
			r += math.Abs(t.e[i-1])
		}
		if i < b1-1 {
			r += math.Abs(t.e[i])
		}
		nrm = max(nrm, r)
	}
	return nrm
}

// invItWork is the workspace of inverse iteration on one block.
type invItWork struct {
	u1, u2, u3, l, x []float64
	sd, se           []float64 // the block, scaled
	swap             []bool
}

func newInvItWork(n int) *invItWork {
	return &invItWork{
		u1: make([]float64, n), u2: make([]float64, n), u3: make([]float64, n),
		l: make([]float64, n), x: make([]float64, n), sd: make([]float64, n), se: make([]float64, n),
		swap: make([]bool, n),
	}
}

// clusterVectors runs inverse iteration for the eigenvalues sel[idx[i]] of
// one cluster (one block, ascending).
func (t *tridiag) clusterVectors(sel []selected, idx []int, zt []float64, ws *invItWork) error {
	n := len(t.d)
	b0, b1 := sel[idx[0]].b0, sel[idx[0]].b1
	m := b1 - b0
	if m == 1 {
		zt[idx[0]*n+b0] = 1
		return nil
	}
	// The block scaled by a power of two to a norm in [1/2, 1) (exact):
	// inverse iteration's tests, which DSTEIN takes from a matrix scaled
	// into a safe range, mix absolute quantities (ε, the growth bound
	// dtpcrt) with the block's norm — at a norm of 2⁻²⁷ a cluster of equal
	// eigenvalues found no vectors.
	onenrm := t.blockNorm1(b0, b1)
	_, ex := math.Frexp(onenrm)
	sc := math.Ldexp(1, -ex)
	d, e := ws.sd[:m], ws.se[:m-1]
	for i := range d {
		d[i] = t.d[b0+i] * sc
	}
	for i := range e {
		e[i] = t.e[b0+i] * sc
	}
	onenrm *= sc
	pertol := 10 * eps * onenrm
	dtpcrt := math.Sqrt(0.1 / float64(m))
	const extra = 2 // iterations after the norm criterion is first met (DSTEIN)
	rng := uint64(0x9E3779B97F4A7C15) ^ uint64(b0)<<20 ^ uint64(idx[0])
	prev := math.Inf(-1)
	for ci, s := range idx {
		if t.ctx != nil {
			if err := t.ctx.Err(); err != nil {
				return cancelled(err)
			}
		}
		lam := sel[s].val * sc
		if ci > 0 && lam-prev < pertol {
			lam = prev + pertol // separate coincident eigenvalues (DSTEIN)
		}
		prev = lam
		ws.factor(d, e, lam, eps*onenrm)
		x := ws.x[:m]
		for i := range x {
			rng = rng*6364136223846793005 + 1442695040888963407
			x[i] = float64(int64(rng>>11))/float64(1<<52) - 1
		}
		for its, nrmchk := 1, 0; ; its++ {
			if its > maxInvIt {
				return fmt.Errorf("%w: inverse iteration for eigenvalue %g did not converge in %d steps",
					ErrNotConverged, lam/sc, maxInvIt)
			}
			// Scale the right-hand side as DSTEIN does, then solve.
			scl := float64(m) * onenrm * max(eps, math.Abs(ws.u1[m-1])) / maxAbs(x)
			for i := range x {
				x[i] *= scl
			}
			huge := ws.solve(m)
			// Reorthogonalise against the cluster's earlier vectors.
			for _, p := range idx[:ci] {
				zp := zt[p*n+b0 : p*n+b1]
				dot := 0.0
				for i, v := range zp {
					dot += v * x[i]
				}
				for i, v := range zp {
					x[i] -= dot * v
				}
			}
			nrm := maxAbs(x)
			if nrm == 0 || math.IsInf(nrm, 0) || math.IsNaN(nrm) {
				return fmt.Errorf("%w: inverse iteration broke down at eigenvalue %g", ErrNotConverged, lam/sc)
			}
			if nrm < dtpcrt && !huge {
				continue
			}
			if nrmchk++; nrmchk < extra+1 {
				continue
			}
			break
		}
		// A second Gram–Schmidt pass ("twice is enough"): one pass leaves
		// vectors of tightly clustered eigenvalues orthogonal only to
		// about cond·ε.
		for _, p := range idx[:ci] {
			zp := zt[p*n+b0 : p*n+b1]
			dot := 0.0
			for i, v := range zp {
				dot += v * x[i]
			}
			for i, v := range zp {
				x[i] -= dot * v
			}
		}
		ss := 0.0
		for _, v := range x {
			ss += v * v
		}
		inv := 1 / math.Sqrt(ss)
		z := zt[s*n+b0 : s*n+b1]
		for i, v := range x {
			z[i] = v * inv
		}
	}
	return nil
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	return m
}

// factor computes the LU factorization with partial pivoting of the m×m
// tridiagonal T − λI (diagonal d, off-diagonal e), as LAPACK's DLAGTF:
// U has diagonals u1, u2, u3; L the multipliers l; swap[i] records a row
// interchange at step i. Pivots smaller than tiny are raised to tiny
// (DLAGTS with JOB = -1).
func (w *invItWork) factor(d, e []float64, lam, tiny float64) {
	m := len(d)
	p, q := d[0]-lam, 0.0
	if m > 1 {
		q = e[0]
	}
	for i := 0; i < m-1; i++ {
		c := e[i]         // row i+1, column i
		a := d[i+1] - lam // row i+1, column i+1
		b := 0.0          // row i+1, column i+2
		if i+1 < m-1 {
			b = e[i+1]
		}
		if math.Abs(p) >= math.Abs(c) {
			w.swap[i] = false
			w.u1[i], w.u2[i], w.u3[i] = p, q, 0
			mult := 0.0
			if p != 0 {
				mult = c / p
			}
			w.l[i] = mult
			p, q = a-mult*q, b
		} else {
			w.swap[i] = true
			w.u1[i], w.u2[i], w.u3[i] = c, a, b
			mult := p / c
			w.l[i] = mult
			p, q = q-mult*a, -mult*b
		}
	}
	w.u1[m-1] = p
	for i := 0; i < m; i++ {
		if math.Abs(w.u1[i]) < tiny {
			w.u1[i] = math.Copysign(tiny, w.u1[i])
		}
	}
}

// solve overwrites w.x[:m] with (T − λI)⁻¹·x using the factorization. If
// the solution grows past 2⁵⁰⁰ it is rescaled to avoid overflow and solve
// reports true: such growth means λ is an eigenvalue to working accuracy.
func (w *invItWork) solve(m int) (huge bool) {
	x := w.x[:m]
	for i := 0; i < m-1; i++ {
		if w.swap[i] {
			x[i], x[i+1] = x[i+1], x[i]
		}
		x[i+1] -= w.l[i] * x[i]
	}
	const big = 0x1p+500
	for i := m - 1; i >= 0; i-- {
		v := x[i]
		if i+1 < m {
			v -= w.u2[i] * x[i+1]
		}
		if i+2 < m {
			v -= w.u3[i] * x[i+2]
		}
		v /= w.u1[i]
		x[i] = v
		if math.Abs(v) > big {
			for j := range x {
				x[j] *= 0x1p-500
			}
			huge = true
		}
	}
	return huge
}
