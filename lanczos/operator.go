package lanczos

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
)

// Operator is a symmetric linear operator on ℝⁿ: the method set the solver
// consumes. backend.SymOp, backend.GeneralOp on a symmetric matrix,
// *sparse.CSR holding a symmetric matrix, Shifted and Func implement it.
// Symmetry is not checked: on a nonsymmetric operator the results are
// meaningless.
type Operator interface {
	// Dims returns the shape, which must be square.
	Dims() (r, c int)
	// MulVecTo sets dst = A·x, overwriting dst.
	MulVecTo(dst, x []float64)
}

// BlockOperator is an Operator that also applies itself to a block of
// vectors at once: dst (n×b) = A·X (n×b), both row-major, overwriting dst.
// When the operator is a dense matrix this is one pass over the matrix for b
// vectors (a Gemm or Symm instead of b Gemv), which is what makes the block
// variant of the solver fast: for large dense n, memory passes are the cost.
// The solver detects the method by type assertion.
type BlockOperator interface {
	Operator
	MulBlockTo(dst, x blas64.General)
}

// Func is a symmetric operator given by a function: Mul(dst, x) must set
// dst = A·x for vectors of length N. MulBlock is optional: when set, it must
// set the n×b dst to A·X for the n×b X (row-major), and the solver uses
// blocks of vectors.
type Func struct {
	N        int
	Mul      func(dst, x []float64)
	MulBlock func(dst, x blas64.General)
	// Flam is the cost of one application to one vector, for
	// Stats.Flam; 0 counts N², the cost of a dense matrix.
	Flam float64
}

// Dims returns (N, N).
func (f Func) Dims() (r, c int) { return f.N, f.N }

// MulVecTo calls f.Mul.
func (f Func) MulVecTo(dst, x []float64) {
	checkVecs("Func", dst, x, f.N)
	f.Mul(dst, x)
}

// MulBlockTo calls f.MulBlock, or f.Mul column by column when MulBlock is
// nil.
func (f Func) MulBlockTo(dst, x blas64.General) {
	if f.MulBlock != nil {
		f.MulBlock(dst, x)
		return
	}
	mulBlockByVectors(f, dst, x)
}

func (f Func) hasBlock() bool { return f.MulBlock != nil }

func (f Func) flamPerVec() float64 { return f.Flam }

// Shifted is the operator σI − A. Its largest eigenpairs are the smallest
// of A (eigenvalue σ − λ, same vector): smallest eigenpairs without a
// factorization, for a solver or a caller that only looks for the largest.
// With σ ≥ λmax(A) the operator is positive semidefinite. Solve with
// Which: Smallest needs no shift; Shifted is for operators composed by the
// caller and for spectral transformations.
type Shifted struct {
	Op    Operator
	Sigma float64
}

// Dims returns the dimensions of Op.
func (s Shifted) Dims() (r, c int) { return s.Op.Dims() }

// MulVecTo sets dst = σ·x − A·x.
func (s Shifted) MulVecTo(dst, x []float64) {
	s.Op.MulVecTo(dst, x)
	for i, v := range x {
		dst[i] = s.Sigma*v - dst[i]
	}
}

// MulBlockTo sets dst = σ·X − A·X, with one block product when Op has one.
func (s Shifted) MulBlockTo(dst, x blas64.General) {
	if bo, ok := s.Op.(BlockOperator); ok {
		bo.MulBlockTo(dst, x)
	} else {
		mulBlockByVectors(s.Op, dst, x)
	}
	for i := 0; i < x.Rows; i++ {
		xr := x.Data[i*x.Stride : i*x.Stride+x.Cols]
		dr := dst.Data[i*dst.Stride : i*dst.Stride+x.Cols]
		for j, v := range xr {
			dr[j] = s.Sigma*v - dr[j]
		}
	}
}

func (s Shifted) hasBlock() bool { return hasBlock(s.Op) }

func (s Shifted) flamPerVec() float64 {
	n, _ := s.Op.Dims()
	return opFlam(s.Op) + float64(n)
}

// opFlam is the flam of one application of op to one vector: what the
// operator says (Func.Flam, NNZ() of a sparse matrix), n² otherwise.
func opFlam(op Operator) float64 {
	n, _ := op.Dims()
	switch o := op.(type) {
	case interface{ flamPerVec() float64 }:
		if f := o.flamPerVec(); f > 0 {
			return f
		}
	case interface{ NNZ() int }:
		return float64(o.NNZ())
	}
	return float64(n) * float64(n)
}

// hasBlock reports whether op has a genuine block product (not one emulated
// column by column).
func hasBlock(op Operator) bool {
	switch o := op.(type) {
	case interface{ hasBlock() bool }:
		return o.hasBlock()
	case BlockOperator:
		return true
	}
	return false
}

// mulBlockByVectors applies op to the columns of x one at a time.
func mulBlockByVectors(op Operator, dst, x blas64.General) {
	n := x.Rows
	xc, yc := make([]float64, n), make([]float64, n)
	for j := 0; j < x.Cols; j++ {
		for i := 0; i < n; i++ {
			xc[i] = x.Data[i*x.Stride+j]
		}
		op.MulVecTo(yc, xc)
		for i := 0; i < n; i++ {
			dst.Data[i*dst.Stride+j] = yc[i]
		}
	}
}

func checkVecs(what string, dst, x []float64, n int) {
	if len(dst) != n || len(x) != n {
		panic(fmt.Sprintf("lanczos: %s: dst has length %d, x has %d, operator is %d×%d", what, len(dst), len(x), n, n))
	}
}
