package backend

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
)

// FullSymOp32 is a symmetric n×n matrix stored in full in float32 (Isomap's
// float32 geodesics after double centring) as an operator for the iterative
// eigensolvers: a product reads the upper triangle in float32 (a quarter of
// a float64 Gemv's memory traffic) and accumulates in float64, by the
// kernel of FullSymOp. Both triangles must be stored (MulBlockTo reads the
// rows) and agree.
type FullSymOp32 struct {
	A      []float32
	N      int
	Stride int
}

// Dims returns (n, n).
func (o FullSymOp32) Dims() (r, c int) {
	if o.N > 0 && (o.Stride < o.N || len(o.A) < (o.N-1)*o.Stride+o.N) {
		panic(fmt.Sprintf("backend: FullSymOp32: %d elements cannot hold %d×%d with stride %d", len(o.A), o.N, o.N, o.Stride))
	}
	return o.N, o.N
}

// MulVecTo sets dst = A·x (n² flam), reading the upper triangle only (2n²
// bytes) as FullSymOp does, in float64.
func (o FullSymOp32) MulVecTo(dst, x []float64) {
	n := o.N
	checkVecs("FullSymOp32.MulVecTo", dst, n, x, n)
	if n < symHalfMin {
		for i := 0; i < n; i++ {
			row := o.A[i*o.Stride : i*o.Stride+n]
			s := 0.0
			for j, a := range row {
				s += float64(a) * x[j]
			}
			dst[i] = s
		}
		return
	}
	symvByParts(dst, n, triangleParts(n, symParts), func(acc []float64, lo, hi int) {
		symvRows(acc, o.A, o.Stride, n, x, lo, hi)
	})
}

// MulTransVecTo is MulVecTo (A is symmetric).
func (o FullSymOp32) MulTransVecTo(dst, x []float64) { o.MulVecTo(dst, x) }

// MulBlockTo sets dst = A·X for an n×b block X: each row of A is read once
// for all b columns (n²·b flam, 4n² bytes).
func (o FullSymOp32) MulBlockTo(dst, x blas64.General) {
	n, b := o.N, x.Cols
	if x.Rows != n || dst.Rows != n || dst.Cols != b {
		panic(fmt.Sprintf("backend: FullSymOp32.MulBlockTo: A %d×%d, X %d×%d, dst %d×%d", n, n, x.Rows, x.Cols, dst.Rows, dst.Cols))
	}
	ParallelFor(n, 16, func(lo, hi int) {
		acc := make([]float64, b)
		for i := lo; i < hi; i++ {
			clear(acc)
			row := o.A[i*o.Stride : i*o.Stride+n]
			for j, a := range row {
				if a == 0 {
					continue
				}
				av := float64(a)
				xr := x.Data[j*x.Stride : j*x.Stride+b]
				for c, v := range xr {
					acc[c] += av * v
				}
			}
			copy(dst.Data[i*dst.Stride:i*dst.Stride+b], acc)
		}
	})
}

// MulTransBlockTo is MulBlockTo.
func (o FullSymOp32) MulTransBlockTo(dst, x blas64.General) { o.MulBlockTo(dst, x) }
