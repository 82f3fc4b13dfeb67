// Package backend holds the dense kernels every method stands on, behind a
// narrow interface the project owns (Impl), with two implementations:
//
//   - PureGo, the default build (CGO_ENABLED=0 works): gonum's Go BLAS and
//     LAPACK where gonum has the routine, our own Go code where it does not.
//   - OpenBLAS + LAPACKE, with `-tags openblas` (cgo; Debian packages
//     libopenblas-dev and liblapacke-dev, linked through pkg-config). The tag
//     without cgo is a compile error, never a silent fallback. Under the tag
//     the C BLAS is also registered with gonum (blas64.Use), so gonum's own
//     Go code — its LAPACK, gonum/mat — runs on it too.
//
// All cgo and build tags of the project live in this package and nowhere
// else. Every kernel is row-major; a row stride larger than the column count
// is allowed everywhere.
//
// # The interface
//
// Impl has the BLAS calls the methods make (Gemm, Syrk, Symm, Gemv, Symv;
// Dot, Axpy, Nrm2 and Scal stay in Go, where a cgo call would cost more than
// the work) and the LAPACK calls (Syevd, Syevr by index range, Sygvd,
// Gesdd, Potrf/Potrs, Geqrf/Orgqr). On top of Impl sit the dedicated hot
// kernels, shared by both backends: SqDistCtx (squared Euclidean distances
// between row blocks, ‖x‖² + ‖y‖² − 2XYᵀ, tiled, clamped at 0, exactly 0
// for identical rows), DoubleCenterCtx (in-place −½·H·S·H) and EigTopCtx /
// EigBottomCtx (a few extreme eigenpairs by index range).
//
// # What the pure-Go LAPACK routines cost
//
// gonum has no DSYEVR, DSYGVD or DGESDD; the pure-Go backend builds them:
//
//   - Syevr: the blocked reduction to tridiagonal form of sytrd.go (2/3·n³
//     flam, half of it memory-bound Symv; the same code as the cancellable
//     EigRangeCtx), then bisection by Sturm counts for the selected eigenvalues
//     (about 60 steps of n flam each) and inverse iteration for their
//     vectors (2–5 steps of O(n), reorthogonalised twice within clusters of
//     eigenvalues closer than 10⁻³‖T‖: O(c·n) per vector in a cluster of
//     c), both in parallel, and the reflectors applied in compact WY
//     blocks for the back transformation (2·n²·k flam). This is LAPACK's
//     DSTEBZ + DSTEIN path (DSYEVX). For k ≪ n it costs the tridiagonal
//     reduction alone: 1.75 s for the top 10 of n = 2000 on a 2-core
//     machine (2026-11-21, with gonum's Dsytrd), against 23.8 s for
//     gonum's full mat.EigenSym (go run ./bench/tables/kernels -reference,
//     bench/RESULTS.md, which also has the 2026-11-26 figures).
//   - Syevd: gonum's Dsyev (implicit QL/QR, rotations accumulated into Q,
//     ≈ 9n³ flops, badly cached in row-major); prefer Syevr when you need
//     fewer than all eigenpairs.
//   - Sygvd: Cholesky of B, C = L⁻¹AL⁻ᵀ by two triangular solves (n³ flam),
//     Syevd of C, X = L⁻ᵀY (n³/2 flam).
//   - Gesdd: gonum's Dgesvd (QR iteration on the bidiagonal, with a QR
//     step first when m ≫ n), not divide and conquer.
//
// # Size dispatch
//
// A cgo call costs about 40 ns plus the C library's own start-up of its
// threads, so the OpenBLAS backend sends small calls to the pure-Go code.
// The thresholds (flam per call below which Go is used) are constants in
// openblas.go, measured by BenchmarkDispatch in bench/ and written down
// there with the figures. Products of a thin matrix with a vector (a
// Lanczos basis) also stay in Go, on the calling goroutine, so that no
// OpenBLAS worker competes with the Go work the caller runs beside them.
//
// # Thread budget
//
// One budget: goroutines × BLAS threads ≤ cores. SetThreads(n) sets the
// threads one C call may use (default GOMAXPROCS) and sizes a semaphore that
// caps concurrent cgo calls at max(1, GOMAXPROCS/n). A single large fit uses
// the default: each large BLAS call is parallel inside OpenBLAS and calls
// are serialised. Smaller calls — level-3 calls under 2.5e8 flam, level-2
// under 2²² entries, LAPACK routines under order 2048 — run on one thread
// whatever n: OpenBLAS's hand-over to its workers costs a scheduler slice
// each time when the cores are busy, and a LAPACK routine hands over at
// every inner call (a 300×300 eigensolve 2 ms alone, 0.8 s threaded beside
// three busy loops, 2 ms on one thread; figures in openblas.go). A service running many small fits on its own goroutines calls
// SetThreads(1): every call is single-threaded and GOMAXPROCS of them run at
// once. The pure-Go parallel loops (ParallelFor) use GOMAXPROCS goroutines
// and never hold a semaphore slot while they wait. OpenBLAS's idle worker
// threads spin for 2²⁸ cycles (about 0.1 s) after a threaded call by
// default, taking a core from the goroutines that run beside or after it;
// the OpenBLAS backend shortens that to 2²⁰ cycles at start unless
// OPENBLAS_THREAD_TIMEOUT is set (10,000-point Laplacian eigenmaps 86 → 73
// ms, LLE 226 → 194 ms, Isomap 1.62 → 1.50 s; openblas.go). Info reports the
// backend, the C library's configuration string and the thread counts;
// every stage report carries it.
//
// # Errors
//
// BLAS methods panic on shape mismatch (a programmer error, as in gonum) and
// propagate NaN. LAPACK methods and the kernels that take user data return
// errors: ErrNotFinite for NaN/Inf input, ErrNotConverged, and
// ErrNotPositiveDefinite, wrapped with the routine and sizes.
//
// The conformance suite in backendtest runs every kernel against every
// backend compiled in. Costs of every kernel, in flam, are in backend/flam.
package backend
