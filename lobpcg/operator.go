package lobpcg

import (
	"context"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// Operator is a symmetric matrix B as a solve takes it: its product
// (Problem.Mul, EstimateNorm) and its diagonal (NewTwoLevel's Jacobi
// term).
type Operator interface {
	// Mul sets dst = B·src (n×b blocks, as Problem.Mul's).
	Mul(ctx context.Context, dst, src blas64.General) error
	// Diagonal returns diag(B), a new slice.
	Diagonal() []float64
}

// LLEOperator is LLE's M = (I − W)ᵀ(I − W) (Roweis & Saul, "Nonlinear
// dimensionality reduction by locally linear embedding", Science 290,
// 2000) for reconstruction weights W (N×N, no diagonal), applied as
// products with W and Wᵀ, never formed: M·x = y − Wᵀ·y with
// y = x − W·x, 4·nnz(W) flam a column.
type LLEOperator struct {
	w, wt *sparse.CSR
	tmp   blas64.General // n×b scratch
}

// NewLLEOperator returns M for W (kept, and its transpose formed), with
// scratch for blocks of at most b columns. Its Mul uses the scratch: one
// product at a time.
func NewLLEOperator(w *sparse.CSR, b int) *LLEOperator {
	n, _ := w.Dims()
	return &LLEOperator{w: w, wt: w.Transpose(), tmp: dense.New(n, b)}
}

// Mul sets dst = M·src (n×b blocks, b at most NewLLEOperator's).
// Cancelled, it returns an error wrapping ctx.Err().
func (op *LLEOperator) Mul(ctx context.Context, dst, src blas64.General) error {
	t := op.tmp
	t.Cols = src.Cols
	if err := op.w.MulBlockCtx(ctx, t, src); err != nil { // W·x
		return err
	}
	b := src.Cols
	backend.ParallelFor(src.Rows, 4096, func(lo, hi int) { // y = x − W·x
		for i := lo; i < hi; i++ {
			ti := t.Data[i*t.Stride : i*t.Stride+b]
			for j, v := range src.Data[i*src.Stride : i*src.Stride+b] {
				ti[j] = v - ti[j]
			}
		}
	})
	if err := op.wt.MulBlockCtx(ctx, dst, t); err != nil { // Wᵀ·y
		return err
	}
	backend.ParallelFor(src.Rows, 4096, func(lo, hi int) { // y − Wᵀ·y
		for i := lo; i < hi; i++ {
			di := dst.Data[i*dst.Stride : i*dst.Stride+b]
			for j, v := range t.Data[i*t.Stride : i*t.Stride+b] {
				di[j] = v - di[j]
			}
		}
	})
	return nil
}

// Diagonal returns diag(M): 1 + Σᵢ W_ij² for column j (W has no
// diagonal).
func (op *LLEOperator) Diagonal() []float64 {
	n, _ := op.w.Dims()
	d := make([]float64, n)
	for i := range d {
		d[i] = 1
	}
	ind, val := op.w.ColIdx(), op.w.Values()
	for p, j := range ind {
		d[j] += val[p] * val[p]
	}
	return d
}

// CSROperator is a formed sparse symmetric matrix B (LTSA's alignment
// matrix: Zhang & Zha, "Principal manifolds and nonlinear dimensionality
// reduction via tangent space alignment", SIAM J. Sci. Comput. 26(1),
// 2004) as an Operator.
type CSROperator struct{ b *sparse.CSR }

// NewCSROperator returns B (kept, not copied) as an Operator.
func NewCSROperator(b *sparse.CSR) CSROperator { return CSROperator{b: b} }

// Mul sets dst = B·src (n×b blocks). Cancelled, it returns an error
// wrapping ctx.Err().
func (op CSROperator) Mul(ctx context.Context, dst, src blas64.General) error {
	return op.b.MulBlockCtx(ctx, dst, src)
}

// Diagonal returns diag(B).
func (op CSROperator) Diagonal() []float64 {
	n, _ := op.b.Dims()
	d := make([]float64, n)
	for i := range d {
		d[i] = op.b.At(i, i)
	}
	return d
}
