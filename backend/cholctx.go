package backend

import (
	"context"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// cholBlock is the block size of CholUpperCtx and RightSolveUpperCtx.
const cholBlock = 128

// CholUpperCtx overwrites the upper triangle of the positive definite b
// (L×L, row-major) with R, b = RᵀR, by blocks: each diagonal block
// factored (Local().Potrf), its block row solved, the trailing matrix
// updated by impl's SyrkCtx, ctx checked between pieces. It returns an
// error wrapping ErrNotPositiveDefinite when a diagonal block is not
// positive definite, ctx's error when cancelled (b then partly
// overwritten).
func CholUpperCtx(ctx context.Context, impl Impl, b blas64.General) error {
	l := b.Rows
	for k0 := 0; k0 < l; k0 += cholBlock {
		k1 := min(l, k0+cholBlock)
		diag := blas64.Symmetric{N: k1 - k0, Stride: b.Stride, Uplo: blas.Upper, Data: b.Data[k0*b.Stride+k0:]}
		if err := Local().Potrf(diag); err != nil {
			return err
		}
		if k1 == l {
			break
		}
		rkk := blas64.Triangular{N: k1 - k0, Stride: b.Stride, Uplo: blas.Upper, Diag: blas.NonUnit, Data: b.Data[k0*b.Stride+k0:]}
		row := blas64.General{Rows: k1 - k0, Cols: l - k1, Stride: b.Stride, Data: b.Data[k0*b.Stride+k1:]}
		blas64.Trsm(blas.Left, blas.Trans, 1, rkk, row)
		trail := blas64.Symmetric{N: l - k1, Stride: b.Stride, Uplo: blas.Upper, Data: b.Data[k1*b.Stride+k1:]}
		if err := SyrkCtx(ctx, impl, blas.Trans, -1, row, 1, trail); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// RightSolveUpperCtx overwrites m (rows × r.N) with m·R⁻¹, R upper
// triangular, by block columns: each the block less the product (impl's
// GemmCtx) of the columns solved before with R's block above the
// diagonal, then solved by the diagonal block; ctx's error when
// cancelled.
func RightSolveUpperCtx(ctx context.Context, impl Impl, m blas64.General, r blas64.Triangular) error {
	l := m.Rows
	for j0 := 0; j0 < r.N; j0 += cholBlock {
		j1 := min(r.N, j0+cholBlock)
		panel := blas64.General{Rows: l, Cols: j1 - j0, Stride: m.Stride, Data: m.Data[j0:]}
		if j0 > 0 {
			done := blas64.General{Rows: l, Cols: j0, Stride: m.Stride, Data: m.Data}
			above := blas64.General{Rows: j0, Cols: j1 - j0, Stride: r.Stride, Data: r.Data[j0:]}
			if err := GemmCtx(ctx, impl, blas.NoTrans, blas.NoTrans, -1, done, above, 1, panel); err != nil {
				return err
			}
		}
		rjj := blas64.Triangular{N: j1 - j0, Stride: r.Stride, Uplo: blas.Upper, Diag: blas.NonUnit, Data: r.Data[j0*r.Stride+j0:]}
		blas64.Trsm(blas.Right, blas.NoTrans, 1, rjj, panel)
	}
	return ctx.Err()
}
