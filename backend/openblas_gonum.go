//go:build openblas && cgo

package backend

import (
	"gonum.org/v1/gonum/blas"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/netlib/blas/netlib"
)

// gonumDispatch is the BLAS registered with gonum (blas64.Use) in the
// openblas build: gonum's Go BLAS for level 1 and for small level-2/3 calls,
// the C library for large ones (level 2 at the OpenBLAS backend's own
// threshold; level 3 from dispatch3Threshold). Without it gonum's LAPACK
// (used by the pure-Go paths and by gonum/mat) would send every tiny call
// of a 10×10 factorisation through cgo, where the call overhead dominates
// (measured: 60 % of an LTSA fit). Large C calls hold a slot of the
// thread-budget semaphore like every other C call, and run threaded only
// from the sizes the backend's own calls do (threaded3, threaded2).
type gonumDispatch struct {
	gonumblas.Implementation
	c netlib.Implementation
}

var _ blas.Float64 = gonumDispatch{}

// dispatch3Threshold is the flam (m·n·k) from which gonumDispatch sends a
// level-3 call to the C library. At the backend's own level3Threshold
// (4·4·4) the two triangular solves of a 10×10 Cholesky solve went to C:
// two cgo calls for each point of LLE's, NPE's and landmark LLE's weights,
// whose OpenBLAS worker then spun on the core the fit's other goroutine
// needed — the weights stage of landmark LLE on 10⁵ digits took
// 0.78–0.86 s in the openblas build against 0.41 s in pure Go; with this
// threshold 0.42–0.44 s (alternated twice). LAPACK's blocked updates, the
// calls worth sending, lie far above it.
const dispatch3Threshold = 32 * 32 * 32

func big3(m, n, k int) bool { return float64(m)*float64(n)*float64(k) >= dispatch3Threshold }
func big2(m, n int) bool    { return float64(m)*float64(n) >= level2Threshold }

func (d gonumDispatch) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !big3(m, n, k) {
		d.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	s := acquire(threaded3(m, n, k))
	d.c.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	release(s)
}

func (d gonumDispatch) Dsymm(side blas.Side, ul blas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	na := m
	if side == blas.Right {
		na = n
	}
	if !big3(m, n, na) {
		d.Implementation.Dsymm(side, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	s := acquire(threaded3(m, n, na))
	d.c.Dsymm(side, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
	release(s)
}

func (d gonumDispatch) Dsyrk(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if !big3(n, n, k) {
		d.Implementation.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	s := acquire(threaded3(n, n, k))
	d.c.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
	release(s)
}

func (d gonumDispatch) Dsyr2k(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !big3(n, n, k) {
		d.Implementation.Dsyr2k(ul, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	s := acquire(threaded3(n, n, k))
	d.c.Dsyr2k(ul, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	release(s)
}

func (d gonumDispatch) Dtrmm(s blas.Side, ul blas.Uplo, tA blas.Transpose, dg blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	na := m
	if s == blas.Right {
		na = n
	}
	if !big3(m, n, na) {
		d.Implementation.Dtrmm(s, ul, tA, dg, m, n, alpha, a, lda, b, ldb)
		return
	}
	sem := acquire(threaded3(m, n, na))
	d.c.Dtrmm(s, ul, tA, dg, m, n, alpha, a, lda, b, ldb)
	release(sem)
}

func (d gonumDispatch) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, dg blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	na := m
	if s == blas.Right {
		na = n
	}
	if !big3(m, n, na) {
		d.Implementation.Dtrsm(s, ul, tA, dg, m, n, alpha, a, lda, b, ldb)
		return
	}
	sem := acquire(threaded3(m, n, na))
	d.c.Dtrsm(s, ul, tA, dg, m, n, alpha, a, lda, b, ldb)
	release(sem)
}

func (d gonumDispatch) Dgemv(t blas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if !big2(m, n) {
		d.Implementation.Dgemv(t, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	s := acquire(threaded2(m, n))
	d.c.Dgemv(t, m, n, alpha, a, lda, x, incX, beta, y, incY)
	release(s)
}

func (d gonumDispatch) Dsymv(ul blas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if !big2(n, n) {
		d.Implementation.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	s := acquire(threaded2(n, n))
	d.c.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
	release(s)
}

func (d gonumDispatch) Dtrmv(ul blas.Uplo, tA blas.Transpose, dg blas.Diag, n int, a []float64, lda int, x []float64, incX int) {
	if !big2(n, n) {
		d.Implementation.Dtrmv(ul, tA, dg, n, a, lda, x, incX)
		return
	}
	s := acquire(threaded2(n, n))
	d.c.Dtrmv(ul, tA, dg, n, a, lda, x, incX)
	release(s)
}

func (d gonumDispatch) Dtrsv(ul blas.Uplo, tA blas.Transpose, dg blas.Diag, n int, a []float64, lda int, x []float64, incX int) {
	if !big2(n, n) {
		d.Implementation.Dtrsv(ul, tA, dg, n, a, lda, x, incX)
		return
	}
	s := acquire(threaded2(n, n))
	d.c.Dtrsv(ul, tA, dg, n, a, lda, x, incX)
	release(s)
}

func (d gonumDispatch) Dger(m, n int, alpha float64, x []float64, incX int, y []float64, incY int, a []float64, lda int) {
	if !big2(m, n) {
		d.Implementation.Dger(m, n, alpha, x, incX, y, incY, a, lda)
		return
	}
	s := acquire(threaded2(m, n))
	d.c.Dger(m, n, alpha, x, incX, y, incY, a, lda)
	release(s)
}

func (d gonumDispatch) Dsyr(ul blas.Uplo, n int, alpha float64, x []float64, incX int, a []float64, lda int) {
	if !big2(n, n) {
		d.Implementation.Dsyr(ul, n, alpha, x, incX, a, lda)
		return
	}
	s := acquire(threaded2(n, n))
	d.c.Dsyr(ul, n, alpha, x, incX, a, lda)
	release(s)
}

func (d gonumDispatch) Dsyr2(ul blas.Uplo, n int, alpha float64, x []float64, incX int, y []float64, incY int, a []float64, lda int) {
	if !big2(n, n) {
		d.Implementation.Dsyr2(ul, n, alpha, x, incX, y, incY, a, lda)
		return
	}
	s := acquire(threaded2(n, n))
	d.c.Dsyr2(ul, n, alpha, x, incX, y, incY, a, lda)
	release(s)
}
