// Package lanczos computes a few eigenpairs at one end of the spectrum of a
// large symmetric operator: the K algebraically largest or smallest
// (τ(D_G) of Isomap and Isometric Projection is indefinite, so "largest"
// means most positive, not largest in magnitude).
//
// # Method
//
// Solve runs the thick-restart Lanczos method of Wu and Simon with full
// reorthogonalization, in a block form:
//
//   - A basis of m orthonormal vectors is grown by applying the operator to
//     the newest block of b vectors (b = 1 is the classical method). Every
//     new block is orthogonalized against the whole basis by classical
//     Gram–Schmidt applied twice ("twice is enough", Giraud, Langou and
//     Rozložník 2005, after Daniel, Gragg, Kaufman and Stewart 1976), which
//     keeps the basis orthonormal to working precision, so no spurious
//     copies of converged eigenvalues appear, and within itself by modified
//     Gram–Schmidt, which gives the block's coupling R. The projected matrix
//     H = VᵀAV is assembled from the Gram–Schmidt coefficients themselves.
//   - The Ritz pairs (θ, V·s) of H estimate eigenpairs; the residual of each
//     is ‖R·s_last‖ (s_last the last b entries of s), free of charge. A pair
//     has converged when its residual is at most Tol·‖A‖, ‖A‖ estimated by
//     the largest |θ| seen.
//   - When the basis is full it is restarted with the K wanted Ritz vectors,
//     a third of the remaining ones next to them and the next block: H
//     becomes diagonal plus the coupling of that block (an "arrow"), and the
//     method continues from there (Wu and Simon 2000; equivalent to
//     implicitly restarted Lanczos with exact shifts, Sorensen 1992, and to
//     Stewart's Krylov–Schur method).
//   - If the Krylov space becomes invariant (a new vector vanishes after
//     orthogonalization), a random vector orthogonal to the basis takes its
//     place and the iteration goes on.
//
// A block of b vectors finds eigenvalues of multiplicity up to b and lets a
// dense operator run as a matrix–matrix product (one pass over the matrix
// for b vectors, through the operator's MulBlockTo). On the matrices
// measured (τ(D_G) of USPS digits, random dense matrices) the single-vector
// method needed half the operator applications of b = 4, so it is the
// default; see Settings.BlockSize.
//
// # Repeated eigenvalues
//
// A Krylov space grown from b vectors holds at most b directions of an
// eigenspace, so K pairs that all converge can be one copy of a repeated
// eigenvalue followed by the next distinct ones (τ of points on a square
// grid, whose top eigenvalue is double). When K > b, Solve checks after
// convergence: one Lanczos run for the extreme pair of the operator with
// the K vectors found deflated, from a fresh random start off them
// (tolerance and margin 1e-4·‖A‖: a copy missed within it is a tie to
// that precision). A Ritz value beyond the K-th found is a missed copy,
// and Solve runs again with a block twice as wide, until the check holds
// (Settings.NoCopiesCheck skips it). The check costs a one-pair solve to
// that tolerance: Isomap of 5000 deformed digits, 19 products before it,
// 32 with it; of a 10,000-point swiss roll, 9 and 16.
//
// # Operators
//
// Solve takes any Operator (Dims and MulVecTo); a BlockOperator also has
// MulBlockTo. backend.SymOp (dense, one triangle), backend.FullSymOp (dense,
// both triangles stored, with parallel pure-Go products that read only one
// triangle per product), backend.GeneralOp holding a symmetric matrix,
// *sparse.CSR, Shifted (σI − A) and Func (user functions) all qualify.
//
// # Cost
//
// Each step applies the operator to b vectors (b·n² flam for a dense
// matrix, b·nnz for a sparse one) and orthogonalizes them against at most m
// vectors (4·m·b·n flam: Gemv/Gemm on a C backend, chunked parallel Go
// kernels otherwise); the convergence test solves the projected
// eigenproblem (4.5·j³ for j basis vectors, on the active backend) after
// each step whose work has paid for it; each restart costs n·m·keep flam. Memory is (m + b)·n floats. For the top
// l eigenvectors of a dense m×m matrix the cost is the p·l·m² of
// Cai, He & Han, AAAI 2007 eq. (12) (flam.Lanczos), p·l being the number of
// operator applications. Stats reports iterations, restarts, operator
// applications and flam.
//
// # Results
//
// Values come most extreme first (descending for Largest, ascending for
// Smallest) with unit eigenvectors as the columns of an n×K row-major
// matrix, signed by the project's convention (largest-magnitude component
// positive, backend.FixSigns). Equal Settings (Seed included) give
// bit-identical results on the same machine, backend and thread settings;
// on the pure-Go backend they do not depend on GOMAXPROCS either (the
// parallel kernels split the work in a fixed way and reduce in order).
//
// # Errors
//
// Bad input (K ≥ n, an empty operator, negative or NaN settings, a NaN
// start vector, an operator that returns NaN) returns an error wrapping
// ErrK, ErrSettings or ErrNotFinite. MaxRestarts reached returns the best
// approximations with Status NotConverged and an error wrapping
// ErrNotConverged. A cancelled context returns within one step with Status
// Canceled and an error wrapping ctx.Err(). A non-square operator or a
// Start of the wrong length panics.
//
// # Sources
//
//   - K. Wu and H. Simon, "Thick-restart Lanczos method for large symmetric
//     eigenvalue problems", SIAM J. Matrix Anal. Appl. 22(2):602–616, 2000.
//   - A. Stathopoulos, Y. Saad and K. Wu, "Dynamic thick restarting of the
//     Davidson, and the implicitly restarted Arnoldi methods", SIAM J. Sci.
//     Comput. 19(1):227–245, 1998.
//   - G. H. Golub and C. F. Van Loan, "Matrix Computations", 4th ed., Johns
//     Hopkins, 2013: §10.1 (the Lanczos process), §10.2–10.3 (practical
//     Lanczos, full reorthogonalization, block Lanczos).
//   - G. W. Stewart, "Matrix Algorithms II: Eigensystems", SIAM, 2001
//     (Krylov–Schur restarting; the p·l·m² count the papers use).
//   - L. Giraud, J. Langou and M. Rozložník, "The loss of orthogonality in
//     the Gram–Schmidt orthogonalization process", Comput. Math. Appl.
//     50:1069–1075, 2005.
package lanczos
