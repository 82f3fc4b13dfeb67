// Package lsqr solves sparse and dense least-squares problems by LSQR, the
// algorithm of Paige and Saunders (ACM TOMS 8(1):43–71, 1982): the x that
// minimizes
//
//	‖A·x − b‖² + damp²·‖x‖²,
//
// for any m×n operator A (over- or under-determined, of any rank), starting
// from x = 0, so that it converges to the minimum-norm solution. With
// damping it is the ridge regression of spectral regression
// (Cai, He & Han, AAAI 2007 eq. 10–11, α = damp²), the second step of
// Isometric Projection after the Lanczos eigenvectors of τ(D_G).
//
// # Method
//
// LSQR runs the Golub–Kahan bidiagonalization β₁u₁ = b, α₁v₁ = Aᵀu₁,
// β_{i+1}u_{i+1} = A·v_i − α_i·u_i, α_{i+1}v_{i+1} = Aᵀu_{i+1} − β_{i+1}·v_i
// (§3), solves the bidiagonal least-squares subproblem by plane rotations
// with the damping eliminated by one more rotation per step (§4), and
// estimates as it goes ‖r‖, ‖Āᵀr̄‖, ‖Ā‖_F, cond(Ā) and ‖x‖ (§5), Ā = [A;
// damp·I]. The stopping rules are the paper's (§6), with its parameters
// atol, btol and conlim and an iteration limit, and its istop codes 0–7 as
// the Status values; the tests and their order are those of the reference
// implementations (Saunders' Fortran, scipy.sparse.linalg.lsqr), so the
// iteration counts agree with scipy's on the same problems.
//
// # Operators and right-hand sides
//
// Solve takes any Operator (Dims, MulVecTo, MulTransVecTo): backend.GeneralOp
// for a dense matrix, *sparse.CSR, or Func (user functions). SolveMany solves
// for several right-hand sides at once: the recurrences advance in lock step
// and each step applies A and Aᵀ to the whole block of right-hand sides still
// iterating, through the operator's block products (BlockOperator) when it has
// them, so a dense or sparse matrix is read once per step for all of them.
// Isometric Projection solves for its l eigenvectors this way.
//
// For a dense backend.GeneralOp, one iteration makes one pass over A
// instead of two: the row a_i gives (A·v)_i, hence the new u_i, and adds
// u_i·a_i to Aᵀu while it is in cache (the fused step in dense.go), in
// parallel over a fixed split of the rows. With a C backend and several
// right-hand sides the products are the two Gemm calls Vᵀ·Aᵀ and Uᵀ·A.
//
// # Cost
//
// Per iteration and right-hand side: one product with A and one with Aᵀ
// (2mn flam dense, 2·nnz sparse) plus 3m + 5n flam of vector updates: the
// s·(2mn + 3m + 5n) of Cai, He & Han, AAAI 2007 eq. 12 (flam.LSQR). Memory
// per right-hand side: u (length m) and v, w, x (length n), and scratch of
// the same sizes.
//
// # Errors
//
// An empty operator, negative or NaN settings, or NaN/Inf in b or in an
// operator product return an error wrapping ErrEmpty, ErrSettings or
// ErrNotFinite. Stopping at a limit (CondLimit, IterLimit) is a Status, not
// an error; Status.Converged tells the two kinds apart. A cancelled context
// returns the current iterates with Status Canceled and an error wrapping
// ctx.Err(). A right-hand side of the wrong length panics.
//
// # Sources
//
//   - C. C. Paige and M. A. Saunders, "LSQR: An algorithm for sparse linear
//     equations and sparse least squares", ACM Trans. Math. Softw.
//     8(1):43–71, 1982 (algorithm §4, estimates §5, stopping rules §6, test
//     problems §8).
//   - C. C. Paige and M. A. Saunders, "Algorithm 583. LSQR: Sparse linear
//     equations and least squares problems", ACM Trans. Math. Softw.
//     8(2):195–209, 1982.
//   - S.-C. Choi, C. C. Paige and M. A. Saunders, "MINRES-QLP", SIAM J. Sci.
//     Comput. 33(4):1810–1836, 2011 (the stable plane rotation SymOrtho).
//   - D. Cai, X. He and J. Han, "Isometric Projection", AAAI 2007
//     (Cai, He & Han, AAAI 2007, eq. 10–12).
package lsqr
