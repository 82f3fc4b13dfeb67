// Package sparsetest is the conformance check for linear operators in the
// solvers' method set (Dims, MulVecTo, MulTransVecTo, MulBlockTo,
// MulTransBlockTo; see backend/ops.go): *sparse.CSR, backend.GeneralOp,
// backend.SymOp and any operator the engine builds (a Laplacian, LLE's
// M = (I−W)ᵀ(I−W) applied implicitly) pass it.
//
// CheckOperator verifies, on random vectors and blocks from a fixed seed:
// agreement of every product with a dense reference (when given), the
// adjoint identity ⟨Ax, y⟩ = ⟨x, Aᵀy⟩ and its block form, the overwrite
// semantics (dst is filled with NaN first, so a product that accumulates
// into dst or leaves an element unwritten fails), and that the inputs are
// not modified. Tolerances are relative, c·ε·‖A‖·‖x‖; nothing is compared
// bit for bit.
package sparsetest
