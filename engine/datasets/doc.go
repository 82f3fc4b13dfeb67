// Package datasets generates the synthetic manifolds of the manifold
// learning literature, deterministically from a seed: the swiss roll
// (Tenenbaum, de Silva and Langford, 2000) and the S-curve, with the
// formulas of scikit-learn's make_swiss_roll and make_s_curve. The random
// numbers are Go's PCG (math/rand/v2), so the points are not numpy's, but
// the distributions are the same. Both return the n×3 points and the
// manifold parameter t of every point, the ground truth an embedding is
// compared with. O(n).
package datasets
