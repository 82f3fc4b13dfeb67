// Package dense holds the chores on row-major dense matrices
// (blas64.General) that the engine and its solvers share: allocation and
// compact copies, row copies that honour a context, the mean of a square
// matrix and its transpose, the mirror of a triangle, the upper triangle's
// tiles visited in parallel, the Gram matrix XXᵀ and the quadratic form
// AᵀτA of a symmetric τ in cancellable blocks. One place for each, where every package had kept its own copy.
package dense
