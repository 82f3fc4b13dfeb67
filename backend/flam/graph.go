package flam

import "math"

// Counts for the sparse and graph kernels (sparse/, engine/neighbors).

// SpMV is nnz: one multiply-add per stored entry of A in A·x or Aᵀ·x
// (times b for a product with an n×b block).
func SpMV(nnz int) float64 { return float64(nnz) }

// KNNBrute is m·n·D: the distance Gemm of m queries against n points in D
// dimensions, the count brute-force kNN is rated by (the norms and the
// selection, O(m·n), are lower-order). A self search computing only one
// triangle would do half.
func KNNBrute(m, n, d int) float64 { return Gemm(m, n, d) }

// KNNTreeQueries is m·D·(leaf + k)·2^D: m k-d tree queries in D
// dimensions, each computing the distances to the (leaf + k)·2^D points
// of the cells a ball around it meets (the cells grow as 2^D).
func KNNTreeQueries(m, d, k, leaf int) float64 {
	return float64(m) * float64(d) * float64(leaf+k) * math.Exp2(float64(d))
}

// KNNDescent is n·2k²·D: NN-descent's distance keys for the approximate
// k nearest neighbours of n points in D dimensions, about 2k² per point
// over the forest's leaves and the local joins of its iterations
// (measured: 446 keys per point for k = 15 on 30,000 deformed USPS digits,
// 5 iterations), D flam each.
func KNNDescent(n, d, k int) float64 { return 2 * float64(n) * float64(k) * float64(k) * float64(d) }

// KNNRefine is n·w·k·D: one refining search a point of NN-descent's lists
// at search width w, which expands about w rows of about 2k graph
// neighbours each, on at most D/2 principal coordinates a key for wide
// rows (measured: 10⁶ × 256 deformed digits, k = 15, w = 40, walked on 92
// coordinates: 115 s where NN-descent's n·2k²·D took 91 s).
func KNNRefine(n, d, k, w int) float64 {
	return float64(n) * float64(w) * float64(k) * float64(d)
}

// KNNTreeBuild is n·⌈log₂(n + 1)⌉·D: the median splits of a k-d tree on
// n points in D dimensions.
func KNNTreeBuild(n, d int) float64 {
	return float64(n) * math.Ceil(math.Log2(float64(n+1))) * float64(d)
}

// Dijkstra counts operations, not flam: one source on a graph of n
// vertices and e stored edges does e relaxations (an add and a compare
// each) and up to n heap insertions, n deletions and e decrease-keys of
// log₄ n levels each: (n + e)·⌈log₂ n⌉ bounds them all, the textbook
// O((n + e) log n).
func Dijkstra(n, e int) float64 {
	if n < 2 {
		return float64(e)
	}
	return float64(n+e) * math.Ceil(math.Log2(float64(n)))
}

// AllPairsDijkstra is sources·Dijkstra(n, e): n sources for all pairs, L
// for landmarks. For all pairs it is a bound: there each search starts
// from its earlier neighbours' rows (sparse's rows.go) and scans about a
// third of the vertices on a swiss-roll kNN graph, so the all-pairs stage
// takes 1/2.6 (swiss roll) to 1/1.7 (USPS digits) of the time this count
// predicts at the rate of searches from scratch (bench/RESULTS.md, "All
// pairs from the neighbours' rows").
func AllPairsDijkstra(sources, n, e int) float64 { return float64(sources) * Dijkstra(n, e) }

// FloydWarshall is n³ min-plus operations (an add and a compare each).
func FloydWarshall(n int) float64 { f := float64(n); return f * f * f }

// GramSparse is 2·nnz·m: the m×m Gram matrix (A·Aᵀ or Aᵀ·A) of a sparse
// matrix with nnz stored entries formed column by column, one product with
// A and one with Aᵀ per column (blocks of the identity).
func GramSparse(nnz, m int) float64 { return 2 * float64(nnz) * float64(m) }
