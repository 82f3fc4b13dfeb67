package backend

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
)

// Dense symmetric eigenproblems that can be cancelled. One LAPACK call
// cannot be interrupted: OpenBLAS's dsyevr of a 2000×2000 matrix runs for
// about 0.8 s on 2 cores, during which a cancelled context goes unnoticed.
// EigTopCtx, EigBottomCtx and EigRangeCtx call a C backend's Syevr directly
// while it ends within about 50 ms (directEig), and otherwise, and always on
// the pure-Go backend (whose Syevr is this path), do the work in pieces with
// ctx checked between them:
//
//   - the Householder reduction to tridiagonal form (2/3·n³ flam) in panels
//     of 32 columns, each column and each block of the trailing update
//     between two checks of ctx (sytrd.go);
//   - the selected eigenpairs of the tridiagonal matrix by bisection and
//     inverse iteration (tridiag.go, as the pure-Go Syevr), O(n) per
//     eigenpair and step;
//   - the back-transformation by the reflectors (2·n²·k flam) in blocks
//     of 32 reflectors (compact WY, the products in the backend's Gemm),
//     each over blocks of columns of at most panelWork (sytrd.go).
//
// The results satisfy the same contract as Syevr (residuals and
// orthogonality at working accuracy, the sign convention of FixSigns), not
// bit equality with it.

// panelFlam bounds the work between two checks of ctx: about 20 ms at the
// pure-Go backend's 1.5 GFLAM/s.
const panelFlam = 3e7

// panelWork is the flam of one piece of work between two checks of ctx
// (a block of the trailing update of the reduction, of a distance tile):
// panelFlam for the pure-Go backend; three times that when it runs in the
// C library, whose Gemm calls then stay efficient.
func panelWork(impl Impl) float64 {
	if impl.Name() == "purego" {
		return panelFlam
	}
	return 3 * panelFlam
}

// directEig reports whether a C backend's Syevr of k eigenpairs of an n×n
// matrix (2/3·n³ + 2·n²·k flam) ends within about 50 ms on the 2-core
// reference machine (OpenBLAS: 34 ms for n = 800), so that it runs as one
// call. Never for the pure-Go backend: its Syevr is the cancellable path
// itself (eigRangeReduced), which then checks ctx at every size.
func directEig(impl Impl, n, k int) bool {
	if impl.Name() == "purego" {
		return false
	}
	fn := float64(n)
	return 2*fn*fn*fn/3+2*fn*fn*float64(k) <= 4e8
}

// EigTopCtx returns the k algebraically largest eigenpairs of the
// symmetric a, values in descending order, vectors as the columns of the
// n×k result, by index range: never the full decomposition. a is
// destroyed. It can be cancelled (see above): it returns an error wrapping
// ctx.Err() when ctx is cancelled before it ends.
func EigTopCtx(ctx context.Context, impl Impl, a blas64.Symmetric, k int) ([]float64, blas64.General, error) {
	w, z, err := EigRangeCtx(ctx, impl, a, a.N-k, a.N)
	if err != nil {
		return nil, z, err
	}
	reversePairs(w, z)
	return w, z, nil
}

// EigBottomCtx returns the k algebraically smallest eigenpairs of the
// symmetric a, values in ascending order, vectors as columns; a is
// destroyed. It can be cancelled, as EigTopCtx.
func EigBottomCtx(ctx context.Context, impl Impl, a blas64.Symmetric, k int) ([]float64, blas64.General, error) {
	return EigRangeCtx(ctx, impl, a, 0, k)
}

// EigRangeCtx returns the eigenpairs lo, …, hi−1 (ascending positions) of
// the symmetric a: values ascending, vectors as the columns of the n×k
// result (k = hi − lo). a is destroyed. Cancellable; see above.
func EigRangeCtx(ctx context.Context, impl Impl, a blas64.Symmetric, lo, hi int) ([]float64, blas64.General, error) {
	n := a.N
	if lo < 0 || hi > n || lo > hi {
		panic(fmt.Sprintf("backend: eigenpairs [%d,%d) of a %d×%d matrix", lo, hi, n, n))
	}
	if err := ctx.Err(); err != nil {
		return nil, blas64.General{}, cancelled(err)
	}
	k := hi - lo
	w := make([]float64, k)
	z := blas64.General{Rows: n, Cols: k, Stride: max(1, k), Data: make([]float64, n*k)}
	if directEig(impl, n, k) || k == 0 {
		if err := impl.Syevr(a, lo, hi, w, z); err != nil {
			return nil, z, err
		}
		return w, z, ctx.Err()
	}
	if err := eigRangeReduced(ctx, impl, "EigRangeCtx: A", a, lo, hi, w, z); err != nil {
		return nil, z, err
	}
	return w, z, nil
}

// eigRangeReduced computes the eigenpairs lo, …, hi−1 of a into w and the
// columns of z (n×k) by the steps above; a is destroyed. It is the pure-Go
// Syevr too (ctx never cancelled there).
func eigRangeReduced(ctx context.Context, impl Impl, what string, a blas64.Symmetric, lo, hi int, w []float64, z blas64.General) error {
	n, k := a.N, hi-lo
	if err := checkFiniteSym(what, a); err != nil {
		return err
	}
	scale := pow2Scale(a)
	full := symToLower(a, 1)
	lda := a.Stride
	d := make([]float64, n)
	e := make([]float64, max(0, n-1))
	tau := make([]float64, max(0, n-1))
	if err := sytrdLowerCtx(ctx, impl, n, full, lda, d, e, tau); err != nil {
		return err
	}
	zt := make([]float64, k*n)
	if err := tridiagRangeCtx(ctx, d, e, lo, hi, scale, w, zt); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return cancelled(err)
	}
	for i := 0; i < n; i++ {
		row := z.Data[i*z.Stride : i*z.Stride+k]
		for j := range row {
			row[j] = zt[j*n+i]
		}
	}
	// Q = diag(1, Q̃), Q̃ the reflectors in A[1:, 0:n−1].
	if n > 1 {
		c := blas64.General{Rows: n - 1, Cols: k, Stride: z.Stride, Data: z.Data[z.Stride:]}
		if err := applyReflectorsCtx(ctx, impl, full[lda:], lda, tau, c); err != nil {
			return err
		}
	}
	FixSigns(blas64.General{Rows: n, Cols: k, Stride: z.Stride, Data: z.Data})
	return nil
}

func cancelled(err error) error { return fmt.Errorf("backend: eigensolver cancelled: %w", err) }
