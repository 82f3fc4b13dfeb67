package backend

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Products that can be cancelled. One Gemm or Syrk of the sizes the
// engine meets (a 4096-feature covariance of 400 faces, τ(D_G)·X for
// 10⁴ points) runs for seconds in one call; GemmCtx and SyrkCtx split the
// output into panels of rows of at most panelWork flam (at least minRows
// rows, so the library keeps its speed) and check ctx before each. The
// split depends only on the shapes and the backend, never on the number
// of threads, so results stay reproducible; they may differ in the last
// bits from one call.

const minRows = 4

// panelRows is the number of output rows per panel of a product whose
// rows cost perRow flam each.
func panelRows(impl Impl, perRow float64) int {
	return max(minRows, int(panelWork(impl)/max(perRow, 1)))
}

// GemmCtx is impl.Gemm that checks ctx between panels of rows of c; it
// returns an error wrapping ctx.Err() when cancelled (c then holds a
// partial result).
func GemmCtx(ctx context.Context, impl Impl, tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) error {
	k := a.Cols
	if tA != blas.NoTrans {
		k = a.Rows
	}
	m := c.Rows
	rows := panelRows(impl, float64(c.Cols)*float64(k))
	for i0 := 0; i0 < m; i0 += rows {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("backend: product cancelled: %w", err)
		}
		i1 := min(m, i0+rows)
		var ap blas64.General // rows i0:i1 of op(A)
		if tA == blas.NoTrans {
			ap = sub(a, i0, i1, 0, a.Cols)
		} else {
			ap = sub(a, 0, a.Rows, i0, i1)
		}
		impl.Gemm(tA, tB, alpha, ap, b, beta, sub(c, i0, i1, 0, c.Cols))
	}
	return nil
}

// SyrkCtx is impl.Syrk (the triangle c.Uplo of C = alpha·op(A)·op(A)ᵀ +
// beta·C) that checks ctx between panels of rows of c: each panel is a
// Syrk of its diagonal block and a Gemm of the rest of its rows within the
// triangle.
func SyrkCtx(ctx context.Context, impl Impl, t blas.Transpose, alpha float64, a blas64.General, beta float64, c blas64.Symmetric) error {
	n, k := c.N, a.Cols
	if t != blas.NoTrans {
		k = a.Rows
	}
	// rowsOf returns the rows i0:i1 of op(A) in the form Syrk and Gemm take.
	rowsOf := func(i0, i1 int) blas64.General {
		if t == blas.NoTrans {
			return sub(a, i0, i1, 0, a.Cols)
		}
		return sub(a, 0, a.Rows, i0, i1)
	}
	tB := blas.Trans
	if t != blas.NoTrans {
		tB = blas.NoTrans
	}
	full := blas64.General{Rows: n, Cols: n, Stride: c.Stride, Data: c.Data}
	rows := panelRows(impl, float64(n)*float64(k)/2)
	for i0 := 0; i0 < n; i0 += rows {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("backend: product cancelled: %w", err)
		}
		i1 := min(n, i0+rows)
		impl.Syrk(t, alpha, rowsOf(i0, i1), beta, blas64.Symmetric{N: i1 - i0, Stride: c.Stride, Uplo: c.Uplo, Data: c.Data[i0*c.Stride+i0:]})
		if c.Uplo == blas.Upper && i1 < n {
			impl.Gemm(t, tB, alpha, rowsOf(i0, i1), rowsOf(i1, n), beta, sub(full, i0, i1, i1, n))
		}
		if c.Uplo == blas.Lower && i0 > 0 {
			impl.Gemm(t, tB, alpha, rowsOf(i0, i1), rowsOf(0, i0), beta, sub(full, i0, i1, 0, i0))
		}
	}
	return nil
}
