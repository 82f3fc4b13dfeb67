package flam

// Gemm is m·n·k: C(m×n) += A(m×k)·B(k×n).
func Gemm(m, n, k int) float64 { return float64(m) * float64(n) * float64(k) }

// Syrk is n(n+1)/2·k: the triangle of C(n×n) += A(n×k)·Aᵀ.
func Syrk(n, k int) float64 { return float64(n) * float64(n+1) / 2 * float64(k) }

// Symm is m·m·n for side Left (A m×m, B m×n), as a Gemm with a square A.
func Symm(m, n int) float64 { return float64(m) * float64(m) * float64(n) }

// Gemv is m·n.
func Gemv(m, n int) float64 { return float64(m) * float64(n) }

// Symv is n².
func Symv(n int) float64 { return float64(n) * float64(n) }

// Dot is n; Axpy is n.
func Dot(n int) float64 { return float64(n) }

// Tridiag is the Householder reduction of a symmetric n×n matrix to
// tridiagonal form: 4/3·n³ flops = 2/3·n³ flam (GVL §8.3.1).
func Tridiag(n int) float64 { f := float64(n); return 2 * f * f * f / 3 }

// Syevd is the full symmetric eigendecomposition with vectors: tridiagonal
// reduction, forming Q, and the tridiagonal eigenproblem with vectors,
// about 9n³ flops = 4.5·n³ flam (GVL §8.3.5, symmetric QR with vectors;
// divide and conquer is usually faster, this is the bound reports use).
// Without vectors it is the reduction alone.
func Syevd(n int, vectors bool) float64 {
	if !vectors {
		return Tridiag(n)
	}
	f := float64(n)
	return 4.5 * f * f * f
}

// Syevr is k eigenpairs of an n×n symmetric matrix by index range: the
// reduction (2/3·n³), the back transformation of k vectors (n²·k), and
// bisection and inverse iteration (O(n·k), counted as 60·n·k for ~60
// bisection steps of n flam each).
func Syevr(n, k int) float64 {
	f := float64(n)
	return Tridiag(n) + f*f*float64(k) + 60*f*float64(k)
}

// Sygvd is the generalized symmetric-definite problem with all vectors:
// Cholesky (n³/6), reduction to standard form (n³), the standard problem
// (Syevd) and the back substitution (n³/2).
func Sygvd(n int) float64 {
	f := float64(n)
	return f*f*f/6 + f*f*f + Syevd(n, true) + f*f*f/2
}

// SVD is the thin SVD of an m×n matrix with singular vectors, p = min(m,n),
// q = max(m,n): 3/2·p²q + 9/2·p³ flam, the count Cai, He & Han, AAAI 2007
// uses for the SVD of the data matrix (§3.3).
func SVD(m, n int) float64 {
	p, q := float64(min(m, n)), float64(max(m, n))
	return 1.5*p*p*q + 4.5*p*p*p
}

// Potrf is n³/6 (Cholesky, n³/3 flops).
func Potrf(n int) float64 { f := float64(n); return f * f * f / 6 }

// Potrs is n²·nrhs (two triangular solves).
func Potrs(n, nrhs int) float64 { return float64(n) * float64(n) * float64(nrhs) }

// Geqrf is m·n² − n³/3 for m ≥ n (Householder QR, 2mn² − 2n³/3 flops).
func Geqrf(m, n int) float64 {
	fm, fn := float64(m), float64(n)
	if m < n {
		fm, fn = fn, fm
	}
	return fm*fn*fn - fn*fn*fn/3
}

// Orgqr is the same as Geqrf: forming the m×n Q from n reflectors.
func Orgqr(m, n int) float64 { return Geqrf(m, n) }

// SqDist is the distance kernel between m and n points in D dimensions:
// the Gemm m·n·D plus m·n for the norms (halved m·m·D/2 when a set is
// compared with itself, the symmetric case).
func SqDist(m, n, d int, self bool) float64 {
	if self {
		return float64(m)*float64(m+1)/2*float64(d) + float64(m)*float64(m)
	}
	return Gemm(m, n, d) + float64(m)*float64(n)
}

// DoubleCenter is n² (one subtract-and-scale per element of an n×n matrix).
// It is bound by memory: BytesDoubleCenter gives its traffic.
func DoubleCenter(n int) float64 { return float64(n) * float64(n) }

// BytesDoubleCenter is the memory traffic of in-place double centering of
// an n×n float64 matrix with precomputed row means: one read and one write
// of every element, 16·n² bytes (elemSize 8; 4 for float32).
func BytesDoubleCenter(n, elemSize int) float64 {
	return 2 * float64(elemSize) * float64(n) * float64(n)
}
