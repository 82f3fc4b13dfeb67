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

// Gesdd: gonum has no divide-and-conquer SVD; this is gonum's Dgesvd
// (bidiagonalisation, after a QR step when m ≫ n, then implicit zero-shift
// QR, Dbdsqr): about 2mn² + 11n³ flam with thin vectors for m ≥ n.
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
	job := lapack.SVDNone
	ldu, ldvt := 1, 1
	var ud, vtd []float64
	if vectors {
		job = lapack.SVDStore
		ldu, ldvt, ud, vtd = u.Stride, vt.Stride, u.Data, vt.Data
	}
	work := []float64{0}
	goLAPACK.Dgesvd(job, job, m, n, a.Data, a.Stride, s, ud, ldu, vtd, ldvt, work, -1)
	work = make([]float64, int(work[0]))
	if !goLAPACK.Dgesvd(job, job, m, n, a.Data, a.Stride, s, ud, ldu, vtd, ldvt, work, len(work)) {
		return fmt.Errorf("%w: Dgesvd (%d×%d)", ErrNotConverged, m, n)
	}
	return nil
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

func (pureGo) Geqrf(a blas64.General, tau []float64) {
	m, n := a.Rows, a.Cols
	checkLen("Geqrf: tau", tau, min(m, n))
	if min(m, n) == 0 {
		return
	}
	work := []float64{0}
	goLAPACK.Dgeqrf(m, n, a.Data, a.Stride, tau, work, -1)
	work = make([]float64, max(1, int(work[0])))
	goLAPACK.Dgeqrf(m, n, a.Data, a.Stride, tau, work, len(work))
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
	work := []float64{0}
	goLAPACK.Dorgqr(m, n, k, a.Data, a.Stride, tau, work, -1)
	work = make([]float64, max(1, int(work[0])))
	goLAPACK.Dorgqr(m, n, k, a.Data, a.Stride, tau, work, len(work))
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
	if anrm == 0 || (anrm >= 0x1p-100 && anrm <= 0x1p+100) {
		return 1
	}
	_, e := math.Frexp(anrm)
	scale := math.Ldexp(1, -e)
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
