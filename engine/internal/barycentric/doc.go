// Package barycentric computes the reconstruction weights of locally
// linear embedding (Roweis & Saul, "Nonlinear dimensionality reduction by
// locally linear embedding", Science 290, 2000; the equation numbers in
// this package are those of Gering, "Linear and nonlinear data
// dimensionality reduction", 2002, §4, eqs. 63–64): each point written as
// the affine combination of its neighbours that fits it best in the least
// squares sense, the local Gram matrix regularised by reg·trace(G) as
// scikit-learn does. LLE, landmark LLE (Vladymyrov & Carreira-Perpiñán,
// ECML PKDD 2013) and NPE (He, Cai, Yan & Zhang, ICCV 2005) use them, and
// LLE's and landmark LLE's Transform.
package barycentric
