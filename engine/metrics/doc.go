// Package metrics holds the evaluation measures of the manifold-learning
// papers this project reproduces (bench/repro) and of its comparisons with
// scikit-learn (bench/peers):
//
//   - clustering: KMeans (the project's k-means, engine/cluster, with
//     k-means++ seeds and restarts keeping the lowest objective), the
//     clustering accuracy ClusteringAccuracy (AC of Cai, He & Han, AAAI 2007,
//     the best one-to-one mapping of clusters to classes by the Kuhn–Munkres
//     algorithm, Assign) and the normalized mutual information NMI
//     (arithmetic normalisation, as scikit-learn's default);
//   - classification: nearest-neighbour accuracy OneNN and OneNNDims,
//     over seeded random splits (RatioSplits, PerClassSplits: the protocols
//     of Zheng, Tang, Fang & Zhang, ICPR 2012 Table 1 and Cai, He & Han, AAAI 2007
//     Table 2) by OneNNSplits; Fisher's LDA classifier with leave-one-out
//     FLDALeaveOneOut, FLDALeaveOneOutRidge and LowRankIsomapLeaveOneOut (Mehrbani & Kahaei, Low-Rank Isomap Tables 5–6, on engine.LDA's public API);
//   - neighbourhood preservation: Trustworthiness and Continuity (Venna &
//     Kaski), computed without an n×n matrix;
//   - global geometry: Tenenbaum's ResidualVariance 1 − R²(D_G, D_Y) (with
//     Geodesics for D_G) and the Procrustes disparity between two embeddings.
//
// Every function checks its input and returns an error wrapping ErrInput
// for data it cannot use (labelings of different lengths, NaN, k out of
// range); none panics on the caller's data.
//
// Agreement with independent references (metrics_test.go): NMI,
// Trustworthiness, Continuity, ResidualVariance, Geodesics, Procrustes, the
// nearest-neighbour accuracy and FLDA leave-one-out against scikit-learn
// 1.2.1, scipy 1.10 and numpy on the fixtures of testdata/make_fixtures.py;
// ClusteringAccuracy and Assign against scipy's linear_sum_assignment, and
// Assign against brute force over all permutations; hand-computed cases of
// each.
//
// Cost: Assign O(r²·c); ClusteringAccuracy and NMI O(n + c·k);
// Trustworthiness and Continuity O(n²·(D + log k)) time, O(n·(D + k))
// memory; ResidualVariance O(n²·d); OneNN one brute-force or k-d-tree
// neighbour search (engine/neighbors).
//
// Sources:
//   - H. W. Kuhn, "The Hungarian method for the assignment problem", Naval
//     Research Logistics Quarterly 2 (1955); J. Munkres, "Algorithms for the
//     assignment and transportation problems", J. SIAM 5 (1957); L. Lovász &
//     M. D. Plummer, "Matching Theory" (1986).
//   - D. Cai, X. He & J. Han, "Document clustering using locality preserving
//     indexing", IEEE TKDE 17 (2005), and Cai, He & Han, AAAI 2007 (AC).
//   - A. Strehl & J. Ghosh, "Cluster ensembles — a knowledge reuse framework
//     for combining multiple partitions", JMLR 3 (2002) (NMI).
//   - J. Venna & S. Kaski, "Neighborhood preservation in nonlinear projection
//     methods: an experimental study", ICANN 2001, and "Local
//     multidimensional scaling", Neural Networks 19 (2006).
//   - J. B. Tenenbaum, V. de Silva & J. C. Langford, "A global geometric
//     framework for nonlinear dimensionality reduction", Science 290 (2000)
//     (residual variance).
//   - J. C. Gower, "Generalized Procrustes analysis", Psychometrika 40 (1975).
package metrics
