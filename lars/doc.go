// Package lars computes lasso regularization paths by least angle
// regression with the lasso modification (Efron, Hastie, Johnstone &
// Tibshirani, "Least angle regression", Annals of Statistics 32(2), 2004),
// and stops them at a requested number of non-zero coefficients, as Sparse
// Orthogonal Isometric Projection (Zheng, Tang, Fang & Zhang, ICPR 2012 §4:
// "the regression can be solved efficiently using LARS") and sparse
// spectral regression need.
//
// For the objective ½‖y − Xβ‖² + λ‖β‖₁ the solution β(λ) is piecewise
// linear in λ. LARS follows it from λ_max = ‖Xᵀy‖∞ (β = 0) down: the
// active variables all have absolute correlation |x_jᵀ(y − Xβ)| = λ, the
// others less. Each step moves β along the equiangular direction w,
// G_AA·w = s_A (eq. 2.4–2.6 up to the normalization A_A, which the step
// absorbs), until an inactive correlation catches up (eq. 2.13, the
// variable enters) or, with the lasso modification (§3.1, eq. 3.4–3.6), an
// active coefficient reaches zero (the variable leaves). Settings.LAR turns
// the modification off (plain LAR).
//
// # Why a package of its own
//
// LARS is a homotopy method, not an ADMM: it shares no code, settings or
// state with package admm. Its users (Sparse OIP, sparse spectral
// regression) need it without LRR or the ADMM driver, and its API (a
// path of breakpoints, a cardinality stop, many responses on one design)
// is its own. Dependencies stay one-way: lars imports only backend (its
// tests also use admm as an independent lasso solver).
//
// # Cost
//
// With k active variables, a step costs a k×k triangular solve (k²/2
// flam; the forward solve L·v = s_A is kept between steps, so an entry
// adds one row of it, k flam) and the correlation rates a = Xᵀ·X_A·w: p·k
// flam from the precomputed Gram matrix, or n·k + n·p flam from X; adding
// a variable extends the Cholesky factor of G_AA by one row (k²/2, plus
// n·k for its Gram column without the Gram matrix); a removal downdates
// it by Givens rotations (2·(k − k0)² at position k0).
// StepFlam has the count. The Gram matrix XᵀX costs n·p²/2 once
// (GramFlam) and pays when it is shared by several responses
// (Design.FitMany, r responses in parallel) or when the path is long
// (k ≳ p/2 in pure Go, k ≳ p/10 with OpenBLAS, whose Syrk is fast); Fit
// decides by that rule for a single response. BenchmarkLARS50of256 (5000
// samples × 256 features to 50 non-zeros, 2-core AMD EPYC shared with
// other work, medians of 5): pure Go 53 ms from X, 72 ms with the Gram
// matrix computed for the fit (31 and 44 ms in a quieter run); OpenBLAS
// 23 ms and 11 ms; 0.6–1.3 ms once the Gram matrix exists.
//
// # Degenerate data
//
// A variable whose column lies (to a relative 1e-10 of its squared norm)
// in the span of the active columns is refused when it would enter and
// excluded for the rest of the path (Stats.Degenerate counts them); an
// exact duplicate of an active column never becomes a candidate (its
// correlation moves with its twin's). Zero columns never enter. Ties —
// several variables reaching λ together — enter one per breakpoint, the
// later ones after steps of length zero (breakpoints with equal λ, as in
// scikit-learn). A variable that just left is not re-admitted by the
// zero-length root of its own exit. With more features than samples the
// path ends at an exact fit with at most n active variables.
//
// The tests compare the paths with scikit-learn 1.2.1's lars_path
// (testdata/make_fixtures.py) breakpoint by breakpoint, check the lasso
// optimality conditions at every breakpoint and between them, and compare
// the breakpoints with lasso solutions computed by ADMM (package admm).
//
// # Errors
//
// Bad data or settings give errors wrapping ErrInput (NaN or Inf also wrap
// backend.ErrNotFinite); ctx is checked at every step and cancellation
// returns an error wrapping ctx.Err().
package lars
