package backend

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
)

// pureGo is the pure-Go backend. Its BLAS is gonum's Go BLAS, called
// directly (not through blas64's global, which the openblas build points at
// the C library). Its LAPACK routines are gonum's; note that gonum's LAPACK
// calls blas64's global BLAS, so under `-tags openblas` they run on the C
// BLAS.
type pureGo struct{}

var (
	goBLAS   gonumblas.Implementation
	goLAPACK gonumlapack.Implementation
)

func (pureGo) Name() string { return "purego" }

func (pureGo) Gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	m, n := c.Rows, c.Cols
	k := a.Cols
	if tA != blas.NoTrans {
		k = a.Rows
	}
	goBLAS.Dgemm(tA, tB, m, n, k, alpha, a.Data, max(1, a.Stride), b.Data, max(1, b.Stride), beta, c.Data, max(1, c.Stride))
}

func (pureGo) Syrk(t blas.Transpose, alpha float64, a blas64.General, beta float64, c blas64.Symmetric) {
	k := a.Cols
	if t != blas.NoTrans {
		k = a.Rows
	}
	goBLAS.Dsyrk(c.Uplo, t, c.N, k, alpha, a.Data, max(1, a.Stride), beta, c.Data, max(1, c.Stride))
}

func (pureGo) Symm(side blas.Side, alpha float64, a blas64.Symmetric, b blas64.General, beta float64, c blas64.General) {
	goBLAS.Dsymm(side, a.Uplo, c.Rows, c.Cols, alpha, a.Data, max(1, a.Stride), b.Data, max(1, b.Stride), beta, c.Data, max(1, c.Stride))
}

func (pureGo) Gemv(t blas.Transpose, alpha float64, a blas64.General, x blas64.Vector, beta float64, y blas64.Vector) {
	if a.Rows == 0 || a.Cols == 0 {
		scaleVec(beta, y)
		return
	}
	goBLAS.Dgemv(t, a.Rows, a.Cols, alpha, a.Data, max(1, a.Stride), x.Data, x.Inc, beta, y.Data, y.Inc)
}

// Symv: gonum's Dsymv runs on one core without SIMD; for unit strides and
// n ≥ symHalfMin the parallel kernels of FullSymOp (one triangle read once,
// parts summed in a fixed order, so results do not depend on GOMAXPROCS).
func (pureGo) Symv(alpha float64, a blas64.Symmetric, x blas64.Vector, beta float64, y blas64.Vector) {
	n := a.N
	if n >= symHalfMin && x.Inc == 1 && y.Inc == 1 {
		checkSym("Symv: A", a)
		checkVec("Symv: x", x, n)
		checkVec("Symv: y", y, n)
		ax := make([]float64, n)
		g := blas64.General{Rows: n, Cols: n, Stride: a.Stride, Data: a.Data}
		if a.Uplo == blas.Upper {
			symvUpper(ax, g, x.Data)
		} else {
			symvLower(ax, g, x.Data)
		}
		yd := y.Data[:n]
		for i, v := range ax {
			if beta == 0 {
				yd[i] = alpha * v
			} else {
				yd[i] = alpha*v + beta*yd[i]
			}
		}
		return
	}
	goBLAS.Dsymv(a.Uplo, a.N, alpha, a.Data, max(1, a.Stride), x.Data, x.Inc, beta, y.Data, y.Inc)
}

// Syevd: gonum has no divide and conquer; this is gonum's Dsyev (Householder
// tridiagonalisation, then implicit QL/QR with the rotations accumulated into
// the n×n Q): about 9n³ flops with vectors, poorly cached in row-major
// (57 s at n = 2000 on the 2-core reference machine). Methods that need a
// few eigenpairs call Syevr, which never pays for all of them.
func (pureGo) Syevd(a blas64.Symmetric, w []float64, vectors bool) error {
	n := a.N
	checkLen("Syevd: w", w, n)
	if n == 0 {
		return nil
	}
	if err := checkFiniteSym("Syevd: A", a); err != nil {
		return err
	}
	// The upper triangle always: gonum's Dsyev forms Q by Dorgql from an
	// upper reduction and by Dorgqr from a lower one, whose blocked code
	// (from 128 columns) uses gonum v0.17's defective forward Dlarft (see
	// Gesdd); Dorgql's backward Dlarft is correct.
	if a.Uplo == blas.Lower {
		mirrorLower(a.Data, n, a.Stride)
		a.Uplo = blas.Upper
	}
	// Scale by a power of two (exact) into a moderate range: gonum's Dsterf
	// mis-strides its own rescaling of tiny or huge tridiagonals.
	scale := pow2Scale(a)
	jobz := lapack.EVNone
	if vectors {
		jobz = lapack.EVCompute
	}
	work := []float64{0}
	goLAPACK.Dsyev(jobz, a.Uplo, n, a.Data, a.Stride, w, work, -1)
	work = make([]float64, int(work[0]))
	if !goLAPACK.Dsyev(jobz, a.Uplo, n, a.Data, a.Stride, w, work, len(work)) {
		return fmt.Errorf("%w: Dsyev (n=%d)", ErrNotConverged, n)
	}
	if scale != 1 {
		for i := range w[:n] {
			w[i] /= scale
		}
	}
	if vectors {
		FixSigns(blas64.General{Rows: n, Cols: n, Stride: a.Stride, Data: a.Data})
	}
	return nil
}

// tridiagRangeCtx computes eigenpairs lo..hi-1 of the tridiagonal (d, e) —
// the reduction of a matrix scaled by scale — into w (unscaled) and the
// rows of zt (k×n), checking ctx before each inverse iteration (a cluster
// of c close eigenvalues costs O(c²·n) in all). Both backends use it after
// their own reduction.
func tridiagRangeCtx(ctx context.Context, d, e []float64, lo, hi int, scale float64, w, zt []float64) error {
	t := newTridiag(d, e)
	t.ctx = ctx
	sel := t.selectRange(lo, hi)
	if err := t.vectors(sel, zt); err != nil {
		return err
	}
	for j, s := range sel {
		w[j] = s.val / scale
	}
	return nil
}

// Syevr: gonum has no DSYEVR. This is the cancellable solver's path
// (eigctx.go, sytrd.go) with a context never cancelled: the blocked
// reduction to tridiagonal form (2/3·n³ flam, half of it in Symv), the
// selected eigenvalues by Sturm-count bisection and their vectors by
// inverse iteration (tridiag.go: O(n) per step and eigenpair, in parallel),
// and Q applied in compact WY blocks (2·n²·k flam). Against gonum's Dsytrd
// and Dormqr, which it replaced (BenchmarkEigTopCtx's syevr cases, two runs
// each, 2-core reference machine): 3 pairs at n = 3000 21.5–22.6 s before,
// 7.4–8.3 s after; at n = 1500 0.91–0.94 s before, 0.98–1.18 s after; 100
// pairs at n = 2000 3.0–3.1 s both.
func (pureGo) Syevr(a blas64.Symmetric, lo, hi int, w []float64, z blas64.General) error {
	if checkRange(a.N, lo, hi, w, z) == 0 {
		return nil
	}
	return eigRangeReduced(context.Background(), PureGo, "Syevr: A", a, lo, hi, w, z)
}

// Sygvd: gonum has no DSYGVD. Reduction to standard form as DSYGST does it,
// with level-3 calls: B = L·Lᵀ (Potrf, n³/6 flam), C = L⁻¹·A·L⁻ᵀ (two
// triangular solves, n³ flam), all eigenpairs of C (Syevd), X = L⁻ᵀ·Y
// (n³/2 flam).
func (p pureGo) Sygvd(a, b blas64.Symmetric, w []float64) error {
	return sygvdByReduction(p, a, b, w)
}

// sygvdByReduction is Sygvd for any backend's Potrf, Trsm and Syevd.
func sygvdByReduction(impl Impl, a, b blas64.Symmetric, w []float64) error {
	n := a.N
	if b.N != n {
		panic(fmt.Sprintf("backend: Sygvd: A is %d×%d, B is %d×%d", n, n, b.N, b.N))
	}
	checkLen("Sygvd: w", w, n)
	if n == 0 {
		return nil
	}
	if err := checkFiniteSym("Sygvd: A", a); err != nil {
		return err
	}
	if err := checkFiniteSym("Sygvd: B", b); err != nil {
		return err
	}
	if err := impl.Potrf(b); err != nil {
		return fmt.Errorf("Sygvd: B: %w", err)
	}
	full := symToLower(a, 1)
	mirrorLower(full, n, a.Stride)
	c := blas64.General{Rows: n, Cols: n, Stride: a.Stride, Data: full}
	tri := blas64.Triangular{N: n, Stride: b.Stride, Data: b.Data, Uplo: b.Uplo, Diag: blas.NonUnit}
	// L is the lower factor; with an upper factor U = Lᵀ.
	tL, tLT := blas.NoTrans, blas.Trans
	if b.Uplo == blas.Upper {
		tL, tLT = blas.Trans, blas.NoTrans
	}
	blas64.Trsm(blas.Left, tL, 1, tri, c)   // L⁻¹·A
	blas64.Trsm(blas.Right, tLT, 1, tri, c) // ·L⁻ᵀ
	cs := blas64.Symmetric{N: n, Stride: a.Stride, Data: full, Uplo: blas.Lower}
	if err := impl.Syevd(cs, w, true); err != nil {
		return err
	}
	blas64.Trsm(blas.Left, tLT, 1, tri, c) // X = L⁻ᵀ·Y
	FixSigns(c)
	return nil
}

// Gesdd: gonum has no divide-and-conquer SVD; this is the path of gonum's
// Dgesvd without its QR step (Golub–Kahan bidiagonalisation by Dgebrd, the
// orthogonal factors by Dorgbr, implicit zero-shift QR by Dbdsqr): about
// 4mn² − 4n³/3 flam for the bidiagonalisation of an m×n A (m ≥ n; a wider
// A is transposed) plus the factors with thin vectors. It is composed here,
// not called as Dgesvd, because gonum v0.17's Dlarft (Forward) keeps
// LAPACK's 1-based "I > 1" as "i > 1" and forms a wrong block reflector
// whenever the second reflector of a block ends above the first and a
// later one reaches below it — as columns of sparse, structured data do.
// Dgesvd's QR step (Dgeqrf) and its factors (Dorgbr → Dorgqr, Dorglq) run
// blocked from 128 columns and gave reconstructions off by 0.16 on 400×200
// matrices of integers in column bands (backendtest's TestGesdd). Here
// Dgebrd (its panels by Dlabrd, no Dlarft) runs blocked, Q comes from
// orgqr (blocked, with larftForward's block reflectors) and Pᵀ from
// Dorgbr given the least workspace, which makes its Dorglq unblocked. A is scaled by a power of two into a
// moderate range first, as Dgesvd scales it.
func (pureGo) Gesdd(a blas64.General, s []float64, u, vt blas64.General) error {
	m, n := a.Rows, a.Cols
	k := min(m, n)
	vectors := checkSVD(a, s, u, vt)
	if k == 0 {
		return nil
	}
	if err := checkFinite("Gesdd: A", a.Data, m, n, a.Stride); err != nil {
		return err
	}
	if m >= n {
		return gesvdTall(a, s, u, vt, vectors)
	}
	// A wide A: Aᵀ = U′·Σ·V′ᵀ gives U = V′ and Vᵀ = U′ᵀ.
	at := blas64.General{Rows: n, Cols: m, Stride: m, Data: make([]float64, n*m)}
	transposeTo(at, a)
	var ut, vtt blas64.General
	if vectors {
		ut = blas64.General{Rows: n, Cols: m, Stride: m, Data: make([]float64, n*m)}
		vtt = blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	}
	if err := gesvdTall(at, s, ut, vtt, vectors); err != nil {
		return err
	}
	if vectors {
		transposeTo(u, vtt)
		transposeTo(vt, ut)
	}
	return nil
}

// transposeTo sets dst (c×r) to srcᵀ (src r×c).
func transposeTo(dst, src blas64.General) {
	for i := 0; i < src.Rows; i++ {
		for j, v := range src.Data[i*src.Stride : i*src.Stride+src.Cols] {
			dst.Data[j*dst.Stride+i] = v
		}
	}
}

// gesvdTall is Gesdd for m ≥ n: a is overwritten; u is m×n, vt n×n.
func gesvdTall(a blas64.General, s []float64, u, vt blas64.General, vectors bool) error {
	m, n := a.Rows, a.Cols
	scale := pow2ScaleGeneral(a)
	e, tauq, taup := make([]float64, max(1, n-1)), make([]float64, n), make([]float64, n)
	d := s[:n]
	work := []float64{0}
	goLAPACK.Dgebrd(m, n, a.Data, a.Stride, d, e, tauq, taup, work, -1)
	work = make([]float64, max(4*n, int(work[0])))
	goLAPACK.Dgebrd(m, n, a.Data, a.Stride, d, e, tauq, taup, work, len(work))
	if !vectors {
		if !goLAPACK.Dbdsqr(blas.Upper, n, 0, 0, 0, d, e[:max(0, n-1)], nil, 1, nil, 1, nil, 1, work[:4*n]) {
			return fmt.Errorf("%w: Dbdsqr (%d×%d)", ErrNotConverged, m, n)
		}
	} else {
		// Q (m×n) by orgqr (blocked, correct block reflectors); Pᵀ by
		// Dorgbr given the least workspace it takes (n), so that its
		// Dorglq runs unblocked. The rotations of Dbdsqr go to an n×n
		// identity, and U = Q·(that), as Dgesvd does after its QR step.
		q := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
		for i := 0; i < m; i++ {
			copy(q.Data[i*n:(i+1)*n], a.Data[i*a.Stride:i*a.Stride+n])
		}
		for i := 0; i < n; i++ {
			copy(vt.Data[i*vt.Stride:i*vt.Stride+n], a.Data[i*a.Stride:i*a.Stride+n])
		}
		orgqr(m, n, n, q.Data, q.Stride, tauq)
		goLAPACK.Dorgbr(lapack.GeneratePT, n, n, n, vt.Data, vt.Stride, taup, work, n)
		ub := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		for i := 0; i < n; i++ {
			ub.Data[i*n+i] = 1
		}
		if !goLAPACK.Dbdsqr(blas.Upper, n, n, n, 0, d, e[:max(0, n-1)], vt.Data, vt.Stride, ub.Data, n, nil, 1, work[:4*n]) {
			return fmt.Errorf("%w: Dbdsqr (%d×%d)", ErrNotConverged, m, n)
		}
		PureGo.Gemm(blas.NoTrans, blas.NoTrans, 1, q, ub, 0, blas64.General{Rows: m, Cols: n, Stride: u.Stride, Data: u.Data})
	}
	if scale != 1 {
		for i := range d {
			d[i] /= scale
		}
	}
	return nil
}

// pow2Factor is the power of two that brings a largest |entry| anrm into
// [2⁻¹, 1), or 1 when anrm is zero or already within [2⁻¹⁰⁰, 2¹⁰⁰].
func pow2Factor(anrm float64) float64 {
	if anrm == 0 || (anrm >= 0x1p-100 && anrm <= 0x1p+100) {
		return 1
	}
	_, e := math.Frexp(anrm)
	return math.Ldexp(1, -e)
}

// pow2ScaleGeneral scales a by a power of two (exact) when its largest
// |entry| lies outside [2⁻¹⁰⁰, 2¹⁰⁰], and returns the factor.
func pow2ScaleGeneral(a blas64.General) float64 {
	anrm := 0.0
	for i := 0; i < a.Rows; i++ {
		for _, v := range a.Data[i*a.Stride : i*a.Stride+a.Cols] {
			anrm = max(anrm, math.Abs(v))
		}
	}
	scale := pow2Factor(anrm)
	if scale == 1 {
		return 1
	}
	for i := 0; i < a.Rows; i++ {
		row := a.Data[i*a.Stride : i*a.Stride+a.Cols]
		for j := range row {
			row[j] *= scale
		}
	}
	return scale
}

func (pureGo) Potrf(a blas64.Symmetric) error {
	if a.N == 0 {
		return nil
	}
	if err := checkFiniteSym("Potrf: A", a); err != nil {
		return err
	}
	if !goLAPACK.Dpotrf(a.Uplo, a.N, a.Data, a.Stride) {
		return fmt.Errorf("%w (n=%d)", ErrNotPositiveDefinite, a.N)
	}
	return nil
}

func (pureGo) Potrs(f blas64.Symmetric, b blas64.General) {
	if f.N != b.Rows {
		panic(fmt.Sprintf("backend: Potrs: factor %d×%d, B has %d rows", f.N, f.N, b.Rows))
	}
	if f.N == 0 || b.Cols == 0 {
		return
	}
	goLAPACK.Dpotrs(f.Uplo, f.N, b.Cols, f.Data, f.Stride, b.Data, b.Stride)
}

// Geqrf gives gonum's Dgeqrf the least workspace (n), which makes it take
// its unblocked code (the same flam, level-2 updates): blocked, it forms
// block reflectors by gonum v0.17's Dlarft, wrong for reflectors whose
// ends step up and down (see Gesdd; backendtest's TestQR). Orgqr runs
// orgqr, blocked with correct block reflectors.
func (pureGo) Geqrf(a blas64.General, tau []float64) {
	m, n := a.Rows, a.Cols
	checkLen("Geqrf: tau", tau, min(m, n))
	if min(m, n) == 0 {
		return
	}
	goLAPACK.Dgeqrf(m, n, a.Data, a.Stride, tau, make([]float64, n), n)
}

func (pureGo) Orgqr(a blas64.General, tau []float64) {
	m, n := a.Rows, a.Cols
	if m < n {
		panic(fmt.Sprintf("backend: Orgqr: A is %d×%d, need rows ≥ cols", m, n))
	}
	k := len(tau)
	if k > n {
		panic(fmt.Sprintf("backend: Orgqr: %d reflectors for %d columns", k, n))
	}
	if n == 0 {
		return
	}
	orgqr(m, n, k, a.Data, a.Stride, tau)
}

// orgqr is LAPACK's DORGQR (blocked, from the last block of reflectors
// back to the first) with the block reflectors formed by larftForward,
// not gonum's Dlarft: Q = H₀·H₁·…·H_{k−1}, the first n columns, over the
// m×n row-major a that holds the reflectors below its diagonal. Each
// block's own columns come from gonum's unblocked Dorg2r.
func orgqr(m, n, k int, a []float64, lda int, tau []float64) {
	const nb = sytrdNB
	work := make([]float64, max(1, n))
	if k < 2*nb || n < 2*nb {
		goLAPACK.Dorg2r(m, n, k, a, lda, tau[:k], work)
		return
	}
	ki := (k - 1) / nb * nb // the start of the last block
	// The columns past the last block: zero above it, then unblocked.
	kk := min(k, ki+nb)
	for i := 0; i < kk; i++ {
		clear(a[i*lda+kk : i*lda+n])
	}
	if kk < n {
		goLAPACK.Dorg2r(m-kk, n-kk, k-kk, a[kk*lda+kk:], lda, tau[kk:k], work)
	}
	v := make([]float64, m*nb)
	t := make([]float64, nb*nb)
	tw := make([]float64, nb*n)
	w := make([]float64, nb*n)
	for i := ki; i >= 0; i -= nb {
		ib := min(nb, k-i)
		mr := m - i
		if i+ib < n {
			// H = I − V·T·Vᵀ of this block, applied from the left to
			// A(i:m, i+ib:n): C −= V·(T·(Vᵀ·C)).
			unitLowerBlock(v, a[i*lda+i:], lda, mr, ib)
			larftForward(mr, ib, v[:mr*ib], tau[i:i+ib], t)
			nc := n - i - ib
			vg := blas64.General{Rows: mr, Cols: ib, Stride: ib, Data: v[:mr*ib]}
			tg := blas64.General{Rows: ib, Cols: ib, Stride: ib, Data: t[:ib*ib]}
			cg := blas64.General{Rows: mr, Cols: nc, Stride: lda, Data: a[i*lda+i+ib:]}
			wg := blas64.General{Rows: ib, Cols: nc, Stride: nc, Data: w[:ib*nc]}
			twg := blas64.General{Rows: ib, Cols: nc, Stride: nc, Data: tw[:ib*nc]}
			PureGo.Gemm(blas.Trans, blas.NoTrans, 1, vg, cg, 0, wg)
			PureGo.Gemm(blas.NoTrans, blas.NoTrans, 1, tg, wg, 0, twg)
			PureGo.Gemm(blas.NoTrans, blas.NoTrans, -1, vg, twg, 1, cg)
		}
		goLAPACK.Dorg2r(mr, ib, ib, a[i*lda+i:], lda, tau[i:i+ib], work)
		for r := 0; r < i; r++ { // zero above the block's rows
			clear(a[r*lda+i : r*lda+i+ib])
		}
	}
}

// --- shared helpers -------------------------------------------------------

// scaleVec sets y = beta·y (y = 0 when beta is 0). BLAS implementations
// return early on empty matrices without it; our Gemv defines y = beta·y.
func scaleVec(beta float64, y blas64.Vector) {
	for i := 0; i < y.N; i++ {
		if beta == 0 {
			y.Data[i*y.Inc] = 0
		} else {
			y.Data[i*y.Inc] *= beta
		}
	}
}

// checkGeneral panics unless g can hold an r×c matrix.
func checkGeneral(what string, g blas64.General, r, c int) {
	if g.Rows != r || g.Cols != c {
		panic(fmt.Sprintf("backend: %s is %d×%d, need %d×%d", what, g.Rows, g.Cols, r, c))
	}
	if r > 0 && c > 0 && (g.Stride < c || len(g.Data) < (r-1)*g.Stride+c) {
		panic(fmt.Sprintf("backend: %s: stride %d / length %d cannot hold %d×%d", what, g.Stride, len(g.Data), r, c))
	}
}

func checkSym(what string, a blas64.Symmetric) {
	if a.N > 0 && (a.Stride < a.N || len(a.Data) < (a.N-1)*a.Stride+a.N) {
		panic(fmt.Sprintf("backend: %s: stride %d / length %d cannot hold %d×%d", what, a.Stride, len(a.Data), a.N, a.N))
	}
	if a.Uplo != blas.Upper && a.Uplo != blas.Lower {
		panic(fmt.Sprintf("backend: %s: bad uplo %v", what, a.Uplo))
	}
}

func checkVec(what string, v blas64.Vector, n int) {
	if v.N != n {
		panic(fmt.Sprintf("backend: %s has length %d, need %d", what, v.N, n))
	}
	if n > 0 && (v.Inc < 1 || len(v.Data) < (n-1)*v.Inc+1) {
		panic(fmt.Sprintf("backend: %s: increment %d / length %d cannot hold %d", what, v.Inc, len(v.Data), n))
	}
}

func checkLen(what string, x []float64, n int) {
	if len(x) < n {
		panic(fmt.Sprintf("backend: %s has length %d, need %d", what, len(x), n))
	}
}

// checkRange validates an eigenpair index range and returns its size.
func checkRange(n, lo, hi int, w []float64, z blas64.General) int {
	if lo < 0 || hi > n || lo > hi {
		panic(fmt.Sprintf("backend: Syevr: range [%d,%d) outside [0,%d]", lo, hi, n))
	}
	k := hi - lo
	checkLen("Syevr: w", w, k)
	if k > 0 && (z.Rows != n || z.Cols != k || z.Stride < k) {
		panic(fmt.Sprintf("backend: Syevr: z is %d×%d (stride %d), need %d×%d", z.Rows, z.Cols, z.Stride, n, k))
	}
	return k
}

// checkSVD validates Gesdd's shapes and reports whether vectors are wanted.
func checkSVD(a blas64.General, s []float64, u, vt blas64.General) bool {
	m, n := a.Rows, a.Cols
	k := min(m, n)
	checkLen("Gesdd: s", s, k)
	if u.Rows == 0 && vt.Rows == 0 {
		return false
	}
	if u.Rows != m || u.Cols != k || vt.Rows != k || vt.Cols != n {
		panic(fmt.Sprintf("backend: Gesdd: A %d×%d needs u %d×%d and vt %d×%d, have %d×%d and %d×%d",
			m, n, m, k, k, n, u.Rows, u.Cols, vt.Rows, vt.Cols))
	}
	return true
}

// forTriangle calls f on every stored element of the triangle a.Uplo.
func forTriangle(a blas64.Symmetric, f func(float64)) {
	for i := 0; i < a.N; i++ {
		lo, hi := 0, i+1
		if a.Uplo == blas.Upper {
			lo, hi = i, a.N
		}
		for _, v := range a.Data[i*a.Stride+lo : i*a.Stride+hi] {
			f(v)
		}
	}
}

// symToLower makes the lower triangle of a.Data hold the matrix times scale
// (copying the upper triangle across when a.Uplo is Upper) and returns
// a.Data.
func symToLower(a blas64.Symmetric, scale float64) []float64 {
	n, s, d := a.N, a.Stride, a.Data
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			if a.Uplo == blas.Upper {
				d[i*s+j] = d[j*s+i] * scale
			} else if scale != 1 {
				d[i*s+j] *= scale
			}
		}
	}
	return d
}

// pow2Scale multiplies the triangle a.Uplo by the power of two that brings
// its largest magnitude into [2⁻¹⁰⁰, 2¹⁰⁰] when it lies outside, and returns
// the factor (1 when it does nothing). Scaling by a power of two is exact.
func pow2Scale(a blas64.Symmetric) float64 {
	anrm := 0.0
	forTriangle(a, func(v float64) { anrm = max(anrm, math.Abs(v)) })
	scale := pow2Factor(anrm)
	if scale == 1 {
		return 1
	}
	for i := 0; i < a.N; i++ {
		lo, hi := 0, i+1
		if a.Uplo == blas.Upper {
			lo, hi = i, a.N
		}
		row := a.Data[i*a.Stride+lo : i*a.Stride+hi]
		for j := range row {
			row[j] *= scale
		}
	}
	return scale
}

// mirrorLower copies the lower triangle to the upper one.
func mirrorLower(d []float64, n, s int) {
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			d[j*s+i] = d[i*s+j]
		}
	}
}
