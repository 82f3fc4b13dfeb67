package backend

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Products that can be cancelled. One Gemm or Syrk of the sizes the
// engine meets (a 4096-feature covariance of 400 faces, τ(D_G)·X for
// 10⁴ points, the 256-feature covariance of 10⁶ rows) runs for seconds in
// one call; GemmCtx and SyrkCtx split it into pieces of at most panelWork
// flam and check ctx before each. They split the inner dimension k (the
// rows of a covariance) into chunks, the first scaling C by beta and the
// others adding to it, and the output into panels of rows (at least
// minRows rows, so the library keeps its speed): innerChunk says how.
// The split depends only on the shapes and the backend, never on the
// number of threads, so results stay reproducible; they may differ in the
// last bits from one call.

const (
	minRows  = 4
	minInner = 256
)

// panelRows is the number of output rows per panel of a product whose
// rows cost perRow flam each.
func panelRows(work, perRow float64) int {
	return max(minRows, int(work/max(perRow, 1)))
}

// innerChunk is the number of terms of the inner dimension k per pass of
// a product whose m output rows cost perTerm flam a term each: all of k
// when the product fits work. Else, with passes, when a pass over all m
// rows of at least minInner terms fits work, as many terms as fit (one
// panel a pass); without passes, all of k when panels of minRows rows
// over it fit; else at most minInner, the panels of rows then as tall as
// fit. Passes are for Gemm and for the Syrk of op(A) = Aᵀ, whose inner
// terms are A's rows: thin panels over all of k ran at a third of their
// speed on a covariance of 50,000 × 256 or 20,000 × 500 (both backends)
// and past the work bound on 10⁶ rows. The Syrk of A·Aᵀ reads its terms
// along A's rows, where thin panels are fast (pure Go: 39 ms for the Gram
// matrix of 400 × 4096 in panels over all of k, 59 ms in passes).
func innerChunk(work float64, m, k int, perTerm float64, passes bool) int {
	whole := float64(m) * perTerm // one term over all m rows
	switch {
	case whole*float64(k) <= work:
		return max(k, 1)
	case passes && whole*minInner <= work:
		return int(work / whole)
	case !passes && minRows*perTerm*float64(k) <= work:
		return k
	}
	return min(k, minInner)
}

// GemmCtx is impl.Gemm that checks ctx between pieces of the product
// (above); it returns an error wrapping ctx.Err() when cancelled (c then
// holds a partial result).
func GemmCtx(ctx context.Context, impl Impl, tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) error {
	return gemmPieces(ctx, impl, panelWork(impl), tA, tB, alpha, a, b, beta, c)
}

// gemmPieces is GemmCtx with pieces of at most work flam.
func gemmPieces(ctx context.Context, impl Impl, work float64, tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) error {
	k := a.Cols
	if tA != blas.NoTrans {
		k = a.Rows
	}
	m := c.Rows
	kc := innerChunk(work, m, k, float64(c.Cols), true)
	for k0 := 0; k0 == 0 || k0 < k; k0 += kc {
		k1 := min(k, k0+kc)
		ak, bk := innerTerms(a, tA, k0, k1, k), innerTerms(b, flip(tB), k0, k1, k)
		betaK := beta
		if k0 > 0 {
			betaK = 1
		}
		rows := panelRows(work, float64(c.Cols)*float64(k1-k0))
		for i0 := 0; i0 < m; i0 += rows {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("backend: product cancelled: %w", err)
			}
			i1 := min(m, i0+rows)
			impl.Gemm(tA, tB, alpha, opRows(ak, tA, i0, i1), bk, betaK, sub(c, i0, i1, 0, c.Cols))
		}
	}
	return nil
}

// flip is the other transposition.
func flip(t blas.Transpose) blas.Transpose {
	if t == blas.NoTrans {
		return blas.Trans
	}
	return blas.NoTrans
}

// innerTerms is the part of a that holds the inner terms k0:k1 of op(a),
// op(a) having k inner terms as columns: its columns when t is NoTrans,
// its rows otherwise; a itself when the range is all of k.
func innerTerms(a blas64.General, t blas.Transpose, k0, k1, k int) blas64.General {
	if k0 == 0 && k1 == k {
		return a
	}
	if t == blas.NoTrans {
		return sub(a, 0, a.Rows, k0, k1)
	}
	return sub(a, k0, k1, 0, a.Cols)
}

// opRows is the part of a that holds the rows i0:i1 of op(a).
func opRows(a blas64.General, t blas.Transpose, i0, i1 int) blas64.General {
	if t == blas.NoTrans {
		return sub(a, i0, i1, 0, a.Cols)
	}
	return sub(a, 0, a.Rows, i0, i1)
}

// SyrkCtx is impl.Syrk (the triangle c.Uplo of C = alpha·op(A)·op(A)ᵀ +
// beta·C) that checks ctx between pieces of the product (above): each
// panel is a Syrk of its diagonal block and a Gemm of the rest of its rows
// within the triangle.
func SyrkCtx(ctx context.Context, impl Impl, t blas.Transpose, alpha float64, a blas64.General, beta float64, c blas64.Symmetric) error {
	return syrkPieces(ctx, impl, panelWork(impl), t, alpha, a, beta, c)
}

// syrkPieces is SyrkCtx with pieces of at most work flam.
func syrkPieces(ctx context.Context, impl Impl, work float64, t blas.Transpose, alpha float64, a blas64.General, beta float64, c blas64.Symmetric) error {
	n, k := c.N, a.Cols
	if t != blas.NoTrans {
		k = a.Rows
	}
	tB := flip(t)
	full := blas64.General{Rows: n, Cols: n, Stride: c.Stride, Data: c.Data}
	kc := innerChunk(work, n, k, float64(n)/2, t != blas.NoTrans)
	for k0 := 0; k0 == 0 || k0 < k; k0 += kc {
		k1 := min(k, k0+kc)
		ak := innerTerms(a, t, k0, k1, k)
		betaK := beta
		if k0 > 0 {
			betaK = 1
		}
		rows := panelRows(work, float64(n)*float64(k1-k0)/2)
		for i0 := 0; i0 < n; i0 += rows {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("backend: product cancelled: %w", err)
			}
			i1 := min(n, i0+rows)
			impl.Syrk(t, alpha, opRows(ak, t, i0, i1), betaK, blas64.Symmetric{N: i1 - i0, Stride: c.Stride, Uplo: c.Uplo, Data: c.Data[i0*c.Stride+i0:]})
			if c.Uplo == blas.Upper && i1 < n {
				impl.Gemm(t, tB, alpha, opRows(ak, t, i0, i1), opRows(ak, t, i1, n), betaK, sub(full, i0, i1, i1, n))
			}
			if c.Uplo == blas.Lower && i0 > 0 {
				impl.Gemm(t, tB, alpha, opRows(ak, t, i0, i1), opRows(ak, t, 0, i0), betaK, sub(full, i0, i1, 0, i0))
			}
		}
	}
	return nil
}
