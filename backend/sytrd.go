package backend

import (
	"context"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The cancellable Householder reduction to tridiagonal form, blocked as
// LAPACK's DSYTRD (uplo Lower) and built on the backend's own Level-2 and
// Level-3 calls, so that the C backend's panels run in the C library:
//
//   - a panel of nb columns (dlatrdLower, LAPACK's DLATRD): per column two
//     Gemv updates, the reflector, one Symv with the trailing matrix (the
//     memory-bound half of the 2/3·n³ flam) and four thin Gemv corrections;
//     ctx is checked before each column;
//   - the rank-2·nb update of the lower triangle of the trailing matrix,
//     A22 −= V·Wᵀ + W·Vᵀ, in blocks of rows of at most panelWork flam (two
//     Gemm calls each), ctx checked before each block.
//
// Gonum's Dlatrd, which this replaced, hands Dsymv the column of A as a
// vector of stride lda (a cache line per element, row-major), and the panel
// bound of the old code shrank the panel width to 2–3 columns at n ≥ 1500,
// so that the trailing update ran as hundreds of thin rank-4 passes over
// the matrix. Three leading eigenpairs of a random symmetric matrix on the
// 2-core reference machine (BenchmarkEigTopCtx, medians of 3; the old code
// from commit 7b1b135): OpenBLAS n = 1500 0.88 s → 0.41 s, n = 3000
// 21.8 s → 2.80 s (its one-call dsyevr: 0.18 s, 1.57 s); pure Go n = 3000
// 23.1 s → 7.4 s (gonum's one-call Syevr then: 20.6 s), and in a throw-away
// benchmark of the same call (2 runs) n = 1000 0.76 s → 0.36 s, n = 2000
// 10.3 s → 2.0 s. Here the column is copied into a contiguous vector first
// and the panel keeps its 32 columns.

// sytrdNB is the panel width of the reduction, LAPACK's default for DSYTRD.
const sytrdNB = 32

// sytrdLowerCtx reduces the symmetric matrix held in the lower triangle of
// the row-major n×n a (stride lda) to tridiagonal form T = Qᵀ·A·Q, as
// LAPACK's DSYTRD with uplo Lower does: diagonal d, off-diagonal e, the
// reflectors below the subdiagonal of a with their factors in tau. Only the
// lower triangle is read (the update also writes the upper half of its
// diagonal blocks, which nothing reads). It checks ctx before each column
// of a panel and before each block of the trailing update.
func sytrdLowerCtx(ctx context.Context, impl Impl, n int, a []float64, lda int, d, e, tau []float64) error {
	const tail = 32 // the last columns are reduced unblocked (DSYTD2)
	w := make([]float64, n*sytrdNB)
	scratch := make([]float64, 2*n+sytrdNB)
	trans := make([]float64, 2*sytrdNB*n)
	i := 0
	for n-i > tail {
		m := n - i
		nb := min(sytrdNB, m-tail)
		at := a[i*lda+i:]
		if err := dlatrdLower(ctx, impl, m, nb, at, lda, e[i:], tau[i:], w, scratch); err != nil {
			return err
		}
		// A22 −= V·Wᵀ + W·Vᵀ on the lower triangle, by blocks of rows
		// [r0, r1) against columns [0, r1).
		r := m - nb
		v := at[nb*lda:]
		wm := w[nb*sytrdNB:]
		c := at[nb*lda+nb:]
		// Vᵀ and Wᵀ (nb×r) as rows: the Gemm calls then run as NoTrans·NoTrans,
		// axpy rows in gonum (its NoTrans·Trans form is a dot product of
		// length nb per element, twice as slow).
		vt, wt := trans[:nb*r], trans[nb*r:2*nb*r]
		for q := 0; q < r; q++ {
			for k, x := range v[q*lda : q*lda+nb] {
				vt[k*r+q] = x
			}
			for k, x := range wm[q*sytrdNB : q*sytrdNB+nb] {
				wt[k*r+q] = x
			}
		}
		h := max(16, int(panelWork(impl)/(4*float64(r)*float64(nb))))
		for r0 := 0; r0 < r; r0 += h {
			if err := ctx.Err(); err != nil {
				return cancelled(err)
			}
			r1 := min(r, r0+h)
			vb := blas64.General{Rows: r1 - r0, Cols: nb, Stride: lda, Data: v[r0*lda:]}
			wb := blas64.General{Rows: r1 - r0, Cols: nb, Stride: sytrdNB, Data: wm[r0*sytrdNB:]}
			vtl := blas64.General{Rows: nb, Cols: r1, Stride: r, Data: vt}
			wtl := blas64.General{Rows: nb, Cols: r1, Stride: r, Data: wt}
			cb := blas64.General{Rows: r1 - r0, Cols: r1, Stride: lda, Data: c[r0*lda:]}
			impl.Gemm(blas.NoTrans, blas.NoTrans, -1, vb, wtl, 1, cb)
			impl.Gemm(blas.NoTrans, blas.NoTrans, -1, wb, vtl, 1, cb)
		}
		for j := i; j < i+nb; j++ {
			a[(j+1)*lda+j] = e[j]
			d[j] = a[j*lda+j]
		}
		i += nb
	}
	if err := ctx.Err(); err != nil {
		return cancelled(err)
	}
	goLAPACK.Dsytd2(blas.Lower, n-i, a[i*lda+i:], lda, d[i:], e[i:], tau[i:])
	return nil
}

// dlatrdLower reduces the first nb columns of the m×m symmetric lower
// triangle of a (row-major, stride lda) as LAPACK's DLATRD with uplo Lower:
// the reflectors go below the subdiagonal of those columns (with 1 on the
// subdiagonal itself, as DLATRD leaves it), their factors into tau and the
// off-diagonal into e; w (m×nb, stride sytrdNB) receives W with
// A22 − V·Wᵀ − W·Vᵀ the trailing matrix after them. scratch holds at least
// 2·m + nb values.
func dlatrdLower(ctx context.Context, impl Impl, m, nb int, a []float64, lda int, e, tau, w, scratch []float64) error {
	const ldw = sytrdNB
	col, wcol, tmp := scratch[:m], scratch[m:2*m], scratch[2*m:2*m+nb]
	for i := 0; i < nb; i++ {
		if err := ctx.Err(); err != nil {
			return cancelled(err)
		}
		// A(i:m, i) −= A(i:m, 0:i)·W(i, 0:i)ᵀ + W(i:m, 0:i)·A(i, 0:i)ᵀ, on a
		// contiguous copy of the column.
		mi := m - i
		c := col[:mi]
		for r := range c {
			c[r] = a[(i+r)*lda+i]
		}
		if i > 0 {
			cv := blas64.Vector{N: mi, Inc: 1, Data: c}
			impl.Gemv(blas.NoTrans, -1, blas64.General{Rows: mi, Cols: i, Stride: lda, Data: a[i*lda:]},
				blas64.Vector{N: i, Inc: 1, Data: w[i*ldw : i*ldw+i]}, 1, cv)
			impl.Gemv(blas.NoTrans, -1, blas64.General{Rows: mi, Cols: i, Stride: ldw, Data: w[i*ldw:]},
				blas64.Vector{N: i, Inc: 1, Data: a[i*lda : i*lda+i]}, 1, cv)
		}
		if mi == 1 {
			a[i*lda+i] = c[0]
			continue
		}
		// The reflector H(i) that annihilates A(i+2:m, i).
		beta, t := goLAPACK.Dlarfg(mi-1, c[1], c[2:mi], 1)
		e[i], tau[i] = beta, t
		c[1] = 1
		for r := range c {
			a[(i+r)*lda+i] = c[r]
		}
		// W(i+1:m, i) = τ·(A22·v − A(i+1:m, 0:i)·(W(i+1:m, 0:i)ᵀ·v)
		//   − W(i+1:m, 0:i)·(A(i+1:m, 0:i)ᵀ·v)), then −½·τ·(wᵀv)·v added.
		mv := mi - 1
		v := blas64.Vector{N: mv, Inc: 1, Data: c[1:mi]}
		wc := blas64.Vector{N: mv, Inc: 1, Data: wcol[:mv]}
		impl.Symv(1, blas64.Symmetric{N: mv, Stride: lda, Uplo: blas.Lower, Data: a[(i+1)*lda+i+1:]}, v, 0, wc)
		if i > 0 {
			ai := blas64.General{Rows: mv, Cols: i, Stride: lda, Data: a[(i+1)*lda:]}
			wi := blas64.General{Rows: mv, Cols: i, Stride: ldw, Data: w[(i+1)*ldw:]}
			tv := blas64.Vector{N: i, Inc: 1, Data: tmp[:i]}
			impl.Gemv(blas.Trans, 1, wi, v, 0, tv)
			impl.Gemv(blas.NoTrans, -1, ai, tv, 1, wc)
			impl.Gemv(blas.Trans, 1, ai, v, 0, tv)
			impl.Gemv(blas.NoTrans, -1, wi, tv, 1, wc)
		}
		dot := 0.0
		for r, x := range wc.Data {
			x *= t
			wc.Data[r] = x
			dot += x * v.Data[r]
		}
		alpha := -0.5 * t * dot
		for r, x := range v.Data {
			w[(i+1+r)*ldw+i] = wc.Data[r] + alpha*x
		}
	}
	return nil
}

// applyReflectorsCtx sets C = Q·C for the m×k C, Q = H(0)·H(1)·…·H(m−1)
// the product of the reflectors stored as a QR factorization stores them
// (row-major): H(j) = I − τ_j·v·vᵀ, v_j = 1, v below it in column j of v
// (stride ldv). This is LAPACK's DORMQR (Left, NoTrans) by blocks of
// sytrdNB reflectors, last block first, each applied in compact WY form
// (Schreiber & Van Loan, SIAM J. Sci. Stat. Comput. 10(1), 1989):
// C −= V·(T·(Vᵀ·C)), the two large products in the backend's Gemm, over
// blocks of columns of at most panelWork flam with ctx checked before
// each.
func applyReflectorsCtx(ctx context.Context, impl Impl, v []float64, ldv int, tau []float64, c blas64.General) error {
	m, k := c.Rows, c.Cols
	if m == 0 || k == 0 {
		return nil
	}
	nb := sytrdNB
	vb := make([]float64, m*nb)
	t := make([]float64, nb*nb)
	w := make([]float64, nb*k)
	tw := make([]float64, nb*k)
	last := (m - 1) / nb * nb
	for j0 := last; j0 >= 0; j0 -= nb {
		jb := min(nb, m-j0)
		mr := m - j0
		unitLowerBlock(vb, v[j0*ldv+j0:], ldv, mr, jb)
		larftForward(mr, jb, vb, tau[j0:], t)
		vg := blas64.General{Rows: mr, Cols: jb, Stride: jb, Data: vb}
		tg := blas64.General{Rows: jb, Cols: jb, Stride: jb, Data: t}
		kc := max(1, min(k, int(panelWork(impl)/(4*float64(mr)*float64(jb)))))
		for c0 := 0; c0 < k; c0 += kc {
			if err := ctx.Err(); err != nil {
				return cancelled(err)
			}
			cw := min(kc, k-c0)
			cb := blas64.General{Rows: mr, Cols: cw, Stride: c.Stride, Data: c.Data[j0*c.Stride+c0:]}
			wg := blas64.General{Rows: jb, Cols: cw, Stride: cw, Data: w[:jb*cw]}
			twg := blas64.General{Rows: jb, Cols: cw, Stride: cw, Data: tw[:jb*cw]}
			impl.Gemm(blas.Trans, blas.NoTrans, 1, vg, cb, 0, wg)
			impl.Gemm(blas.NoTrans, blas.NoTrans, 1, tg, wg, 0, twg)
			impl.Gemm(blas.NoTrans, blas.NoTrans, -1, vg, twg, 1, cb)
		}
	}
	return nil
}

// unitLowerBlock sets dst (mr×jb, stride jb) to the explicit unit lower
// trapezoidal V of a block of reflectors stored below the diagonal of v
// (row stride ldv, the block's first element at v[0]): V's entries below
// the diagonal, ones on it, zeros above.
func unitLowerBlock(dst, v []float64, ldv, mr, jb int) {
	for i := 0; i < mr; i++ {
		row := dst[i*jb : (i+1)*jb]
		src := v[i*ldv:]
		for j := range row {
			switch {
			case j < i:
				row[j] = src[j]
			case j == i:
				row[j] = 1
			default:
				row[j] = 0
			}
		}
	}
}

// larftForward forms the jb×jb upper triangular T of the block reflector
// H = I − V·T·Vᵀ = H₀·H₁·…·H_{jb−1} (LAPACK's DLARFT, forward, columnwise)
// from the mr×jb unit lower trapezoidal V (row-major, stride jb) and tau:
// T(0:i, i) = −τᵢ·T(0:i, 0:i)·V(:, 0:i)ᵀ·vᵢ over every row, T(i, i) = τᵢ.
// gonum's Dlarft (v0.17) cannot be used here: it shortens those products
// to the rows where the earlier reflectors are non-zero, and after the
// second reflector it keeps only that reflector's last non-zero row
// (LAPACK's "I > 1" test, written 1-based, kept as "i > 1" 0-based), so a
// reflector reaching further down than the second is cut off — a Q that
// is not orthogonal, met on the covariance of duplicated rows (QᵀQ − I of
// 0.24 for 100 rows of 10 features, one of them apart from the others).
func larftForward(mr, jb int, v, tau, t []float64) {
	clear(t[:jb*jb])
	bi := blas64.Implementation()
	for i := 0; i < jb; i++ {
		if tau[i] == 0 {
			continue // H_i = I: its column of T is zero
		}
		if i > 0 {
			// t(0:i, i) = −τᵢ·V(i:, 0:i)ᵀ·V(i:, i) (V is zero above its
			// unit diagonal), then T(0:i, 0:i)·t(0:i, i).
			bi.Dgemv(blas.Trans, mr-i, i, -tau[i], v[i*jb:], jb, v[i*jb+i:], jb, 0, t[i:], jb)
			bi.Dtrmv(blas.Upper, blas.NoTrans, blas.NonUnit, i, t, jb, t[i:], jb)
		}
		t[i*jb+i] = tau[i]
	}
}
