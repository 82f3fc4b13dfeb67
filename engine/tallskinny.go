package engine

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// Products of tall, narrow blocks of vectors (n rows, a few columns): the
// projections against locked eigenvectors and the orthonormalizations of
// the shift-invert eigensolver. A general matrix product splits its output
// into 64×64 tiles and hands them to goroutines; an n×1 output is then
// hundreds of tiles of one column, and the product of 50,000 rows by 4
// columns took about a millisecond where reading its operands takes a
// tenth of that (pprof of Laplacian eigenmaps at 50,000 points). These run
// over fixed chunks of rows instead, in parallel, and add the chunks'
// partial sums in chunk order, so that the result does not depend on the
// number of goroutines.

// tallChunk is the rows of one chunk; tallMaxWidth the most columns
// (l·p) the loops take before a general product is faster.
const (
	tallChunk    = 4096
	tallMaxWidth = 64
)

// tallTN sets the l×p c = xᵀ·y for x n×l and y n×p.
func tallTN(x, y, c blas64.General) {
	n, l, p := x.Rows, x.Cols, y.Cols
	if l*p > tallMaxWidth {
		backend.Active().Gemm(blas.Trans, blas.NoTrans, 1, x, y, 0, c)
		return
	}
	chunks := (n + tallChunk - 1) / tallChunk
	part := make([]float64, max(1, chunks)*l*p)
	backend.ParallelFor(chunks, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			acc := part[ch*l*p : (ch+1)*l*p]
			for i := ch * tallChunk; i < min(n, (ch+1)*tallChunk); i++ {
				xi := x.Data[i*x.Stride : i*x.Stride+l]
				yi := y.Data[i*y.Stride : i*y.Stride+p]
				for a, xa := range xi {
					row := acc[a*p : (a+1)*p]
					for b, yb := range yi {
						row[b] += xa * yb
					}
				}
			}
		}
	})
	for a := range l {
		row := c.Data[a*c.Stride : a*c.Stride+p]
		clear(row)
		for ch := range chunks {
			for b, v := range part[ch*l*p+a*p : ch*l*p+(a+1)*p] {
				row[b] += v
			}
		}
	}
}

// tallNN sets the n×p y = alpha·x·t + beta·y for x n×l and t l×p (beta 0
// or 1; y must not share memory with x).
func tallNN(alpha float64, x, t blas64.General, beta float64, y blas64.General) {
	n, l, p := x.Rows, x.Cols, t.Cols
	if l*p > tallMaxWidth || beta != 0 && beta != 1 {
		backend.Active().Gemm(blas.NoTrans, blas.NoTrans, alpha, x, t, beta, y)
		return
	}
	backend.ParallelFor((n+tallChunk-1)/tallChunk, 1, func(lo, hi int) {
		for i := lo * tallChunk; i < min(n, hi*tallChunk); i++ {
			xi := x.Data[i*x.Stride : i*x.Stride+l]
			yi := y.Data[i*y.Stride : i*y.Stride+p]
			if beta == 0 {
				clear(yi)
			}
			for a, xa := range xi {
				xa *= alpha
				for b, tb := range t.Data[a*t.Stride : a*t.Stride+p] {
					yi[b] += xa * tb
				}
			}
		}
	})
}
