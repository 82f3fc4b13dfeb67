// Package tangent computes local tangent spaces of a set of points and the
// tangent distances to them, the numeric kernels of the engine's TDPM
// (Zhao & Jiang, "A Tangent Distance Preserving Dimensionality Reduction
// Algorithm"; tangent spaces §2.1, tangent distances §2.2, eq. 5).
//
// The tangent space at a point is the span of the t leading left singular
// vectors of its k nearest neighbours centred on their mean (local PCA, as
// in LTSA: Zhang & Zha, SIAM J. Sci. Comput. 26(1), 2004): Spaces for
// every point at once, LocalPCA for one neighbourhood at a time in the
// neighbourhood's own coordinates (LTSA's fit and Transform). The
// tangent distance from y to the tangent space at x_i, with P_i its D×t
// orthonormal basis, is TD(i, y) = min_α ‖x_i + P_iα − y‖ =
// ‖(I − P_iP_iᵀ)(y − x_i)‖. It is not symmetric in its two points.
//
// Two kernels compute TD for many pairs at once, never pair by pair:
//
//   - Distances, the products path: TD(i,j)² = ‖y_j − x_i‖² −
//     ‖P_iᵀy_j − P_iᵀx_i‖² (clamped at 0), the projections P_iᵀy_j of all
//     points on a block of tangent spaces one matrix product (n·m·D·t flam
//     in all: DistancesFlam).
//   - DistancesGram, the Gram path between the points that gave the tangent
//     spaces: P_iᵀx_j = A_i·(x_l·x_j)_{l∈N(i)} with A_i the t×k
//     coefficients Spaces writes, so one Gram matrix XXᵀ and n²·t·k flam
//     give every TD (DistancesGramFlam), cheaper when k < D.
//
// The difference of squares cancels where TD ≪ ‖y_j − x_i‖: TD is accurate
// to about √ε times the points' distance from the origin (Radius), so the
// points are best centred first (TD is translation invariant).
//
// Matrices are row-major blas64.General. The kernels run in parallel
// (backend.ParallelForCtx), check ctx between blocks of work and return
// ctx.Err() when it is done, and report the blocks done to a progress
// function when one is given (nil: none).
package tangent
