package flam

// Counts of the projection methods built on dense kernels: Orthogonal
// Isometric Projection, TDPM, Low-Rank Isomap and LDA. Each is the sum of
// the kernel counts of this package for the products the method does.

// OIPForm is forming M = X(XᵀX − 2τ)Xᵀ = G² − 2·XτXᵀ (Zheng, Tang, Fang & Zhang, ICPR 2012
// eq. 6) for n samples of d features, X = Aᵀ with A the n×d
// data: G = AᵀA (Syrk, d²n/2), XτXᵀ = P + Pᵀ with P = Aᵀ(LA), L the lower
// triangle of the symmetric τ (n²d/2 for LA, d²n for P), and G² (d³).
func OIPForm(n, d int) float64 {
	fn, fd := float64(n), float64(d)
	return Syrk(d, n) + fn*fn*fd/2 + Gemm(d, d, n) + Gemm(d, d, d)
}

// OIPProduct is one product M·v with M applied as an operator without
// forming it: u = Av (nd), Aᵀu (nd), A(Aᵀu) (nd), τu (n²) and the final Aᵀ
// (nd): 4nd + n².
func OIPProduct(n, d int) float64 {
	fn, fd := float64(n), float64(d)
	return 4*fn*fd + fn*fn
}

// TangentSpaces is the local PCA of TDPM (Zhao & Jiang, TDPM
// §2.1) at n points of d features from k neighbours each,
// keeping t directions: per point the k×k Gram matrix of the centred
// neighbours (d·k²/2), its full eigendecomposition (Syevd(k)) and the map
// back to t left singular vectors (d·k·t).
func TangentSpaces(n, d, k, t int) float64 {
	fd, fk := float64(d), float64(k)
	return float64(n) * (fd*fk*(fk+1)/2 + Syevd(k, true) + fd*fk*float64(t))
}

// TangentDistances is TDPM's n×n matrix of tangent distances (eq. 5) as
// products: the squared Euclidean distances (SqDist, symmetric) and, per
// point i, the projections P_iᵀx_j of all n points on its t-dimensional
// tangent space (n·d·t each): n²·d·t.
func TangentDistances(n, d, t int) float64 {
	return SqDist(n, n, d, true) + float64(n)*float64(n)*float64(d)*float64(t)
}

// TangentDistancesGram is TDPM's n×n matrix of tangent distances from the
// Gram matrix G = XXᵀ (counted apart, Syrk): P_iᵀx_j = A_i·G[N(i), j] with
// A_i the t×k coefficients of the local PCA, n·t·k per row, n²·t·k in all
// (less than TangentDistances' n²·d·t when k < d).
func TangentDistancesGram(n, k, t int) float64 {
	fn := float64(n)
	return fn * fn * float64(t*k)
}

// ClassScatter is the within- and between-class scatter matrices of n samples of
// d features in c classes (LDA; Mehrbani & Kahaei, Low-Rank Isomap eq. 4–5): the class
// means (nd), S_W = AᵀA of the n×d class-centred data (Syrk, d²n/2) and
// S_B = BBᵀ of the d×c weighted centred means (d²c/2).
func ClassScatter(n, d, c int) float64 {
	return float64(n)*float64(d) + Syrk(d, n) + Syrk(d, c)
}

// FisherReduction is the generalized eigenproblem S_B·w = λ·S_W·w with
// S_B = BBᵀ of rank ≤ c (B d×c) solved by the Cholesky reduction: the
// factor of S_W (Potrf, d³/6), C = L⁻¹B (d²c), the thin SVD of C (SVD(d,
// c)) and w = L⁻ᵀu for the m vectors kept (d²m).
func FisherReduction(d, c, m int) float64 {
	fd := float64(d)
	return Potrf(d) + fd*fd*float64(c) + SVD(d, c) + fd*fd*float64(m)
}
