package sparse

import "gonum.org/v1/gonum/blas/blas64"

// Pair is A stored together with its transpose, as an operator for solvers
// that apply both A and Aᵀ many times (LSQR): every product is then a
// row-parallel gather, never the scatter of CSR.MulTransVecTo, at the cost
// of a second copy of the nonzeros (built once, nnz + c + 1 words).
type Pair struct {
	A, AT *CSR
}

// NewPair returns a with its transpose.
func NewPair(a *CSR) Pair { return Pair{A: a, AT: a.Transpose()} }

// Dims returns the shape of A.
func (p Pair) Dims() (r, c int) { return p.A.Dims() }

// NNZ returns the stored entries of A (the flam of one product).
func (p Pair) NNZ() int { return p.A.NNZ() }

// MulVecTo sets dst = A·x.
func (p Pair) MulVecTo(dst, x []float64) { p.A.MulVecTo(dst, x) }

// MulTransVecTo sets dst = Aᵀ·x, as a product with the stored transpose.
func (p Pair) MulTransVecTo(dst, x []float64) { p.AT.MulVecTo(dst, x) }

// MulBlockTo sets dst = A·X.
func (p Pair) MulBlockTo(dst, x blas64.General) { p.A.MulBlockTo(dst, x) }

// MulTransBlockTo sets dst = Aᵀ·X, as a product with the stored transpose.
func (p Pair) MulTransBlockTo(dst, x blas64.General) { p.AT.MulBlockTo(dst, x) }
