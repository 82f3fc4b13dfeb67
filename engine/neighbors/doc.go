// Package neighbors finds exact nearest neighbours and builds the
// neighbour graphs of the manifold methods (Isomap, LLE, LPP, NPE,
// Isometric Projection, Laplacian eigenmaps), as *sparse.CSR.
//
// # Search
//
// KNN finds the k nearest rows of every row (itself excluded; a duplicate
// counts, at distance 0), KNNQuery the k nearest data rows of every query
// row, Radius and RadiusQuery every row within ε (inclusive); a Searcher
// answers KNNQuery's and RadiusQuery's questions about fixed rows again and
// again with its k-d tree built once (a model's Transform, block after
// block: LLE's blocks of 256 new roll points against 2000 training rows
// 5.4–5.7 → 2.7–2.8 µs a row, BenchmarkTransformRollBlocks); an Exact
// answers them one row at a time (the request path: engine's Isomap and
// Landmark Isomap TransformRow), ruling out most rows by lower bounds on
// the rows' top principal coordinates, with no allocation. Results are
// exact and deterministic: every list is sorted by distance, ties by the
// smaller index, and every method reports the same distances (a pair
// selected by the fast kernel has its distance recomputed directly).
//
// Two methods, chosen per call by a cost model (Options.choose) unless
// Options.Algorithm forces one:
//
//   - a k-d tree (median split on the dimension of largest spread, bounding
//     boxes per node, leaf size 16; build O(n log n), a query about
//     O((leaf + k)·2^D·D) in low dimension D). Self queries run in tree
//     order, in parallel chunks (backend.ParallelForCtx).
//   - blocked brute force: tiles of queries × points whose squared
//     distances come from backend.SqDistCtx (Gemm, ‖x‖² + ‖y‖² − 2XYᵀ, so the
//     work runs at the backend's Gemm rate), then a bounded heap per query,
//     in parallel. A self search computes only the tiles on and above the
//     diagonal (1024×1024) and offers each pair to both of its points: half
//     of the m·n·D flam (flam.KNNBrute) of a query search.
//
// The model prices brute force at m·n·(D + 64) (the 64 flam equivalents a
// pair costs beyond its products: norms, clamp, heap) and the tree at
// m·10·D·(leaf + k)·2^D: the tree wins in low dimension (a 3-D swiss roll,
// from about 100 points), brute force above D ≈ 11 at n = 10⁵ (images, D
// in the hundreds). Options.Flam is the flam the chosen method predicts (the
// engine's neighbour stages report it). Measured on the 2-core reference machine: k = 10 for 100,000
// points in 3-D in 0.12 s (BenchmarkKNN3D); 10,000 × 784 brute force at an
// effective 63.5 GFLAM/s (m·n·D over the time) against 47.6 GFLAM/s for
// OpenBLAS's Gemm of the same shape, 11 against 6.8 with the pure-Go
// backend (BenchmarkBrute784, BenchmarkGemm784): 133 % and 160 % of the
// Gemm rate, 67 % and 80 % counting the half the kernel actually does.
//
// Metric Cosine (1 − cos, 1 for a zero row, as scikit-learn) uses brute
// force on normalised rows. Sparse rows (*sparse.CSR, text) go through
// KNNSparse, KNNQuerySparse and RadiusSparse: dot products accumulated
// through an inverted index (the transpose), Euclidean or cosine.
//
// # Graphs
//
// Graph (dense rows) and GraphSparse build, from GraphOptions:
//
//   - the kNN graph symmetrized by the OR rule (an edge if either point is
//     among the other's k nearest: the rule of the Isomap and LPP papers,
//     the default) or the AND rule (mutual neighbours);
//   - the ε-graph (Eps > 0);
//   - the supervised graph (Labels): neighbours only within a class, k = 0
//     meaning the whole class (Cai, He & Han, AAAI 2007 §4, Table 2);
//
// with weights the distance (default; Isomap), the heat kernel
// exp(−d²/t) (LPP; t defaults to the mean d² over the edges), binary, or
// the cosine similarity. The result is symmetric; edges between duplicate
// points are stored with weight 0. ValidateGraph checks a graph a user
// passes instead (square, finite non-negative weights, symmetric where
// required).
//
// # Approximate search
//
// KNNApprox (dense rows) and KNNApproxSparse (sparse rows, Euclidean or
// cosine) find approximate k nearest neighbours by NN-descent (Dong,
// Charikar and Li, "Efficient k-nearest neighbor graph construction for
// generic similarity measures", WWW 2011, Algorithm 2 with the sample rate
// ρ and the early termination δ of §3), started, as pynndescent does, from
// a forest of random-projection trees (Dasgupta and Freund, "Random
// projection trees and low dimensional manifolds", STOC 2008): each tree
// splits its nodes by the hyperplane halfway between two random points of
// the node until a leaf holds LeafSize points, and every point starts
// with the nearest of its leaf mates in all trees. An iteration samples,
// per point, up to ⌈ρk⌉ new and ⌈ρk⌉ old candidates among its neighbours
// and reverse neighbours, compares every new–new and new–old pair of them
// (the local join) and offers each pair closer than a current neighbour to
// both heaps; it stops when an iteration changes fewer than δ·n·k entries
// or after MaxIter iterations. Cost: O(n·ρ²k²·D) per iteration, about 2–8
// iterations; memory n·k·9 bytes of heaps, 2·n·⌈ρk⌉·12 of candidates, and
// a float32 copy of the rows (n·D·4 bytes, and 2 MiB of huge-page
// alignment when that is 4 MiB or more): ApproxBytes. KNNApprox32 searches
// rows the caller holds in float32 in place (dataio.ReadNPY32Ctx reads a
// file so), with no copy of them: 10⁶ × 256 digits in 2.9 GiB of process
// memory where the float64 path takes 5.1 (bench/RESULTS.md, knn-peers).
//
// The keys are float32 (the dot products four rows at a time by dots4,
// the squared distance as ‖x‖² + ‖y‖² − 2x·y; the trees' margins by dots4
// too: the same sums under -tags noasm); the returned distances are
// recomputed in float64 exactly as KNN computes them (rows searched in
// place in float32: in float64 from their float32 values, in four partial
// sums), and the lists sorted by (distance, index). The work is parallel
// with no lock: the local joins of a block of 8192 points read the heaps
// and write proposals into per-chunk buffers, then stripes of points
// apply the proposals meant for them; a heap keeps the k best distinct pairs it is offered whatever
// their order, and the order within a stripe is fixed by the chunks, so
// the result depends on Seed only, not on GOMAXPROCS. Ties (duplicates,
// identical points) are ordered by index, an iteration only ever improves
// a heap in that total order, and a tree node whose split leaves one side
// empty is halved: the search terminates on any input.
//
// Index answers approximate queries of new points, as pynndescent's
// query: NewIndex (or IndexFromLists, from lists already found) keeps the
// rows in float32, their neighbour graph (forward and reverse edges) and
// one random-projection tree with its hyperplanes (Tree, which a model file
// keeps: IndexWithTree rebuilds the index without growing it again); Query descends the tree
// to a leaf, starts from its points and searches the graph best first,
// keeping Width candidates; the rows a step visits are prefetched and
// their keys computed four at a time (dot4.go: SSE2 assembly on amd64, the
// same float32 sums bit for bit in Go elsewhere or under -tags noasm),
// and the float32 copy of the rows asks for transparent huge pages on
// Linux (hugepages.go). Wide Euclidean rows whose variance lies in a few
// directions are walked on their principal coordinates instead (walk.go:
// the axes keeping 97 % of the variance, at most half the features, from
// the covariance of up to 8192 evenly spaced rows; 92 of 256 for deformed
// digits), and the Width kept rows are reranked by their exact distances:
// the walk reads a third of the memory. Measured: recall@10 of 1000 USPS
// digits against an index of 6000, 0.928 at width 10 (with width = k the
// rerank has nothing to choose from), 0.996 at the default (max(2k, 30)),
// 0.999 at 60 (TestIndexUSPS).
//
// Refine lifts NN-descent's own lists with the same search: every row is
// searched for in an index of the rows at a given width, the walk
// starting from the row and its current neighbours, and keeps the k
// nearest of its list and of the answer, itself excluded — one search a
// row, where more local-join iterations gain little once the candidate
// lists are capped (TestRefineUSPS: 4000 USPS digits, k = 10).
// ApproxOptions.Refine runs the same refinement at the end of KNNApprox
// and KNNApprox32, on the search's own copy of the rows (or the caller's
// float32 rows, in place) in the first tree's order, so that a row's
// neighbours lie near it in memory: 10⁶ × 256 deformed digits, k = 15,
// width 40, recall@15 0.972 → 0.995 for 77 s more (121 → 198 s).
// Index.Widen runs the same search to give an index a wider graph (the k
// nearest of every row, k above the lists it was built from): queries
// then reach a given recall at a smaller width (100,000 deformed digits,
// lists of 10 widened to 15: recall@10 0.957 at width 16, where the 10
// lists need 24 for 0.953). QueryRow answers one row into the caller's
// slices, with no allocation (a request path).
//
// Recall measures approximate lists against exact ones (a neighbour at the
// k-th exact distance counts, so ties are not penalised); SampledRecall
// measures it on a seeded sample of points by brute force, with its
// standard error, which is how a large approximate graph states its own
// quality; SampledRecall32 does so for float32 rows, widening blocks of
// them to float64 rather than the whole input. Measured (2-core reference machine, shared): recall@15 0.995 on
// 4000 USPS digits, ≥ 0.9999 on swiss rolls embedded in 50–784 dimensions;
// on independent Gaussian data in 50–256 dimensions (no low-dimensional
// structure, NN-descent's hard case) 0.92 at the defaults, 0.93–0.98 with
// ρ = 4.
//
// # Disconnected graphs
//
// Wherever geodesic distances are computed, a graph with several connected
// components needs a policy (Disconnected, parsed from the command line's
// -disconnected error|connect|largest by ParseDisconnected), applied by
// FixDisconnected: "error" (the default) returns a *sparse.DisconnectedError
// (errors.Is(err, ErrDisconnected)) naming the number of components, their
// sizes and the other two policies; "connect" adds, for every pair of
// components, an edge between their two closest points weighted by its
// distance (scikit-learn's _fix_connected_components; each pair of
// components costs one nearest-neighbour query of one against the other);
// "largest" keeps the largest component and reports the dropped points.
//
// Sources: Friedman, Bentley and Finkel, "An algorithm for finding best
// matches in logarithmic expected time", ACM TOMS 3 (1977) (the k-d tree);
// Tenenbaum, de Silva and Langford (2000) and
// Gering 2002 §5 (kNN and ε graphs of
// Isomap); He and Niyogi, "Locality preserving projections" (2003) (heat
// kernel and binary weights); Cai, He & Han, AAAI 2007 §4 (the supervised
// graph).
package neighbors
