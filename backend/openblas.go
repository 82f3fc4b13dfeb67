//go:build openblas && cgo

package backend

/*
#cgo pkg-config: openblas lapacke
#include <stdio.h>
#include <stdlib.h>
#include <cblas.h>
#include <lapacke.h>

// Exported by OpenBLAS's threaded builds but not declared in its headers:
// weak, so that a build without them links and leaves the spin alone.
extern void openblas_read_env(void) __attribute__((weak));
extern int blas_thread_shutdown_(void) __attribute__((weak));

// manifold_short_spin sets the time OpenBLAS's idle worker threads spin
// before they sleep to 2^exp cycles, unless the environment sets it: the
// value is read as the library reads its environment, the variable is
// removed again, and the thread pool is stopped (the next threaded call
// starts it with the new value). It returns the exponent in force, 0
// when unknown (the user's, or a build without the symbols).
static int manifold_short_spin(int exp) {
	if (!openblas_read_env || !blas_thread_shutdown_ ||
	    getenv("OPENBLAS_THREAD_TIMEOUT") || getenv("GOTO_THREAD_TIMEOUT")) {
		return 0;
	}
	char v[8];
	snprintf(v, sizeof v, "%d", exp);
	setenv("OPENBLAS_THREAD_TIMEOUT", v, 1);
	openblas_read_env();
	unsetenv("OPENBLAS_THREAD_TIMEOUT");
	blas_thread_shutdown_();
	return exp;
}
*/
import "C"

import (
	"context"
	"fmt"
	"math"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The OpenBLAS + LAPACKE backend.
//
// BLAS calls use CBLAS in row-major order (free inside OpenBLAS). LAPACK
// calls use LAPACKE's *_work routines in column-major order on the transposed
// view of our row-major data (a row-major m×n matrix is the column-major
// n×m matrix Aᵀ), never LAPACK_ROW_MAJOR, which copies: a symmetric matrix's
// triangles swap (uplo is flipped); eigenvector matrices come back as rows
// and are transposed in place; Gesdd computes the SVD of Aᵀ = V·Σ·Uᵀ, so
// its U and Vᵀ buffers are simply exchanged; QR is LQ of Aᵀ (dgelqf,
// dorglq), which stores reflectors exactly as row-major QR does. Workspaces
// are sized by explicit queries (lwork = -1). Dimensions and strides are
// checked against the 32-bit lapack_int and BLAS int before the call.
//
// Every call into C holds a slot of the thread-budget semaphore. Calls below
// the dispatch thresholds run the pure-Go code instead (see dispatch).
type openBLAS struct {
	direct bool // no size rules: every call goes to C, threaded
}

var active Impl = openBLAS{}

// OpenBLASDirect is the OpenBLAS backend without size rules: every call
// goes to C, however small, and runs threaded (Threads()). It exists
// (under -tags openblas only) for the benchmarks that measure those rules
// (BenchmarkDispatch, bench/tables/blasload).
var OpenBLASDirect Impl = openBLAS{direct: true}

// small reports whether a call of the given work stays in Go.
func (o openBLAS) small(work, threshold float64) bool { return !o.direct && work < threshold }

// idleSpinExp is the exponent of the cycles OpenBLAS's idle worker threads
// spin before they sleep, set at start unless OPENBLAS_THREAD_TIMEOUT (or
// GOTO_THREAD_TIMEOUT) is in the environment. OpenBLAS's own default, 2²⁸
// cycles (about 0.1 s), keeps a worker spinning on a core long after each
// threaded call, and the engine's own goroutines — the certificate's
// factorization beside Lanczos, the neighbour search of the next fit —
// lose that core. Fits of 10,000 swiss-roll points in fresh processes
// (bench/peers/gorun, -tags openblas, 2 cores, alternating six times,
// medians): Laplacian eigenmaps 85.8 ms with the default against 73.4 ms
// at 2²⁰, LLE 226 against 194 ms, LTSA 214 against 190 ms; Isomap (three
// times) 1.62 against 1.50 s. At 2⁴ the same within the noise: a call
// that wakes a sleeping worker costs microseconds against the
// milliseconds of the calls that are threaded at all.
const idleSpinExp = 20

// idleSpin is the exponent in force (0: OpenBLAS's own or the user's).
var idleSpin int

func init() {
	// gonum's own code (its LAPACK, gonum/mat) runs on the C BLAS too, for
	// calls above the dispatch thresholds (openblas_gonum.go).
	blas64.Use(gonumDispatch{})
	idleSpin = int(C.manifold_short_spin(C.int(idleSpinExp)))
	setBLASThreads = func(n int) { C.openblas_set_num_threads(C.int(n)) }
	blasThreadsNow = func() int { return int(C.openblas_get_num_threads()) }
	blasConfig = func() string {
		spin := ""
		if idleSpin > 0 {
			spin = fmt.Sprintf("; idle threads spin 2^%d cycles", idleSpin)
		}
		return fmt.Sprintf("%s; %d threads for large calls, 1 for the others%s", C.GoString(C.openblas_get_config()), Threads(), spin)
	}
	setThreads(Threads())
}

// Dispatch thresholds: calls doing less work than this run in Go, where a
// cgo call and the C library's set-up would cost more than the arithmetic.
// Measured by BenchmarkDispatch (bench/dispatch_test.go) on the 2-core
// reference machine (OpenBLAS 0.3.21, 2 threads):
//
//	Gemm  n=4: Go 114 ns, C 104 ns; n=8: Go 459 ns, C 107 ns — C wins from
//	      the smallest sizes (gonum's Dgemm has a fixed set-up cost).
//	Gemv  n=32: Go 150 ns, C 178 ns; n=64: Go 530 ns, C 453 ns; n=256:
//	      Go 9.5 µs, C 4.7 µs — the crossover is at m·n ≈ 64².
//	Syevd n=8: Go 8.3 µs, C 13 µs; n=32: Go 158 µs, C 185 µs; n=64: Go
//	      1.0 ms, C 0.71 ms — with gonum's LAPACK on the size-dispatching
//	      BLAS of openblas_gonum.go (before it, every small Go call went
//	      through cgo and C won from n=4). The LAPACK threshold is taken
//	      from Syevd for every LAPACK routine.
//
// A matrix-vector product with a thin matrix (min(m, n) ≤ thinGemvMax: a
// Lanczos basis against a vector) also runs in Go, on the calling
// goroutine. It streams the matrix once; OpenBLAS threads it, and the
// worker it wakes competes with the Go goroutines the caller runs beside
// it — the certified eigensolve's solves and Lanczos steps run on one
// core while the certificate's factorization runs on the other. Alone, the
// C call is faster (a 30×10,000 product and its transpose: 30–38 µs
// against gonum's 55 µs); inside Laplacian eigenmaps of a 10,000-point
// swiss roll (fresh processes alternating, 30–40 rounds each, three
// sittings) OpenBLAS with one thread per call took 45.3, 45.8 and 49.6 ms
// where two threads took 51.7, 49.5 and 55.7 ms.
const (
	level3Threshold = 4 * 4 * 4 // Gemm/Syrk/Symm, flam m·n·k
	level2Threshold = 64 * 64   // Gemv/Symv, flam m·n
	lapackThreshold = 48        // LAPACK routines, order n
	thinGemvMax     = 64        // Gemv with min(m, n) at most this: Go
)

// Threaded calls. OpenBLAS hands each threaded call to its worker threads
// and spins (sched_yield) until they finish; when every core is busy —
// the Go goroutines of the same process, other processes — a worker waits
// for a core at every hand-over, and a LAPACK routine hands over at each
// of its inner level-2 calls. Measured on the 2-core reference machine
// (OpenBLAS 0.3.21; go run -tags openblas ./bench/tables/blasload, one
// thread against always threaded, medians, idle and beside three busy
// processes; bench/RESULTS.md): the top 2 eigenpairs of a 300×300 matrix
// 1.8 against 2.1 ms idle, busy 2.7 ms both but 90th percentile 6.6
// against 83 ms and worst 22 against 999 ms; 1000×1000 57 against 42 ms
// idle, 116 ms against 6.9 s busy. Gemm 300³ 0.89 against 0.51 ms idle,
// 0.89 against 6.2 ms busy; 1000³ 33 against 18 ms idle, 67 against 53 ms
// busy (one hand-over, large against it). A CI run's openblas engine
// tests once sat three minutes in one 300×300 eigensolve while other
// packages' tests ran. So a call runs threaded only where a hand-over is
// small against the call: level-3 calls from threadedLevel3Flam (m·n·k;
// about 10 ms on one core), level-2 from threadedLevel2Size (m·n, a 32 MB
// matrix), LAPACK routines from order threadedLAPACKOrder (idle on 2 cores
// threads save up to 1.65× below it, at 2000); all others run on one
// thread (acquire sets it).
const (
	threadedLevel3Flam  = 2.5e8
	threadedLevel2Size  = 1 << 22
	threadedLAPACKOrder = 2048
)

func threaded3(m, n, k int) bool {
	return float64(m)*float64(n)*float64(k) >= threadedLevel3Flam
}
func threaded2(m, n int) bool   { return float64(m)*float64(n) >= threadedLevel2Size }
func threadedLAPACK(n int) bool { return n >= threadedLAPACKOrder }

func (openBLAS) Name() string { return "openblas" }

func (openBLAS) native() bool { return true }

func ptr(x []float64) *C.double {
	if len(x) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&x[0]))
}

// cint converts a dimension or stride to C int, panicking when it does not
// fit in 32 bits (the BLAS and lapack_int width of this build).
func cint(v int) C.int {
	if v < 0 || v > math.MaxInt32 {
		panic(fmt.Sprintf("backend: dimension %d does not fit the 32-bit BLAS/LAPACK integer", v))
	}
	return C.int(v)
}

func cTrans(t blas.Transpose) C.enum_CBLAS_TRANSPOSE {
	if t == blas.NoTrans {
		return C.CblasNoTrans
	}
	return C.CblasTrans
}

func cUplo(u blas.Uplo) C.enum_CBLAS_UPLO {
	if u == blas.Upper {
		return C.CblasUpper
	}
	return C.CblasLower
}

func cSide(s blas.Side) C.enum_CBLAS_SIDE {
	if s == blas.Left {
		return C.CblasLeft
	}
	return C.CblasRight
}

// lapackUplo is the LAPACK uplo character for the column-major view of a
// row-major triangle: the triangles swap.
func lapackUplo(u blas.Uplo) C.char {
	if u == blas.Upper {
		return 'L'
	}
	return 'U'
}

func (o openBLAS) Gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	m, n := c.Rows, c.Cols
	k := a.Cols
	if tA != blas.NoTrans {
		k = a.Rows
	}
	if o.small(float64(m)*float64(n)*float64(k), level3Threshold) || m == 0 || n == 0 || k == 0 {
		PureGo.Gemm(tA, tB, alpha, a, b, beta, c)
		return
	}
	ar, ac := m, k
	if tA != blas.NoTrans {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB != blas.NoTrans {
		br, bc = n, k
	}
	checkGeneral("Gemm: A", a, ar, ac)
	checkGeneral("Gemm: B", b, br, bc)
	checkGeneral("Gemm: C", c, m, n)
	s := acquire(o.direct || threaded3(m, n, k))
	C.cblas_dgemm(C.CblasRowMajor, cTrans(tA), cTrans(tB), cint(m), cint(n), cint(k), C.double(alpha),
		ptr(a.Data), cint(a.Stride), ptr(b.Data), cint(b.Stride), C.double(beta), ptr(c.Data), cint(c.Stride))
	release(s)
}

func (o openBLAS) Syrk(t blas.Transpose, alpha float64, a blas64.General, beta float64, c blas64.Symmetric) {
	n := c.N
	k := a.Cols
	if t != blas.NoTrans {
		k = a.Rows
	}
	if o.small(float64(n)*float64(n)*float64(k)/2, level3Threshold) || n == 0 || k == 0 {
		PureGo.Syrk(t, alpha, a, beta, c)
		return
	}
	ar, ac := n, k
	if t != blas.NoTrans {
		ar, ac = k, n
	}
	checkGeneral("Syrk: A", a, ar, ac)
	checkSym("Syrk: C", c)
	s := acquire(o.direct || threaded3(n, n, k))
	C.cblas_dsyrk(C.CblasRowMajor, cUplo(c.Uplo), cTrans(t), cint(n), cint(k), C.double(alpha),
		ptr(a.Data), cint(a.Stride), C.double(beta), ptr(c.Data), cint(c.Stride))
	release(s)
}

func (o openBLAS) Symm(side blas.Side, alpha float64, a blas64.Symmetric, b blas64.General, beta float64, c blas64.General) {
	m, n := c.Rows, c.Cols
	na := m
	if side == blas.Right {
		na = n
	}
	if o.small(float64(m)*float64(n)*float64(na), level3Threshold) || m == 0 || n == 0 {
		PureGo.Symm(side, alpha, a, b, beta, c)
		return
	}
	if a.N != na {
		panic(fmt.Sprintf("backend: Symm: A is %d×%d, need %d×%d", a.N, a.N, na, na))
	}
	checkSym("Symm: A", a)
	checkGeneral("Symm: B", b, m, n)
	checkGeneral("Symm: C", c, m, n)
	s := acquire(o.direct || threaded3(m, n, na))
	C.cblas_dsymm(C.CblasRowMajor, cSide(side), cUplo(a.Uplo), cint(m), cint(n), C.double(alpha),
		ptr(a.Data), cint(a.Stride), ptr(b.Data), cint(b.Stride), C.double(beta), ptr(c.Data), cint(c.Stride))
	release(s)
}

func (o openBLAS) Gemv(t blas.Transpose, alpha float64, a blas64.General, x blas64.Vector, beta float64, y blas64.Vector) {
	m, n := a.Rows, a.Cols
	if o.small(float64(m)*float64(n), level2Threshold) || (!o.direct && min(m, n) <= thinGemvMax) || m == 0 || n == 0 {
		PureGo.Gemv(t, alpha, a, x, beta, y)
		return
	}
	lx, ly := n, m
	if t != blas.NoTrans {
		lx, ly = m, n
	}
	checkGeneral("Gemv: A", a, m, n)
	checkVec("Gemv: x", x, lx)
	checkVec("Gemv: y", y, ly)
	s := acquire(o.direct || threaded2(m, n))
	C.cblas_dgemv(C.CblasRowMajor, cTrans(t), cint(m), cint(n), C.double(alpha), ptr(a.Data), cint(a.Stride),
		ptr(x.Data), cint(x.Inc), C.double(beta), ptr(y.Data), cint(y.Inc))
	release(s)
}

func (o openBLAS) Symv(alpha float64, a blas64.Symmetric, x blas64.Vector, beta float64, y blas64.Vector) {
	n := a.N
	if o.small(float64(n)*float64(n), level2Threshold) || n == 0 {
		PureGo.Symv(alpha, a, x, beta, y)
		return
	}
	checkSym("Symv: A", a)
	checkVec("Symv: x", x, n)
	checkVec("Symv: y", y, n)
	s := acquire(o.direct || threaded2(n, n))
	C.cblas_dsymv(C.CblasRowMajor, cUplo(a.Uplo), cint(n), C.double(alpha), ptr(a.Data), cint(a.Stride),
		ptr(x.Data), cint(x.Inc), C.double(beta), ptr(y.Data), cint(y.Inc))
	release(s)
}

// lapackErr turns a LAPACKE info code into an error (or a panic for an
// illegal argument, which is a programmer error).
func lapackErr(routine string, info C.int, n int) error {
	switch {
	case info == 0:
		return nil
	case info < 0:
		panic(fmt.Sprintf("backend: %s: illegal value in argument %d", routine, -int(info)))
	default:
		return fmt.Errorf("%w: %s (n=%d, info=%d)", ErrNotConverged, routine, n, int(info))
	}
}

// transposeSquare transposes the n×n block of data (stride s) in place.
func transposeSquare(d []float64, n, s int) {
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d[i*s+j], d[j*s+i] = d[j*s+i], d[i*s+j]
		}
	}
}

func (o openBLAS) Syevd(a blas64.Symmetric, w []float64, vectors bool) error {
	n := a.N
	if o.small(float64(n), lapackThreshold) || n == 0 {
		return PureGo.Syevd(a, w, vectors)
	}
	checkSym("Syevd: A", a)
	checkLen("Syevd: w", w, n)
	if err := checkFiniteSym("Syevd: A", a); err != nil {
		return err
	}
	jobz := C.char('N')
	if vectors {
		jobz = 'V'
	}
	uplo := lapackUplo(a.Uplo)
	var wq C.double
	var iwq C.lapack_int
	s := acquire(o.direct || threadedLAPACK(n))
	defer release(s)
	info := C.LAPACKE_dsyevd_work(C.LAPACK_COL_MAJOR, jobz, uplo, cint(n), ptr(a.Data), cint(a.Stride), ptr(w),
		&wq, -1, &iwq, -1)
	if err := lapackErr("dsyevd", info, n); err != nil {
		return err
	}
	work := make([]float64, int(wq))
	iwork := make([]int32, int(iwq))
	info = C.LAPACKE_dsyevd_work(C.LAPACK_COL_MAJOR, jobz, uplo, cint(n), ptr(a.Data), cint(a.Stride), ptr(w),
		ptr(work), cint(len(work)), (*C.lapack_int)(unsafe.Pointer(&iwork[0])), cint(len(iwork)))
	if err := lapackErr("dsyevd", info, n); err != nil {
		return err
	}
	if vectors {
		transposeSquare(a.Data, n, a.Stride)
		FixSigns(blas64.General{Rows: n, Cols: n, Stride: a.Stride, Data: a.Data})
	}
	return nil
}

func (o openBLAS) Syevr(a blas64.Symmetric, lo, hi int, w []float64, z blas64.General) error {
	n := a.N
	if o.small(float64(n), lapackThreshold) || n == 0 {
		return PureGo.Syevr(a, lo, hi, w, z)
	}
	k := checkRange(n, lo, hi, w, z)
	if k == 0 {
		return nil
	}
	checkSym("Syevr: A", a)
	if err := checkFiniteSym("Syevr: A", a); err != nil {
		return err
	}
	// DSYEVR's steps with our tridiagonal solver in the middle: LAPACK's
	// dsytrd (the O(n³) part), bisection and inverse iteration in Go
	// (tridiag.go, O(n·k), the same code as the pure-Go backend: LAPACK's
	// dstebz can return fewer eigenvalues than asked for on tight clusters),
	// LAPACK's dormtr for the back transformation.
	scale := pow2Scale(a)
	uplo := lapackUplo(a.Uplo)
	d := make([]float64, n)
	e := make([]float64, n-1)
	tau := make([]float64, n-1)
	var wq C.double
	s := acquire(o.direct || threadedLAPACK(n))
	info := C.LAPACKE_dsytrd_work(C.LAPACK_COL_MAJOR, uplo, cint(n), ptr(a.Data), cint(a.Stride), ptr(d), ptr(e), ptr(tau), &wq, -1)
	if info == 0 {
		work := make([]float64, max(1, int(wq)))
		info = C.LAPACKE_dsytrd_work(C.LAPACK_COL_MAJOR, uplo, cint(n), ptr(a.Data), cint(a.Stride), ptr(d), ptr(e), ptr(tau), ptr(work), cint(len(work)))
	}
	release(s)
	if err := lapackErr("dsytrd", info, n); err != nil {
		return err
	}
	// zc holds the tridiagonal eigenvectors as rows of a k×n row-major
	// matrix, which is the column-major n×k matrix dormtr wants.
	zc := make([]float64, k*n)
	if err := tridiagRangeCtx(context.Background(), d, e, lo, hi, scale, w, zc); err != nil {
		return err
	}
	s = acquire(o.direct || threadedLAPACK(n))
	info = C.LAPACKE_dormtr_work(C.LAPACK_COL_MAJOR, 'L', uplo, 'N', cint(n), cint(k), ptr(a.Data), cint(a.Stride), ptr(tau), ptr(zc), cint(n), &wq, -1)
	if info == 0 {
		work := make([]float64, max(1, int(wq)))
		info = C.LAPACKE_dormtr_work(C.LAPACK_COL_MAJOR, 'L', uplo, 'N', cint(n), cint(k), ptr(a.Data), cint(a.Stride), ptr(tau), ptr(zc), cint(n), ptr(work), cint(len(work)))
	}
	release(s)
	if err := lapackErr("dormtr", info, n); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		row := z.Data[i*z.Stride : i*z.Stride+k]
		for j := range row {
			row[j] = zc[j*n+i]
		}
	}
	FixSigns(blas64.General{Rows: n, Cols: k, Stride: z.Stride, Data: z.Data})
	return nil
}

func (o openBLAS) Sygvd(a, b blas64.Symmetric, w []float64) error {
	n := a.N
	if o.small(float64(n), lapackThreshold) || n == 0 {
		return PureGo.Sygvd(a, b, w)
	}
	if b.N != n {
		panic(fmt.Sprintf("backend: Sygvd: A is %d×%d, B is %d×%d", n, n, b.N, b.N))
	}
	checkSym("Sygvd: A", a)
	checkSym("Sygvd: B", b)
	checkLen("Sygvd: w", w, n)
	if err := checkFiniteSym("Sygvd: A", a); err != nil {
		return err
	}
	if err := checkFiniteSym("Sygvd: B", b); err != nil {
		return err
	}
	// dsygvd takes one uplo for both: bring B's triangle to A's.
	if b.Uplo != a.Uplo {
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				if a.Uplo == blas.Lower {
					b.Data[i*b.Stride+j] = b.Data[j*b.Stride+i]
				} else {
					b.Data[j*b.Stride+i] = b.Data[i*b.Stride+j]
				}
			}
		}
		b.Uplo = a.Uplo
	}
	uplo := lapackUplo(a.Uplo)
	var wq C.double
	var iwq C.lapack_int
	s := acquire(o.direct || threadedLAPACK(n))
	defer release(s)
	call := func(work *C.double, lwork C.int, iwork *C.lapack_int, liwork C.int) C.int {
		return C.LAPACKE_dsygvd_work(C.LAPACK_COL_MAJOR, 1, 'V', uplo, cint(n), ptr(a.Data), cint(a.Stride),
			ptr(b.Data), cint(b.Stride), ptr(w), work, lwork, iwork, liwork)
	}
	if info := call(&wq, -1, &iwq, -1); info < 0 {
		return lapackErr("dsygvd", info, n)
	}
	work := make([]float64, int(wq))
	iwork := make([]int32, int(iwq))
	info := call(ptr(work), cint(len(work)), (*C.lapack_int)(unsafe.Pointer(&iwork[0])), cint(len(iwork)))
	if int(info) > n {
		return fmt.Errorf("Sygvd: B: %w (leading minor %d)", ErrNotPositiveDefinite, int(info)-n)
	}
	if err := lapackErr("dsygvd", info, n); err != nil {
		return err
	}
	transposeSquare(a.Data, n, a.Stride)
	FixSigns(blas64.General{Rows: n, Cols: n, Stride: a.Stride, Data: a.Data})
	return nil
}

func (o openBLAS) Gesdd(a blas64.General, s []float64, u, vt blas64.General) error {
	m, n := a.Rows, a.Cols
	k := min(m, n)
	if o.small(float64(k), lapackThreshold) || k == 0 {
		return PureGo.Gesdd(a, s, u, vt)
	}
	vectors := checkSVD(a, s, u, vt)
	checkGeneral("Gesdd: A", a, m, n)
	if err := checkFinite("Gesdd: A", a.Data, m, n, a.Stride); err != nil {
		return err
	}
	// SVD of the column-major n×m view Aᵀ = V·Σ·Uᵀ: LAPACK's U is our V
	// (its column-major n×k U is our row-major k×n Vᵀ) and LAPACK's Vᵀ
	// (column-major k×m) is our row-major m×k U.
	jobz := C.char('N')
	lu, ldu, lvt, ldvt := (*C.double)(nil), C.int(1), (*C.double)(nil), C.int(1)
	if vectors {
		checkGeneral("Gesdd: U", u, m, k)
		checkGeneral("Gesdd: Vt", vt, k, n)
		jobz = 'S'
		lu, ldu = ptr(vt.Data), cint(vt.Stride)
		lvt, ldvt = ptr(u.Data), cint(u.Stride)
	}
	iwork := make([]int32, 8*k)
	var wq C.double
	sem := acquire(o.direct || threadedLAPACK(k))
	defer release(sem)
	call := func(work *C.double, lwork C.int) C.int {
		return C.LAPACKE_dgesdd_work(C.LAPACK_COL_MAJOR, jobz, cint(n), cint(m), ptr(a.Data), cint(a.Stride), ptr(s),
			lu, ldu, lvt, ldvt, work, lwork, (*C.lapack_int)(unsafe.Pointer(&iwork[0])))
	}
	if err := lapackErr("dgesdd", call(&wq, -1), k); err != nil {
		return err
	}
	work := make([]float64, int(wq))
	return lapackErr("dgesdd", call(ptr(work), cint(len(work))), k)
}

func (o openBLAS) Potrf(a blas64.Symmetric) error {
	n := a.N
	if o.small(float64(n), lapackThreshold) || n == 0 {
		return PureGo.Potrf(a)
	}
	checkSym("Potrf: A", a)
	if err := checkFiniteSym("Potrf: A", a); err != nil {
		return err
	}
	s := acquire(o.direct || threadedLAPACK(n))
	info := C.LAPACKE_dpotrf_work(C.LAPACK_COL_MAJOR, lapackUplo(a.Uplo), cint(n), ptr(a.Data), cint(a.Stride))
	release(s)
	if info > 0 {
		return fmt.Errorf("%w (n=%d, leading minor %d)", ErrNotPositiveDefinite, n, int(info))
	}
	return lapackErr("dpotrf", info, n)
}

// Potrs solves with two row-major triangular solves (LAPACK's dpotrs wants
// the right-hand sides column-major).
func (o openBLAS) Potrs(f blas64.Symmetric, b blas64.General) {
	n, nrhs := f.N, b.Cols
	if f.N != b.Rows {
		panic(fmt.Sprintf("backend: Potrs: factor %d×%d, B has %d rows", n, n, b.Rows))
	}
	if o.small(float64(n), lapackThreshold) || n == 0 || nrhs == 0 {
		PureGo.Potrs(f, b)
		return
	}
	checkSym("Potrs: factor", f)
	checkGeneral("Potrs: B", b, n, nrhs)
	first, second := C.enum_CBLAS_TRANSPOSE(C.CblasNoTrans), C.enum_CBLAS_TRANSPOSE(C.CblasTrans) // L·Lᵀ
	if f.Uplo == blas.Upper {
		first, second = C.CblasTrans, C.CblasNoTrans // Uᵀ·U
	}
	s := acquire(o.direct || threaded3(n, n, nrhs))
	for _, tr := range []C.enum_CBLAS_TRANSPOSE{first, second} {
		C.cblas_dtrsm(C.CblasRowMajor, C.CblasLeft, cUplo(f.Uplo), tr, C.CblasNonUnit, cint(n), cint(nrhs), 1,
			ptr(f.Data), cint(f.Stride), ptr(b.Data), cint(b.Stride))
	}
	release(s)
}

func (o openBLAS) Geqrf(a blas64.General, tau []float64) {
	m, n := a.Rows, a.Cols
	k := min(m, n)
	checkLen("Geqrf: tau", tau, k)
	if o.small(float64(k), lapackThreshold) || k == 0 {
		PureGo.Geqrf(a, tau)
		return
	}
	checkGeneral("Geqrf: A", a, m, n)
	var wq C.double
	s := acquire(o.direct || threadedLAPACK(k))
	defer release(s)
	// LQ of the column-major n×m view Aᵀ.
	if info := C.LAPACKE_dgelqf_work(C.LAPACK_COL_MAJOR, cint(n), cint(m), ptr(a.Data), cint(a.Stride), ptr(tau), &wq, -1); info != 0 {
		panic(lapackErr("dgelqf", info, k))
	}
	work := make([]float64, max(1, int(wq)))
	if info := C.LAPACKE_dgelqf_work(C.LAPACK_COL_MAJOR, cint(n), cint(m), ptr(a.Data), cint(a.Stride), ptr(tau), ptr(work), cint(len(work))); info != 0 {
		panic(lapackErr("dgelqf", info, k))
	}
}

func (o openBLAS) Orgqr(a blas64.General, tau []float64) {
	m, n := a.Rows, a.Cols
	if m < n {
		panic(fmt.Sprintf("backend: Orgqr: A is %d×%d, need rows ≥ cols", m, n))
	}
	k := len(tau)
	if k > n {
		panic(fmt.Sprintf("backend: Orgqr: %d reflectors for %d columns", k, n))
	}
	if o.small(float64(n), lapackThreshold) || n == 0 {
		PureGo.Orgqr(a, tau)
		return
	}
	checkGeneral("Orgqr: A", a, m, n)
	var wq C.double
	s := acquire(o.direct || threadedLAPACK(n))
	defer release(s)
	if info := C.LAPACKE_dorglq_work(C.LAPACK_COL_MAJOR, cint(n), cint(m), cint(k), ptr(a.Data), cint(a.Stride), ptr(tau), &wq, -1); info != 0 {
		panic(lapackErr("dorglq", info, n))
	}
	work := make([]float64, max(1, int(wq)))
	if info := C.LAPACKE_dorglq_work(C.LAPACK_COL_MAJOR, cint(n), cint(m), cint(k), ptr(a.Data), cint(a.Stride), ptr(tau), ptr(work), cint(len(work))); info != 0 {
		panic(lapackErr("dorglq", info, n))
	}
}
