package flam

// Counts of the graph methods of the engine (LPP, NPE, LSI, LTSA,
// Laplacian eigenmaps) that the dense kernels above do not cover.

// LinearGraphEmbedding is Cai, He & Han, AAAI 2007 eq. (8), the cost the
// paper gives for LPP and NPE ("exactly the cost of LPP and NPE", §"Efficient
// Computation"): the SVD of the data matrix, m samples × n features with
// m ≤ n (3/2·m²n + 9/2·m³), the reduced m×m matrix X̃·A·X̃ᵀ (2·m³) and l
// eigenvectors by Lanczos with p iterations each (p·l·m²):
// 3/2·m²n + 13/2·m³ + p·l·m².
func LinearGraphEmbedding(m, n, l, p int) float64 {
	fm := float64(m)
	return 1.5*fm*fm*float64(n) + 6.5*fm*fm*fm + Lanczos(m, l, p)
}

// GramSparse is 2·nnz·m: the m×m Gram matrix (A·Aᵀ or Aᵀ·A) of a sparse
// matrix with nnz stored entries formed column by column, one product with
// A and one with Aᵀ per column (blocks of the identity).
func GramSparse(nnz, m int) float64 { return 2 * float64(nnz) * float64(m) }

// LocalPCA is the tangent space of one neighbourhood of k points whose rows
// hold nnzRow stored entries (D for dense rows): the k(k+1)/2 inner
// products of the k×k Gram matrix, its double centring (k²) and its t
// leading eigenvectors by index range (Syevr(k, t)). LTSA and its
// out-of-sample map pay it once per point.
func LocalPCA(k, nnzRow, t int) float64 {
	fk := float64(k)
	return fk*(fk+1)/2*float64(nnzRow) + fk*fk + Syevr(k, t)
}

// LTSAAlignment is n·k²·(t + 1): the blocks I − G_i·G_iᵀ of the alignment
// matrix of LTSA (Zhang & Zha 2004, Algorithm LTSA step 2), G_i = [1/√k, Q_i]
// with k rows and t + 1 columns, for n neighbourhoods.
func LTSAAlignment(n, k, t int) float64 {
	fk := float64(k)
	return float64(n) * fk * fk * float64(t+1)
}
