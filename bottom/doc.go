// Package bottom finds the bottom eigenpairs of a sparse symmetric positive
// semidefinite matrix B with a known null vector u (B·u = 0): the dim
// eigenvectors of the smallest eigenvalues of B on the complement of u.
// These are the embeddings of LLE (B = (I − W)ᵀ(I − W), u constant), LTSA
// (the alignment matrix, u constant) and Laplacian eigenmaps (the
// normalized Laplacian, u = D^{1/2}·1); package engine calls it for all
// three.
//
// # Certified
//
// Certified runs shift-invert Lanczos with locking (Ericsson & Ruhe, "The
// spectral transformation Lánczos method for the numerical solution of
// large sparse generalized symmetric eigenvalue problems", Math. Comp.
// 35(152), 1980; Saad, "Numerical Methods for Large Eigenvalue Problems",
// 2nd ed., SIAM 2011, §4.2.3 locking, §8.1 shift-and-invert): S = (B +
// ε·I)⁻¹ through a sparse LDLᵀ factor with a fill-reducing ordering
// (sparse.AnalyzeLDL), applied to P·S·P with P the projector on the
// complement of u and of every locked vector. Each round runs block
// Lanczos on the deflated operator, a Rayleigh–Ritz step with B itself on
// the Lanczos vectors and up to three steps of subspace iteration with S
// when needed, and locks every Ritz pair whose residual meets ‖B·v − θ·v‖
// ≤ 1e-10·‖B‖ — the eigenvalues themselves, not the tolerance relative to
// ‖S‖ ≈ 1/ε a Lanczos run on S applies. Locked vectors leave the
// operator, so the next round's Lanczos works relative to the largest
// remaining 1/(λ + ε): the copies of a repeated eigenvalue (a null space
// of dimension 24) are found one round, or one block, after another.
//
// The certificate (Sylvester's law of inertia; Parlett, "The Symmetric
// Eigenvalue Problem", §3.3): with θ_dim the largest eigenvalue returned
// and σ slightly above it, the number of negative pivots of the LDLᵀ of
// B − σ·I is the number of eigenvalues of B below σ; it must equal the
// number of locked pairs below σ (u included). When it is larger an
// eigenvalue was missed, and the rounds go on for it. When θ_dim is null
// (at most NullRel·‖B‖) the inertia at that threshold certifies instead:
// more than dim eigenvalues below it make the wanted ones all null, any
// basis of the null space being the answer. An eigensolve that cannot
// certify within 12 rounds returns an error. The first certificate's
// factorization starts during the first round, at σ from the Ritz values
// (speculation), and runs beside its remaining solves; an Analysis
// started early from the matrix's pattern (StartAnalysis) saves the
// ordering's time.
//
// A factor that would not fit the budget (Options.MaxBytes) or cost more
// than Options.MaxFactorFlam is not made: the analysis refuses an ordering
// whose factor passes the bound (sparse.AnalyzeLDLWithin), and Certified
// returns a *LimitError saying why.
//
// # Without a factor, and dense
//
// Operator runs Lanczos on B alone, with no factor and no certificate: for
// the graphs whose factor fills in (neighbour graphs of high-dimensional
// data). Dense and DenseOf solve the dense eigenproblem, for small
// matrices and for the reduced problems of the landmark methods.
//
// Every path counts the null space (Result.Nullity, eigenvalues at most
// NullRel·‖B‖), and gives the same bits for the same Options.Seed on any
// number of goroutines. Errors are plain (the caller classifies them),
// but for *LimitError and ctx's error.
package bottom
