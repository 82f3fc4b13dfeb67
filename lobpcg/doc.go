// Package lobpcg computes the smallest eigenpairs of a large symmetric
// positive semidefinite operator by LOBPCG, the locally optimal block
// preconditioned conjugate gradient method (Knyazev, "Toward the optimal
// preconditioned eigensolver: locally optimal block preconditioned
// conjugate gradient method", SIAM J. Sci. Comput. 23(2), 2001).
//
// # Method
//
// Bottom keeps a block X of b vectors, the preconditioned residuals
// W = T·(B·X − X·Θ) and the previous step P, and each iteration replaces
// X by the b smallest Ritz vectors of B on span[X, W, P] (Rayleigh–Ritz).
// That step works in an orthonormal basis of [X, W, P] taken from the
// eigenvectors of its scaled Gram matrix (SVQB: Stathopoulos & Wu, "A
// block orthogonalization procedure with constant synchronization
// requirements", SIAM J. Sci. Comput. 23(6), 2002), dropping directions
// whose Gram eigenvalue falls below 1e-11 of the largest: the block
// cannot lose its rank to rounding silently, and the solve reports how
// many directions it dropped. A known null vector (the constant vector of
// a graph Laplacian, of LLE's M) is projected out of every block, so the
// pairs are those of B on its complement. A solve ends when the first
// Want pairs have residuals ‖B·x − θ·x‖ ≤ Tol·Norm (Norm ‖B‖ or an
// estimate from below: EstimateNorm); nothing certifies that no
// eigenvalue was missed.
//
// # Determinism and cost
//
// Every product over the n rows — the Gram matrices of the basis with
// itself and with B times it, the residuals, the update of X and P — sums
// over fixed chunks of rows in chunk order, in parallel over the chunks,
// so the result is the same bit for bit at any GOMAXPROCS. An iteration
// costs one product with B and one with T on n×b blocks, about 30·b²
// flam a row for the Gram matrices and the updates, and two small
// eigenproblems of order at most 3·b. Each row loop looks at the context
// between blocks of rows.
//
// # Preconditioner
//
// TwoLevel is the additive two-level preconditioner T = Z·(Zᵀ·B·Z)⁺·Zᵀ +
// D⁻¹ of a coarse space Z (N×L) and B's diagonal D: the coarse
// pseudo-inverse from a Cholesky factor when the coarse matrix's only
// null vector is the constant (its 1-norm condition number at most 1e9
// once that is shifted away, L³ flam), else from its eigendecomposition
// (about 9·L³). The engine runs Bottom on LLE's M = (I − W)ᵀ(I − W) and
// LTSA's alignment matrix, started from and preconditioned (TwoLevel) by
// locally linear landmarks (engine's EigenLOBPCG; their reduced matrices
// are sparse.Reduction's).
//
// # Operators
//
// An Operator is a matrix's product and diagonal, what Bottom
// (Problem.Mul), EstimateNorm and NewTwoLevel take of it. LLEOperator is
// LLE's M = (I − W)ᵀ(I − W) applied as products with W and Wᵀ, never
// formed (4·nnz(W) flam a column); CSROperator is a formed sparse matrix.
package lobpcg
