// Package centred applies a data matrix centred on a weighted mean,
// X̂ = diag(√b)·(X − 1·μᵀ), and its transpose to blocks of vectors, for
// dense rows (held explicitly, already centred) or sparse rows (centred
// implicitly, so that a document–term CSR stays sparse), and its Gram
// matrices X̂·X̂ᵀ and X̂ᵀ·X̂ formed densely or as a Lanczos operator. It is
// the SVD step of the linear graph embeddings (He & Niyogi, "Locality
// preserving projections", NIPS 2003; Cai, He & Han, "Isometric
// projection", AAAI 2007) and of latent semantic indexing (Deerwester, Dumais, Furnas, Landauer &
// Harshman, JASIS 41(6), 1990).
package centred
