package backend

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Dense matrices as linear operators, in the method set the iterative
// solvers consume (lanczos and lsqr each declare the interface they need;
// *sparse.CSR has the same methods):
//
//	Dims() (r, c int)
//	MulVecTo(dst, x []float64)                 // dst = A·x, overwriting dst
//	MulTransVecTo(dst, x []float64)            // dst = Aᵀ·x
//	MulBlockTo(dst, x blas64.General)          // dst (r×b) = A·X (c×b)
//	MulTransBlockTo(dst, x blas64.General)     // dst (c×b) = Aᵀ·X (r×b)
//
// The block forms let a solver apply a dense operator to b vectors in one
// pass over the matrix (Gemm instead of b Gemv calls): for a large dense
// matrix, memory passes are the cost.

// GeneralOp is the m×n row-major matrix A as an operator on the backend Impl.
type GeneralOp struct {
	A    blas64.General
	Impl Impl // nil: Active()
}

func (o GeneralOp) impl() Impl {
	if o.Impl == nil {
		return Active()
	}
	return o.Impl
}

// Dims returns the shape of A.
func (o GeneralOp) Dims() (r, c int) { return o.A.Rows, o.A.Cols }

// MulVecTo sets dst = A·x (Gemv, m·n flam).
func (o GeneralOp) MulVecTo(dst, x []float64) {
	checkVecs("GeneralOp.MulVecTo", dst, o.A.Rows, x, o.A.Cols)
	o.impl().Gemv(blas.NoTrans, 1, o.A, vec(x), 0, vec(dst))
}

// MulTransVecTo sets dst = Aᵀ·x (Gemv, m·n flam).
func (o GeneralOp) MulTransVecTo(dst, x []float64) {
	checkVecs("GeneralOp.MulTransVecTo", dst, o.A.Cols, x, o.A.Rows)
	o.impl().Gemv(blas.Trans, 1, o.A, vec(x), 0, vec(dst))
}

// MulBlockTo sets dst = A·X (Gemm, m·n·b flam).
func (o GeneralOp) MulBlockTo(dst, x blas64.General) {
	o.impl().Gemm(blas.NoTrans, blas.NoTrans, 1, o.A, x, 0, dst)
}

// MulTransBlockTo sets dst = Aᵀ·X (Gemm, m·n·b flam).
func (o GeneralOp) MulTransBlockTo(dst, x blas64.General) {
	o.impl().Gemm(blas.Trans, blas.NoTrans, 1, o.A, x, 0, dst)
}

// SymOp is the symmetric n×n A, read from its triangle A.Uplo, as an
// operator: A = Aᵀ, so the transposed products are the plain ones.
type SymOp struct {
	A    blas64.Symmetric
	Impl Impl // nil: Active()
}

func (o SymOp) impl() Impl {
	if o.Impl == nil {
		return Active()
	}
	return o.Impl
}

// Dims returns (n, n).
func (o SymOp) Dims() (r, c int) { return o.A.N, o.A.N }

// MulVecTo sets dst = A·x (Symv, n² flam).
func (o SymOp) MulVecTo(dst, x []float64) {
	checkVecs("SymOp.MulVecTo", dst, o.A.N, x, o.A.N)
	o.impl().Symv(1, o.A, vec(x), 0, vec(dst))
}

// MulTransVecTo is MulVecTo.
func (o SymOp) MulTransVecTo(dst, x []float64) { o.MulVecTo(dst, x) }

// MulBlockTo sets dst = A·X (Symm, n²·b flam).
func (o SymOp) MulBlockTo(dst, x blas64.General) {
	o.impl().Symm(blas.Left, 1, o.A, x, 0, dst)
}

// MulTransBlockTo is MulBlockTo.
func (o SymOp) MulTransBlockTo(dst, x blas64.General) { o.MulBlockTo(dst, x) }

func vec(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Inc: 1, Data: x} }

func checkVecs(what string, dst []float64, nd int, x []float64, nx int) {
	if len(dst) != nd || len(x) != nx {
		panic(fmt.Sprintf("backend: %s: dst has length %d (need %d), x has %d (need %d)", what, len(dst), nd, len(x), nx))
	}
}
