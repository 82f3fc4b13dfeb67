package flam

// Counts for the ADMM solvers (package admm) and LARS (package lars). As in
// flam.go these are leading terms; elementwise passes over vectors and
// matrices are counted as one flam per element and per pass.

// LassoFactor is the set-up of an ADMM lasso or elastic net with a dense
// m×n design: the Gram matrix of the smaller side, k = min(m, n) (AᵀA when
// n ≤ m, else AAᵀ: Syrk(k, max(m, n))), its Cholesky factor after adding ρI
// (Potrf(k)), and Aᵀb (m·n). Boyd et al. 2011 §4.2.4.
func LassoFactor(m, n int) float64 {
	k, q := min(m, n), max(m, n)
	return Syrk(k, q) + Potrf(k) + Gemv(m, n)
}

// LassoRefactor is a new Cholesky factor after the penalty ρ changed:
// Potrf(min(m, n)) plus restoring the Gram diagonal.
func LassoRefactor(m, n int) float64 {
	k := min(m, n)
	return Potrf(k) + float64(k)*float64(k+1)/2
}

// LassoIter is one ADMM iteration of the lasso or elastic net with a cached
// factor (Boyd et al. 2011 §6.4): the x-update is two triangular solves with
// the n×n factor when n ≤ m; when m < n it is the matrix inversion lemma,
// Aᵀ(ρI + AAᵀ)⁻¹A·q, two products with A and two m×m triangular solves.
// The z-update (soft thresholding), the dual update and the residual norms
// are about 8n.
func LassoIter(m, n int) float64 {
	vec := 8 * float64(n)
	if n <= m {
		return Potrs(n, 1) + vec
	}
	return 2*Gemv(m, n) + Potrs(m, 1) + vec
}

// LRRIter is one iteration of the linearized ADMM for low-rank
// representation (Mehrbani & Kahaei, Low-Rank Isomap Alg. 2, eq. 12–26) with S m×n and
// Z n×n, without the singular value thresholding: the gradient of eq. 13
// needs Sᵀ·R (m·n² flam), the E-update of eq. 20 needs S·Z (m·n² flam, or
// 2·m·n·r when Z has rank r, passed as rank; rank < 0 means dense), and
// about 12 elementwise passes over the m×n and n×n iterates.
func LRRIter(m, n, rank int) float64 {
	sz := Gemm(m, n, n)
	if rank >= 0 && 2*rank < n {
		sz = 2 * Gemm(m, n, rank)
	}
	return Gemm(n, n, m) + sz + 12*(float64(m)*float64(n)+float64(n)*float64(n))
}

// SVTFull is singular value thresholding of an m×n matrix by a full thin SVD.
func SVTFull(m, n int) float64 { return SVD(m, n) + float64(m)*float64(n) }

// SVTSweep is one sweep of the randomized subspace iteration that the
// partial SVT of package admm uses on an n×n matrix with a block of b
// vectors: Y = A·Ω (n²·b), a QR of Y (Geqrf + Orgqr), B = QᵀA (n²·b), the
// thin SVD of the b×n matrix B, and U = Q·Ũ (n·b²).
func SVTSweep(n, b int) float64 {
	return 2*Gemm(n, n, b) + Geqrf(n, b) + Orgqr(n, b) + SVD(b, n) + Gemm(n, b, b)
}

// SVTRebuild is forming the thresholded n×n matrix U·diag(σ−τ)·Vᵀ of rank r.
func SVTRebuild(n, r int) float64 { return Gemm(n, n, r) + float64(n)*float64(r) }

// LARSGram is the precomputed Gram matrix XᵀX of an n×p design (its
// triangle, Syrk) and Xᵀy.
func LARSGram(n, p int) float64 { return Syrk(p, n) + Gemv(n, p) }

// LARSStep is one step of LARS (Efron et al. 2004) with k active variables
// out of p, n samples: solving for the equiangular direction with the
// Cholesky factor of the active Gram matrix (k² flam), the correlations of
// every variable with it, a = Xᵀu (gram: G[:,A]·w, p·k flam; otherwise
// u = X_A·w and Xᵀu, n·k + n·p flam), and adding one variable to the
// factor (a triangular solve, k²/2, plus its Gram column: n·k without the
// precomputed Gram).
func LARSStep(n, p, k int, gram bool) float64 {
	fk := float64(k)
	solve := fk * fk
	add := fk * fk / 2
	if gram {
		return solve + float64(p)*fk + add + 4*float64(p)
	}
	return solve + float64(n)*fk + Gemv(n, p) + add + float64(n)*fk + 4*float64(p) + 2*float64(n)
}
