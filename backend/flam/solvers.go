package flam

// Counts of the iterative solvers (packages lanczos and lsqr). The paper
// formulas (Cai, He & Han, AAAI 2007 eq. 8 and 12) are the predictions a
// stage reports before it runs; the step counts let a solver add up what it
// actually did.

// Lanczos is p·l·n²: the top l eigenvectors of a dense n×n matrix by
// Lanczos with p iterations per eigenvector (Cai, He & Han, AAAI 2007 eq. 8
// and 12, after Stewart, "Matrix Algorithms II", 2001): p·l products with
// the matrix at n² flam each. The paper's p is "usually less than 20".
func Lanczos(n, l, p int) float64 {
	return float64(p) * float64(l) * float64(n) * float64(n)
}

// LSQR is s·(2mn + 3m + 5n): s iterations of Paige and Saunders' LSQR
// (ACM TOMS 8(1), 1982, §7.1) on a dense m×n matrix for one right-hand side:
// a product with A and one with Aᵀ (2mn), 3m for the update of u and 5n for
// the updates of v, w and x (Cai, He & Han, AAAI 2007 eq. 12). For a sparse
// A replace 2mn by 2·nnz (LSQRSparse).
func LSQR(m, n, s int) float64 {
	fm, fn := float64(m), float64(n)
	return float64(s) * (2*fm*fn + 3*fm + 5*fn)
}

// LSQRSparse is s·(2·nnz + 3m + 5n): LSQR on an m×n operator whose product
// and transposed product cost nnz flam each.
func LSQRSparse(m, n, nnz, s int) float64 {
	return float64(s) * (2*float64(nnz) + 3*float64(m) + 5*float64(n))
}

// LanczosStep is one block step of Lanczos with full reorthogonalization
// by classical Gram–Schmidt applied twice (CGS2), excluding the product with
// the operator: a block of b vectors of length n is orthogonalized against
// j basis vectors (two passes of a projection, j·b·n, and an update,
// j·b·n: 4·j·b·n) and within itself by modified Gram–Schmidt applied twice
// (2·b²·n).
func LanczosStep(n, j, b int) float64 {
	fn, fj, fb := float64(n), float64(j), float64(b)
	return 4*fj*fb*fn + 2*fb*fb*fn
}

// LanczosRestart is the thick restart of a basis of j vectors of length n
// to keep vectors: the n×j basis times the j×keep Ritz coefficients,
// n·j·keep, plus the j×j projected eigenproblem (Syevd with vectors).
func LanczosRestart(n, j, keep int) float64 {
	return float64(n)*float64(j)*float64(keep) + Syevd(j, true)
}
