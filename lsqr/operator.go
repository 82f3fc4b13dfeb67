package lsqr

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
)

// Operator is an m×n linear operator A with products by A and Aᵀ: the
// method set the solver consumes. backend.GeneralOp, *sparse.CSR and Func
// implement it.
type Operator interface {
	// Dims returns (m, n).
	Dims() (r, c int)
	// MulVecTo sets dst (length m) = A·x (length n), overwriting dst.
	MulVecTo(dst, x []float64)
	// MulTransVecTo sets dst (length n) = Aᵀ·x (length m), overwriting dst.
	MulTransVecTo(dst, x []float64)
}

// BlockOperator is an Operator that also applies A and Aᵀ to blocks of
// vectors at once (row-major, one vector per column): SolveMany then
// advances all right-hand sides with one block product per step instead of
// one product per right-hand side. The solver detects the methods by type
// assertion.
type BlockOperator interface {
	Operator
	// MulBlockTo sets the m×b dst = A·X for the n×b X.
	MulBlockTo(dst, x blas64.General)
	// MulTransBlockTo sets the n×b dst = Aᵀ·X for the m×b X.
	MulTransBlockTo(dst, x blas64.General)
}

// Func is an m×n operator given by two functions: Mul(dst, x) must set
// dst = A·x and MulTrans(dst, x) dst = Aᵀ·x. They are called from one
// goroutine at a time.
type Func struct {
	Rows, Cols    int
	Mul, MulTrans func(dst, x []float64)
	// Flam is the cost of one product (with A or with Aᵀ), for
	// Result.Flam; 0 counts Rows·Cols, the cost of a dense matrix.
	Flam float64
}

// Dims returns (Rows, Cols).
func (f Func) Dims() (r, c int) { return f.Rows, f.Cols }

// MulVecTo calls f.Mul.
func (f Func) MulVecTo(dst, x []float64) {
	if len(dst) != f.Rows || len(x) != f.Cols {
		panic(fmt.Sprintf("lsqr: Func.MulVecTo: dst has length %d, x %d, operator is %d×%d", len(dst), len(x), f.Rows, f.Cols))
	}
	f.Mul(dst, x)
}

// MulTransVecTo calls f.MulTrans.
func (f Func) MulTransVecTo(dst, x []float64) {
	if len(dst) != f.Cols || len(x) != f.Rows {
		panic(fmt.Sprintf("lsqr: Func.MulTransVecTo: dst has length %d, x %d, operator is %d×%d", len(dst), len(x), f.Rows, f.Cols))
	}
	f.MulTrans(dst, x)
}
