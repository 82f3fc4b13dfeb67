// Package cluster holds k-means (Lloyd's iterations with greedy k-means++
// seeding and restarts), used to choose landmarks (Landmark Isomap,
// Low-Rank Isomap, Mehrbani & Kahaei, Low-Rank Isomap §3.1) and by the evaluation
// protocols (k-means clustering accuracy, Cai, He & Han, AAAI 2007 Table 1).
//
// Distances are computed with the backend's distance kernel in chunks of
// 4096 points, so one Lloyd iteration costs n·K·D flam of Gemm plus O(n·D),
// and memory stays O(4096·K) beyond the data and centres. Sparse rows
// (documents × terms, *sparse.CSR) go through KMeans.FitSparse: the same
// seeding and iterations with the distances from one sparse product X·Cᵀ,
// nnz·K flam per iteration.
package cluster
