package flam

import "math"

// KNN is the brute-force cost of the k nearest neighbours of m queries
// among n points in d dimensions: the distance kernel, m·n·d (the k-d tree
// used in low dimension does far less; this is the bound a report
// predicts).
func KNN(m, n, d, k int) float64 { return float64(m) * float64(n) * float64(d) }

// Dijkstra is the work of shortest paths from `sources` sources on a graph
// of n vertices and nnz stored edges with a heap: sources·(nnz + n·log₂n)
// edge relaxations and heap steps. These are comparisons and adds, not
// multiply–adds; reports put them in the flam column as "operations".
func Dijkstra(sources, n, nnz int) float64 {
	return float64(sources) * (float64(nnz) + float64(n)*math.Log2(float64(max(2, n))))
}
