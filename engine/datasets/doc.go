// Package datasets generates the synthetic manifolds of the manifold
// learning literature, deterministically from a seed: the swiss roll
// (Tenenbaum, de Silva and Langford, 2000) and the S-curve, with the
// formulas of scikit-learn's make_swiss_roll and make_s_curve. The random
// numbers are Go's PCG (math/rand/v2), so the points are not numpy's, but
// the distributions are the same. Both return the n×3 points and the
// manifold parameter t of every point, the ground truth an embedding is
// compared with. O(n).
//
// For neighbour searches at scale: Embed maps points into many dimensions
// by a seeded random orthogonal map plus noise (a swiss roll in 784-D: 784
// features, intrinsic dimension 2), and DeformDigits makes any number of
// digit images from a base set (the USPS digits of ../shared/data) by
// small random affine maps and elastic distortions (Simard, Steinkraus and
// Platt, ICDAR 2003), keeping the labels, as the infinite-MNIST sets are
// made (Loosli, Canu and Bottou, 2007). go run ./bench/scale/gendata writes them
// as .npy files.
package datasets
