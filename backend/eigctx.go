package backend

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Dense symmetric eigenproblems that can be cancelled. One LAPACK call
// cannot be interrupted: Syevr of a 2000×2000 matrix runs for 2.7 s in
// pure Go and 0.8 s with OpenBLAS on 2 cores, during which a cancelled
// context goes unnoticed. EigTopCtx, EigBottomCtx and EigRangeCtx call the
// backend's Syevr directly while it ends within about 50 ms (directEig),
// and otherwise do the same work in pieces with ctx checked between them:
//
//   - the Householder reduction to tridiagonal form (2/3·n³ flam) in panels
//     of nb columns (LAPACK's DLATRD for the panel, then the rank-2·nb
//     update of the trailing matrix: Dsyr2k in pure Go, two Gemm calls of
//     the backend otherwise), nb chosen so that a panel is at most
//     panelFlam;
//   - the selected eigenpairs of the tridiagonal matrix by bisection and
//     inverse iteration (tridiag.go, as the pure-Go Syevr), O(n) per
//     eigenpair and step;
//   - the back-transformation by the reflectors (2·n²·k flam) in blocks
//     of columns of at most panelFlam.
//
// The results satisfy the same contract as Syevr (residuals and
// orthogonality at working accuracy, the sign convention of FixSigns), not
// bit equality with it.

// panelFlam bounds the work between two checks of ctx: about 20 ms at the
// pure-Go backend's 1.5 GFLAM/s.
const panelFlam = 3e7

// panelWork is the flam of one panel of the reduction: panelFlam for the
// pure-Go backend; three times that when the trailing update runs in the C
// library (the pure-Go panel, half the work at most, then takes ~40 ms), as
// wider panels make its Gemm calls efficient.
func panelWork(impl Impl) float64 {
	if impl.Name() == "purego" {
		return panelFlam
	}
	return 3 * panelFlam
}

// directEig reports whether the backend's Syevr of k eigenpairs of an n×n
// matrix (2/3·n³ + 2·n²·k flam) ends within about 50 ms on the 2-core
// reference machine (pure Go: 36 ms for n = 500, k = 3; OpenBLAS: 34 ms
// for n = 800), so that it runs as one call.
func directEig(impl Impl, n, k int) bool {
	limit := 8e7
	if impl.Name() != "purego" {
		limit = 4e8
	}
	fn := float64(n)
	return 2*fn*fn*fn/3+2*fn*fn*float64(k) <= limit
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
	if err := checkFiniteSym("EigRangeCtx: A", a); err != nil {
		return nil, z, err
	}
	scale := pow2Scale(a)
	full := symToLower(a, 1)
	lda := a.Stride
	d := make([]float64, n)
	e := make([]float64, n-1)
	tau := make([]float64, n-1)
	if err := sytrdLowerCtx(ctx, impl, n, full, lda, d, e, tau); err != nil {
		return nil, z, err
	}
	zt := make([]float64, k*n)
	if err := tridiagRangeCtx(ctx, d, e, lo, hi, scale, w, zt); err != nil {
		return nil, z, err
	}
	if err := ctx.Err(); err != nil {
		return nil, z, cancelled(err)
	}
	for i := 0; i < n; i++ {
		row := z.Data[i*z.Stride : i*z.Stride+k]
		for j := range row {
			row[j] = zt[j*n+i]
		}
	}
	// Q = diag(1, Q̃), Q̃ the reflectors in A[1:, 0:n−1]; applied to blocks
	// of columns of Z.
	cols := max(1, min(k, int(panelFlam/(2*float64(n)*float64(n)))))
	var work []float64
	for j0 := 0; j0 < k; j0 += cols {
		if err := ctx.Err(); err != nil {
			return nil, z, cancelled(err)
		}
		kc := min(cols, k-j0)
		c := z.Data[z.Stride+j0:]
		q := []float64{0}
		goLAPACK.Dormqr(blas.Left, blas.NoTrans, n-1, kc, n-1, full[lda:], lda, tau, c, z.Stride, q, -1)
		if len(work) < int(q[0]) {
			work = make([]float64, int(q[0]))
		}
		goLAPACK.Dormqr(blas.Left, blas.NoTrans, n-1, kc, n-1, full[lda:], lda, tau, c, z.Stride, work, len(work))
	}
	FixSigns(z)
	return w, z, nil
}

func cancelled(err error) error { return fmt.Errorf("backend: eigensolver cancelled: %w", err) }

// sytrdLowerCtx reduces the symmetric matrix held in the lower triangle of
// the row-major n×n a (stride lda) to tridiagonal form T = Qᵀ·A·Q, as
// LAPACK's DSYTRD with uplo Lower does: diagonal d, off-diagonal e, the
// reflectors below the subdiagonal of a with their factors in tau. It works
// in panels of at most panelFlam and checks ctx before each.
func sytrdLowerCtx(ctx context.Context, impl Impl, n int, a []float64, lda int, d, e, tau []float64) error {
	const (
		maxNB = 32
		tail  = 32 // the last columns are reduced unblocked (DSYTD2)
	)
	work := make([]float64, n*maxNB)
	i := 0
	for n-i > tail {
		if err := ctx.Err(); err != nil {
			return cancelled(err)
		}
		m := n - i
		nb := max(1, min(maxNB, m-tail, int(panelWork(impl)/(4*float64(m)*float64(m)))))
		// Panel: reflectors for columns i … i+nb−1, and W (m×nb) with
		// A22 − V·Wᵀ − W·Vᵀ the trailing matrix after them.
		goLAPACK.Dlatrd(blas.Lower, m, nb, a[i*lda+i:], lda, e[i:], tau[i:], work, nb)
		r := m - nb
		v := blas64.General{Rows: r, Cols: nb, Stride: lda, Data: a[(i+nb)*lda+i:]}
		wm := blas64.General{Rows: r, Cols: nb, Stride: nb, Data: work[nb*nb:]}
		c := blas64.General{Rows: r, Cols: r, Stride: lda, Data: a[(i+nb)*lda+i+nb:]}
		if impl.Name() == "purego" {
			blas64.Syr2k(blas.NoTrans, -1, v, wm, 1, blas64.Symmetric{N: r, Stride: lda, Uplo: blas.Lower, Data: c.Data})
		} else {
			impl.Gemm(blas.NoTrans, blas.Trans, -1, v, wm, 1, c)
			impl.Gemm(blas.NoTrans, blas.Trans, -1, wm, v, 1, c)
		}
		for j := i; j < i+nb; j++ {
			a[(j+1)*lda+j] = e[j]
			d[j] = a[j*lda+j]
		}
		i += nb
	}
	goLAPACK.Dsytd2(blas.Lower, n-i, a[i*lda+i:], lda, d[i:], e[i:], tau[i:])
	return nil
}
