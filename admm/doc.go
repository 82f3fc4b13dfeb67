// Package admm holds the alternating direction method of multipliers and
// the solvers built on it: the lasso and elastic net along a
// regularization path, and the low-rank representation (LRR) of
// Low-Rank Isomap with singular value thresholding.
//
// # The ADMM core
//
// Solve runs ADMM on any Problem, minimize f(x) + g(z) subject to
// A·x + B·z = c, in the scaled form of Boyd, Parikh, Chu, Peleato &
// Eckstein, "Distributed optimization and statistical learning via the
// alternating direction method of multipliers", Foundations and Trends in
// Machine Learning 3(1), 2011 (§3.1.1, eq. 3.5–3.7):
//
//	x ← argmin f(x) + ρ/2‖Ax + Bz − c + u‖²
//	z ← argmin g(z) + ρ/2‖Âx + Bz − c + u‖²,  Âx = α·Ax − (1−α)(Bz − c)
//	u ← u + Âx + Bz − c
//
// with optional over-relaxation α (§3.4.3), the stopping rule on the
// primal residual r = Ax + Bz − c and the dual residual s = ρAᵀB(z − z_old)
// with absolute and relative tolerances (§3.3.1, eq. 3.12), and the
// penalty adapted by residual balancing (§3.4.1, eq. 3.13), the scaled dual
// rescaled with it. A State carries x, z, u and ρ from one solve to the
// next (warm starts).
//
// # Lasso and elastic net
//
// ElasticNet minimizes ½‖Ax − b‖² + λ(α‖x‖₁ + (1−α)/2‖x‖²) in consensus
// form x − z = 0 (Boyd et al. §6.4). The x-update is a linear solve with
// AᵀA + ρI; the Cholesky factor of the smaller of AᵀA + ρI (n×n) and
// AAᵀ + ρI (m×m, through the matrix inversion lemma, §4.2.4) is cached,
// independent of λ and α, so a regularization path (Path, from LambdaMax
// down a LambdaGrid) factors once per value of ρ and warm-starts every
// λ from the previous solution. The design is an Operator: dense
// (backend.GeneralOp, Gram matrix by Syrk) or any operator such as
// *sparse.CSR (Gram matrix by products, block form when offered).
//
// Costs (lassoFactorFlam and lassoIterFlam in lasso.go): set-up min(m,n)²·max(m,n)/2 +
// min(m,n)³/6 + m·n; one iteration n² (n ≤ m) or
// 2mn + m² (m < n).
//
// # Low-rank representation (Low-Rank Isomap, Alg. 2)
//
// LRR solves eq. (9) of Mehrbani & Kahaei, "Low-Rank Isomap Algorithm"
// (Mehrbani & Kahaei, Low-Rank Isomap):
//
//	minimize ‖Z‖_* + β‖Z‖₁ + λ‖E‖₁  subject to  S = SZ + E,  Z ≥ 0,
//
// by the paper's Alg. 2: the auxiliary J of eq. (10), a linearized
// Z-update by singular value thresholding (eq. 12–16; Cai, Candès & Shen,
// SIAM J. Optim. 20(4), 2010), closed-form J- and E-updates by soft
// thresholding (eq. 17–20), multiplier updates (eq. 21–22) and the
// adaptive penalty of eq. (23)–(24), stopping on eq. (25)–(26). This is
// the linearized ADMM with adaptive penalty (LADMAP) of Lin, Liu & Su,
// "Linearized alternating direction method with adaptive penalty for
// low-rank representation", NIPS 2011, which the paper cites for it.
// Defaults are Alg. 2's constants: β = 1.0, λ = 0.02, μ₀ = 1e-6,
// μmax = 1e6, ρ₀ = 2.5, ε₁ = 1e-6, ε₂ = 1e-2, and η₁ = 1.02·μ(1 + ‖S‖₂²),
// just above the bound of eq. (16).
//
// Where the paper is ambiguous or inconsistent, LRR does the following,
// and LRRSettings documents each choice:
//
//   - Eq. (11) and (17)–(20) rename the weights (λ on J, γ on E; (11) also
//     carries a Laplacian term and Y from another model). We follow eq. (9)
//     and Alg. 2: β weighs ‖Z‖₁ (carried by J, threshold β/μ in eq. 18) and
//     λ weighs ‖E‖₁ (threshold λ/μ in eq. 20).
//   - E is penalized by the elementwise ℓ1 norm, as eq. (9), (19) and (20)
//     say, not by the column-wise ℓ2,1 norm of the original LRR.
//   - η₁ must exceed μ(1 + ‖S‖₂²) (eq. 16) while μ grows (eq. 23), so it
//     is recomputed with μ every iteration; ‖S‖₂ comes from the largest
//     eigenvalue of the smaller Gram matrix of S.
//   - ρ_k of eq. (24) is computed before μ_{k+1} of eq. (23), as its index
//     says (Alg. 2 lists the updates in the other order).
//   - Eq. (25) checks only S = SZ + E; LRR also requires
//     ‖Z − J‖_F ≤ ε₁·max(1, ‖Z‖_F), the second constraint of eq. (10)
//     (which is what makes Z ≥ 0). Norms are Frobenius.
//   - The paper's constants are absolute, so LRR runs Alg. 2 on S/‖S‖₂
//     with λ·‖S‖₂, which is the same problem (9); without that the
//     iteration stalls on unscaled data (LRRSettings.NoScaling).
//
// Z is initialized to I as Alg. 2 says; the first iterates, with μ tiny
// and the SVT threshold 1/η₁ huge, are 0 and far from feasible, so the
// objective of (9) rises from 0 and settles as the constraints are met: it
// is not monotone (TestLRRPlantedSubspaces logs the sequence). The
// multipliers M1, M2 returned with the solution certify it: the dual of
// (9) is max ⟨M1, S⟩ subject to ‖SᵀM1 − M2‖₂ ≤ 1, |M1| ≤ λ, M2 ≤ β, which
// gives the duality gap the tests check.
//
// One iteration costs LRRIterFlam(m, n, r): two m×n×n products (SᵀR and
// S·Z, the latter m·n·r through the factors when Z has rank r < n/2) and
// elementwise passes, plus one SVT of an n×n matrix. Measured
// (BenchmarkLRR, 2-core AMD EPYC, shared; pure Go / OpenBLAS): the 40
// class means of ORL as the factor B of S_B = BBᵀ (1024×40) converge in
// 2401 iterations, 4.4 s / 1.6 s; a planted 1024×100 problem costs 11 ms /
// 4 ms per iteration (it needs more than 10⁴ iterations with the paper's
// constants); the full S_B (1024×1024) costs about 0.4 s / 0.07 s per
// iteration — pass the K-column factor, not the D×D matrix.
//
// # Singular value thresholding
//
// SVT computes Θ_τ(A) = U·max(Σ − τ, 0)·Vᵀ by a full thin SVD (backend
// Gesdd) or, while the predicted rank is small, by a warm-started block
// subspace iteration with Rayleigh–Ritz (Halko, Martinsson & Tropp, SIAM
// Rev. 53(2), 2011, Alg. 4.4) that checks the residual of every triplet
// above τ and of one below it, falling back to the full SVD when it does
// not converge. Measured with the pure-Go backend on a 2-core AMD EPYC
// (BenchmarkSVT), warm-started: n = 100 with 5 values above τ, 0.23 ms
// against 2.9 ms for the full SVD; n = 1000 with 40, 38 ms against 2.9 s.
//
// # Errors
//
// Bad data or settings give errors wrapping ErrInput (and
// backend.ErrNotFinite for NaN or Inf); reaching the iteration limit gives
// ErrNotConverged together with the last iterate and its statistics;
// cancellation of ctx, checked every iteration, an error wrapping
// ctx.Err(). Inconsistent slice lengths from the caller's own code (a
// State of the wrong size) are programmer errors and panic.
package admm
