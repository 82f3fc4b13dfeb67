// Package flam counts the arithmetic of the kernels: the dense BLAS and
// LAPACK routines, distances, graph searches and shortest paths, and the
// Lanczos and LSQR solvers. A flam is one floating-point multiply plus one
// add (G. W. Stewart, "Matrix Algorithms"; one flam ≈ two flops in Golub &
// Van Loan's count). Every kernel, solver and method stage predicts its
// work with these functions so that reports can put predicted flam,
// measured seconds and achieved GFLAM/s side by side; a method's own count
// (OIP's M, TDPM's tangent spaces, LTSA's alignment, the lasso, LARS) is the
// sum of these kernel counts, kept beside the method that pays it.
//
// The counts are the leading terms of the standard operation counts
// (Golub & Van Loan, "Matrix Computations", 4th ed., Table 1.1.2, §5.2,
// §8.3, §8.6; LAPACK Working Note 41), halved from flops to flam where the
// source counts flops. For streaming kernels, where bytes moved bound the
// time, Bytes* give the memory traffic instead.
package flam
