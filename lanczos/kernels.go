package lanczos

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// The basis is kept as rows: vector i of a p×n block is data[i*n:(i+1)*n],
// contiguous, so the vector form of an operator needs no copies and the
// Gram–Schmidt products are matrix–matrix products. The kernels below split
// the length n into a fixed number of column chunks (a function of n only,
// never of the core count), run the chunks in parallel and reduce their
// partial sums in chunk order: the results are deterministic.

// chunkWidth is the width of the column chunks for vectors of length n: at
// least 512 columns, at most 64 chunks.
func chunkWidth(n int) int { return max(512, (n+63)/64) }

func rowsView(data []float64, rows, n int) blas64.General {
	if rows == 0 || n == 0 {
		return blas64.General{Rows: rows, Cols: n, Stride: max(1, n)}
	}
	return blas64.General{Rows: rows, Cols: n, Stride: n, Data: data[:rows*n]}
}

// colChunk returns columns [lo, hi) of the p×n row block data.
func colChunk(data []float64, p, n, lo, hi int) blas64.General {
	if p == 0 || hi == lo {
		return blas64.General{Rows: p, Cols: hi - lo, Stride: max(1, n)}
	}
	return blas64.General{Rows: p, Cols: hi - lo, Stride: n, Data: data[lo : (p-1)*n+hi]}
}

// gram sets h (p×b, row-major, stride b) = V·Wᵀ for the p×n V and b×n W.
func gram(h, v []float64, p int, w []float64, b, n int) {
	clear(h[:p*b])
	if p == 0 || b == 0 || n == 0 {
		return
	}
	cw := chunkWidth(n)
	chunks := (n + cw - 1) / cw
	if chunks == 1 {
		backend.Local().Gemm(blas.NoTrans, blas.Trans, 1, rowsView(v, p, n), rowsView(w, b, n), 0,
			blas64.General{Rows: p, Cols: b, Stride: b, Data: h})
		return
	}
	part := make([]float64, chunks*p*b)
	backend.ParallelFor(chunks, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			c0, c1 := c*cw, min(n, (c+1)*cw)
			backend.Local().Gemm(blas.NoTrans, blas.Trans, 1, colChunk(v, p, n, c0, c1), colChunk(w, b, n, c0, c1), 0,
				blas64.General{Rows: p, Cols: b, Stride: b, Data: part[c*p*b : (c+1)*p*b]})
		}
	})
	for c := 0; c < chunks; c++ {
		for i, x := range part[c*p*b : (c+1)*p*b] {
			h[i] += x
		}
	}
}

// subtract sets W −= hᵀ·V for the b×n W, p×b h and p×n V.
func subtract(w, h, v []float64, p, b, n int) {
	if p == 0 || b == 0 || n == 0 {
		return
	}
	hg := blas64.General{Rows: p, Cols: b, Stride: b, Data: h}
	cw := chunkWidth(n)
	chunks := (n + cw - 1) / cw
	backend.ParallelFor(chunks, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			c0, c1 := c*cw, min(n, (c+1)*cw)
			backend.Local().Gemm(blas.Trans, blas.NoTrans, -1, hg, colChunk(v, p, n, c0, c1), 1, colChunk(w, b, n, c0, c1))
		}
	})
}

// combine sets the q×n out = Sᵀ·V for the p×n V and the p×q S (row-major,
// stride lds). out may be the first q rows of V: every chunk of columns is
// read in full before it is written.
func combine(out, v []float64, p int, s []float64, q, lds, n int) {
	if q == 0 || n == 0 {
		return
	}
	sg := blas64.General{Rows: p, Cols: q, Stride: lds, Data: s}
	cw := chunkWidth(n)
	chunks := (n + cw - 1) / cw
	backend.ParallelFor(chunks, 1, func(lo, hi int) {
		tmp := make([]float64, q*cw)
		for c := lo; c < hi; c++ {
			c0, c1 := c*cw, min(n, (c+1)*cw)
			w := c1 - c0
			t := blas64.General{Rows: q, Cols: w, Stride: w, Data: tmp[:q*w]}
			backend.Local().Gemm(blas.Trans, blas.NoTrans, 1, sg, colChunk(v, p, n, c0, c1), 0, t)
			for i := 0; i < q; i++ {
				copy(out[i*n+c0:i*n+c1], tmp[i*w:(i+1)*w])
			}
		}
	})
}

func allFinite(x []float64) bool {
	for _, v := range x {
		if v-v != 0 {
			return false
		}
	}
	return true
}
