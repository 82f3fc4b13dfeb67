// Package sparse holds the project's sparse matrices and the graph
// algorithms that run on them: neighbour graphs, Laplacians and LLE's
// weight matrices are CSRs, and Isomap's geodesic distances are shortest
// paths over one.
//
// # Matrices
//
// CSR (compressed sparse row) is the operational form: immutable, safe for
// concurrent use, its raw arrays readable through RowPtr, ColIdx and Values
// (read-only views; NewCSR validates arrays built elsewhere: monotone row
// pointers, indices in range, strictly increasing columns in every row).
// Indices are int. COO is the builder: triplets in any order, duplicates
// summed by ToCSR. Conversions: FromDense and ToDense (gonum mat), ToCOO,
// Transpose. A CSR is a gonum mat.Matrix (At is a binary search in the
// row) and a linear operator in the method set of the iterative solvers
// (backend/ops.go): MulVecTo, MulTransVecTo, MulBlockTo, MulTransBlockTo,
// overwrite semantics, nnz (·b) flam each (flam.SpMV), parallel over rows
// through backend.ParallelFor; the transposed products scatter into one
// buffer per worker. Package sparsetest is the operators' conformance
// check.
//
// Reduction forms the reduced matrices Zᵀ·Z, Zᵀ·(I − W)ᵀ(I − W)·Z (LLE's
// M, never formed) and Zᵀ·B·Z of a sparse N×L Z with few entries a row,
// the weights of locally linear landmarks (Vladymyrov &
// Carreira-Perpiñán, ECML PKDD 2013): dense L×L results from sparse
// products over Z's rows (for LLE's M, over those of (I − W)·Z), the same
// bit for bit at any GOMAXPROCS.
//
// Text: NormalizeRows (L1, L2, max) and TFIDF (scikit-learn's
// TfidfTransformer with its defaults: smooth idf, L2 rows). Structure:
// Union and Intersection of patterns (the OR and AND symmetrizations of a
// kNN graph), Submatrix, Map, Scale, RowSums.
//
// MatrixMarket: ReadMatrixMarket reads coordinate real, double, integer
// and pattern files, general, symmetric or skew-symmetric, and the array
// format scipy.io.mmwrite uses for dense arrays; gzip is recognised by its
// magic bytes; errors name the line. WriteMatrixMarket writes coordinate
// real (or integer, pattern, symmetric lower triangle) with values in the
// shortest form that reads back bit for bit.
//
// # Factorizations
//
// AnalyzeLDL and LDLAnalysis.Factor compute P·(A − σ·I)·Pᵀ = L·D·Lᵀ for a
// sparse symmetric A without pivoting, so A − σ·I may be indefinite. The
// ordering P is fill-reducing: approximate minimum degree (Amestoy, Davis
// & Duff 1996) or reverse Cuthill–McKee, whichever the symbolic analysis
// predicts the faster factorization for (OrderAuto; nested dissection by
// level-structure separators, George 1973, is a setting; LDLAnalysis.NNZ
// and Flam give the predicted fill and cost before any numerical work,
// counted from the elimination tree's row subtrees in time proportional
// to A's entries: Gilbert, Ng & Peyton, SIAM J. Matrix Anal. Appl. 15(4),
// 1994). The columns are numbered in a postorder of the elimination tree, so that
// every subtree lies in one stretch of the factor. Large factors with wide
// supernodes are computed on dense frontal matrices, supernode by
// supernode (multifrontal: Duff & Reid, ACM TOMS 9(3), 1983; disjoint
// subtrees on all cores at once, panels of 32 columns, the products of wide
// fronts shared by the cores);
// the others row by row over the elimination tree (up-looking: Davis,
// "Algorithm 849: A concise sparse Cholesky factorization package", ACM
// TOMS 31(4), 2005). LDLAnalysis.Multifrontal says which. LDL.Inertia
// counts the negative, zero and positive pivots, by Sylvester's law of
// inertia the eigenvalues of A below, at and above σ — the certificate of
// the engine's shift-invert eigensolvers; LDL.SolveTo and SolveBlockTo
// apply (A − σI)⁻¹ (for a factor of 2²⁰ entries or more, the subtrees of
// the tree below a top part on all cores). Every result is the same bit
// for bit whatever the number of goroutines. Cost: O(nnz(L)) to analyse, Flam to factor (ctx
// checked every million flam, or between supernodes and panels), 2·nnz(L)
// + n per solve; memory 12 bytes per entry of L, plus the fronts' update
// matrices. On the neighbour graphs of 2-D manifolds AMD stores far fewer
// entries than an envelope (LLE's M on a 50,000-point swiss roll: AMD 5.8 M
// entries and 6.7e8 flam, nested dissection 9.1 M and 1.6e9, RCM 16.1 M
// and 2.7e9; bench/scale/ldlorder); on those of high-dimensional data no
// ordering keeps the factor sparse, and AMD's supernodes make its factor
// the fastest (10,000 deformed digits: 5.9 s on fronts against 35.1 s for
// RCM row by row). AnalyzeLDLWithin gives up on an ordering as soon as
// its factor has counted more entries than allowed (AMD counts them as it
// eliminates; ErrTooLarge when every ordering passes the bound), for
// callers that have another way when the factor cannot be afforded;
// StartLDLAnalysis starts an OrderAuto analysis on a goroutine for a
// caller with other work to do first (PendingLDL.Wait finishes it); and
// LocalOrder permutes a matrix into the reverse Cuthill–McKee order so
// that its products read their vector nearly in order. NewCholesky is the
// older envelope Cholesky of A + shift·I on the RCM ordering (positive
// definite only).
//
// # Graphs
//
// A square CSR is a weighted directed graph: every stored entry (i, j) is
// an edge i→j of weight a_ij, an explicit zero included; a symmetric CSR is
// an undirected graph.
//
// ConnectedComponents labels the weakly connected components (union-find,
// O(nnz·α(n)); labels numbered by smallest vertex, as scipy's
// connected_components). CheckConnected returns a *DisconnectedError
// (errors.Is(err, ErrDisconnected)) naming the components, their sizes and
// the two other policies, "connect" and "largest"; LargestComponent keeps
// the largest and reports the vertices dropped. The "connect" policy needs
// the data points and lives in engine/neighbors.
//
// NormalizedLaplacian (I − D^{-1/2}·W·D^{-1/2}, Laplacian eigenmaps) and
// NormalizedAdjacency (D^{-1/2}·W·D^{-1/2}, LPP) of a graph's weights, with
// D^{-1/2}; TransposePlaces maps each entry of a symmetric pattern to its
// mirror's place. LLEMatrix forms LLE's M = (I − W)ᵀ(I − W) from the
// reconstruction weights W.
//
// Shortest paths: AllPairsShortestPaths runs a single-source search from
// every source, each started from the rows of the source's neighbours
// already written (d(s, v) = min over s's edges of w_st + d(t, v), so the
// search only corrects what s's other edges improve: rows.go),
// MultiSourceShortestPaths from a list of sources (landmarks), both in
// parallel over sources
// (backend.ParallelForCtx; ctx is checked while the graph is prepared and
// within each search, every 10⁵ or so steps), writing
// distances, or squared distances for classical MDS, straight into the
// caller's row-major buffer, float64 or float32 (the ...32 variants: half
// the memory), and the sum or mean of every row in the same pass
// (PathOptions), so that backend.DoubleCenterCtx needs no extra read of the
// n×n matrix. Unreachable pairs are +Inf. Weights must be finite and
// non-negative (an error wrapping ErrInvalid otherwise). Cost: O((n + e)
// log n) per source (flam.Dijkstra counts it); memory: the output, a copy
// of the graph with int32 indices in breadth-first vertex order, O(n + e),
// O(n) of scratch per worker and, for a float32 all-pairs output, a ring
// of at most max(n/32, 256) + 4·GOMAXPROCS float64 rows
// (AllPairs32ScratchBytes), which PathOptions.RingInOutput lays over the
// output's last rows, written last, when the output is in the searches'
// own vertex order (PathOptions.Order) — nothing n×n besides the output.
//
// What makes it fast (n = 10,000 swiss roll, k = 10 OR graph, 2 cores of
// the reference machine, 2026-11-27: 1.2–1.6 s for all pairs in a fresh
// process against 45.7–51.7 s for scipy 1.10's shortest_path(method='D',
// directed=False), as scikit-learn's Isomap calls it, on the same graph,
// bench/peers/peers.py; 3.5 s before the rows above; 1000 landmarks of a
// kNN graph of 10⁶ deformed digits: 96–115 s, where the heap took 170 s
// in the same sitting; bench/RESULTS.md): the vertices are renumbered in
// breadth-first order, so the vertices one search touches together lie
// together in memory (3.5× over a random order at n = 10⁶); the search is
// a label-correcting one over buckets of distances (Dial's buckets with
// those of Δ-stepping; buckets.go) with no heap at all, which gives
// Dijkstra's distances bit for bit and took 15 % off all pairs at 10,000
// points and 35–45 % off landmark searches at 10⁶ vertices, where the
// heap's sift-down had been a third of the time; where the weights do not
// suit buckets (one edge longer than 2¹⁶ bucket widths, or a search past
// its budget of a few passes over the graph) Dijkstra's indexed 4-ary heap
// runs, with integer keys (the bit patterns of the non-negative distances)
// whose sift-down picks the least child without a branch; distance and
// bucket or heap position of a vertex share a cache line; the adjacency of
// the next vertex is asked for ahead by a prefetch instruction (PREFETCHT0
// on amd64; a plain load there held the core until the line arrived:
// 10–25 % of the time at n = 10⁶); no allocation per source; rows are
// written once, sequentially.
//
// FloydWarshall (blocked, 64×64 tiles, parallel; n³ min-plus operations)
// is the oracle of the tests and the method for small dense graphs.
//
// Sources: Dijkstra, "A note on two problems in connexion with graphs",
// Numer. Math. 1 (1959); Bellman, "On a routing problem", Quart. Appl.
// Math. 16 (1958), for the equation the all-pairs rows start from; Dial,
// "Algorithm 360: Shortest-path forest with topological ordering", CACM 12
// (1969); Meyer & Sanders, "Δ-stepping: a parallelizable shortest path
// algorithm", J. Algorithms 49 (2003); Cherkassky, Goldberg & Radzik,
// "Shortest paths algorithms: theory and experimental evaluation", Math.
// Programming 73 (1996); the d-ary heap: Johnson, "Priority queues with
// update and finding minimum spanning trees", Inf. Proc. Lett. 4 (1975);
// Floyd, "Algorithm 97: Shortest path", CACM 5 (1962), blocked as in
// Venkataraman et al., "A blocked all-pairs shortest-paths algorithm", JEA
// 8 (2003); Isomap's use of them: Tenenbaum, de Silva and Langford (2000)
// and Cai, He & Han, AAAI 2007 §3 (D_G by Dijkstra, O(kN² log N)). The
// MatrixMarket format: Boisvert, Pozo and Remington, "The Matrix Market
// Exchange Formats" (NIST, 1996).
package sparse
