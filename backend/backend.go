package backend

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Impl is the set of dense kernels a backend provides. All matrices are
// row-major gonum blas64 values; a Stride larger than Cols is allowed
// everywhere.
//
// The BLAS methods follow the BLAS definitions and panic on shape mismatch,
// as gonum's blas64 does: a mismatch is a programmer error. NaN and Inf in
// the operands propagate as IEEE arithmetic says; the BLAS methods do not scan
// for them.
//
// The LAPACK methods scan their input and return an error wrapping
// ErrNotFinite when it holds NaN or Inf (the result would otherwise be
// silently wrong or the iteration would not terminate), ErrNotConverged when
// an iteration fails, and ErrNotPositiveDefinite when a Cholesky factor does
// not exist. They overwrite their input matrices as documented per method.
type Impl interface {
	// Name is "purego" or "openblas".
	Name() string

	// Gemm computes C = alpha·op(A)·op(B) + beta·C.
	Gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General)
	// Syrk computes C = alpha·A·Aᵀ + beta·C (t == NoTrans) or
	// C = alpha·Aᵀ·A + beta·C (t == Trans), updating only the triangle c.Uplo.
	Syrk(t blas.Transpose, alpha float64, a blas64.General, beta float64, c blas64.Symmetric)
	// Symm computes C = alpha·A·B + beta·C (side Left) or C = alpha·B·A + beta·C
	// (side Right) with A symmetric, read from its triangle a.Uplo.
	Symm(side blas.Side, alpha float64, a blas64.Symmetric, b blas64.General, beta float64, c blas64.General)
	// Gemv computes y = alpha·op(A)·x + beta·y.
	Gemv(t blas.Transpose, alpha float64, a blas64.General, x blas64.Vector, beta float64, y blas64.Vector)
	// Symv computes y = alpha·A·x + beta·y with A symmetric.
	Symv(alpha float64, a blas64.Symmetric, x blas64.Vector, beta float64, y blas64.Vector)

	// Syevd computes all eigenvalues of the symmetric A, in ascending order,
	// into w (len n). If vectors is true, A is overwritten by the orthonormal
	// eigenvectors stored as columns (column j belongs to w[j]) and the
	// full matrix is written, not only the triangle a.Uplo. Otherwise the
	// contents of A are destroyed.
	Syevd(a blas64.Symmetric, w []float64, vectors bool) error
	// Syevr computes the eigenpairs lo, lo+1, …, hi-1 (0-based positions in
	// the ascending order of all n eigenvalues) of the symmetric A: values into
	// w[:hi-lo] ascending and orthonormal vectors into the columns of the
	// n×(hi-lo) matrix z. A is destroyed. The cost is one tridiagonal
	// reduction (2/3·n³ flam) plus O(n·(hi-lo)) per eigenpair and n²·(hi-lo)
	// for the back transformation; the full decomposition is never paid for.
	Syevr(a blas64.Symmetric, lo, hi int, w []float64, z blas64.General) error
	// Sygvd solves the symmetric-definite generalized eigenproblem
	// A·x = λ·B·x for all eigenpairs. w (len n) receives the eigenvalues in
	// ascending order, A is overwritten by the eigenvectors as columns,
	// normalised so that XᵀBX = I, and B by its Cholesky factor in its
	// triangle b.Uplo. B must be positive definite (ErrNotPositiveDefinite).
	Sygvd(a, b blas64.Symmetric, w []float64) error
	// Gesdd computes the thin singular value decomposition A = U·diag(s)·Vᵀ of
	// the m×n A with k = min(m, n): s (len k) descending, u m×k, vt k×n. If
	// u.Rows == 0 and vt.Rows == 0 only the singular values are computed. A is
	// destroyed.
	Gesdd(a blas64.General, s []float64, u, vt blas64.General) error
	// Potrf computes the Cholesky factor of the symmetric positive definite A
	// in place in its triangle a.Uplo: A = L·Lᵀ (Lower) or A = Uᵀ·U (Upper).
	Potrf(a blas64.Symmetric) error
	// Potrs solves A·X = B for X in place of B, given the factor from Potrf.
	Potrs(factor blas64.Symmetric, b blas64.General)
	// Geqrf computes the QR factorization of the m×n A in place: R in the
	// upper triangle, the Householder reflectors below it and in tau
	// (len min(m, n)).
	Geqrf(a blas64.General, tau []float64)
	// Orgqr overwrites the m×n A (m ≥ n), holding reflectors from Geqrf, with
	// the first n columns of Q.
	Orgqr(a blas64.General, tau []float64)
}

// Errors returned (wrapped) by the LAPACK methods and the kernels.
var (
	// ErrNotFinite: an input holds NaN or ±Inf.
	ErrNotFinite = errors.New("backend: input holds NaN or Inf")
	// ErrNotConverged: an iterative decomposition did not converge.
	ErrNotConverged = errors.New("backend: decomposition did not converge")
	// ErrNotPositiveDefinite: a Cholesky factorization broke down.
	ErrNotPositiveDefinite = errors.New("backend: matrix is not positive definite")
)

// PureGo is the pure-Go backend: gonum's Go BLAS and LAPACK where gonum has
// the routine, our own Go code where it does not. It is always compiled in.
var PureGo Impl = pureGo{}

// Active returns the backend the process uses: OpenBLAS when built with
// `-tags openblas`, otherwise PureGo.
func Active() Impl { return active }

// Local returns the backend for the small products a parallel loop
// computes per point or per block of columns (LLE's local Gram matrices,
// TDPM's tangent spaces, the chunks of the Lanczos basis products, the
// projected eigenproblems of the iterative solvers): the pure-Go kernels in
// every build. There a C call would hold a slot of the thread-budget
// semaphore that the loop's other goroutines wait on and cost more to set
// up than its arithmetic (BenchmarkDispatch), and its results could depend
// on the C library's threads; the Go kernels give the same bits at any
// GOMAXPROCS, which the engine's determinism rests on, and in every build
// up to the size where gonum's LAPACK inside them hands a level-3 step to
// the C library in the openblas build (32³ flam, gonumDispatch: a projected
// eigenproblem of some hundreds of columns, not a point's k×k system).
func Local() Impl { return PureGo }

// Native reports whether impl runs its products in a native library with
// threads of its own (OpenBLAS). A solver hands such a backend whole
// blocks (one Gemm or Gemv) and otherwise splits its products over
// goroutines itself, with the deterministic kernels of Local.
func Native(impl Impl) bool {
	n, ok := impl.(interface{ native() bool })
	return ok && n.native()
}

// Impls returns every backend compiled into this binary, PureGo first. The
// conformance suite runs against each.
func Impls() []Impl {
	if active == PureGo {
		return []Impl{PureGo}
	}
	return []Impl{PureGo, active}
}

// checkFinite returns an error wrapping ErrNotFinite naming what when a
// row-major r×c block with stride holds NaN or Inf.
func checkFinite(what string, data []float64, r, c, stride int) error {
	for i := 0; i < r; i++ {
		row := data[i*stride : i*stride+c]
		for j, v := range row {
			if v-v != 0 { // NaN or ±Inf
				return fmt.Errorf("%w: %s[%d,%d] = %v", ErrNotFinite, what, i, j, v)
			}
		}
	}
	return nil
}

// checkFiniteSym is checkFinite for the stored triangle of a symmetric matrix.
func checkFiniteSym(what string, a blas64.Symmetric) error {
	for i := 0; i < a.N; i++ {
		lo, hi := 0, i+1
		if a.Uplo == blas.Upper {
			lo, hi = i, a.N
		}
		for j := lo; j < hi; j++ {
			if v := a.Data[i*a.Stride+j]; v-v != 0 {
				return fmt.Errorf("%w: %s[%d,%d] = %v", ErrNotFinite, what, i, j, v)
			}
		}
	}
	return nil
}
