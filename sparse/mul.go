package sparse

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// The operator method set (see backend/ops.go and CONTRIBUTING.md): Dims,
// MulVecTo, MulTransVecTo, MulBlockTo, MulTransBlockTo, all with overwrite
// semantics. The products with A run in parallel over rows; the products
// with Aᵀ scatter, so each worker accumulates into a private buffer over a
// contiguous range of rows and the buffers are summed in parallel at the
// end (memory Workers()·c·b floats while the call runs).

// serialNNZ: below this many stored entries a product runs on one goroutine.
const serialNNZ = 1 << 14

// rowGrain returns a chunk size for ParallelFor over the rows of a that
// gives chunks of about 4096 stored entries.
func (a *CSR) rowGrain() int {
	if a.r == 0 {
		return 1
	}
	avg := max(1, a.NNZ()/a.r)
	return max(16, 4096/avg)
}

// MulVecTo sets dst = A·x (nnz flam). It panics if len(dst) ≠ r or len(x) ≠ c.
func (a *CSR) MulVecTo(dst, x []float64) {
	if len(dst) != a.r || len(x) != a.c {
		panic(fmt.Sprintf("sparse: MulVecTo: A is %d×%d, dst has length %d, x has %d", a.r, a.c, len(dst), len(x)))
	}
	body := func(lo, hi int) {
		indptr, ind, data := a.indptr, a.ind, a.data
		for i := lo; i < hi; i++ {
			s := 0.0
			p0, p1 := indptr[i], indptr[i+1]
			cols, vals := ind[p0:p1], data[p0:p1]
			vals = vals[:len(cols)]
			for k, j := range cols {
				s += vals[k] * x[j]
			}
			dst[i] = s
		}
	}
	if a.NNZ() < serialNNZ {
		body(0, a.r)
		return
	}
	backend.ParallelFor(a.r, a.rowGrain(), body)
}

// MulTransVecTo sets dst = Aᵀ·x (nnz flam). It panics if len(dst) ≠ c or
// len(x) ≠ r.
func (a *CSR) MulTransVecTo(dst, x []float64) {
	if len(dst) != a.c || len(x) != a.r {
		panic(fmt.Sprintf("sparse: MulTransVecTo: A is %d×%d, dst has length %d, x has %d", a.r, a.c, len(dst), len(x)))
	}
	a.scatter(dst, 1, func(buf []float64, lo, hi int) {
		for i := lo; i < hi; i++ {
			xi := x[i]
			if xi == 0 {
				continue
			}
			p0, p1 := a.indptr[i], a.indptr[i+1]
			cols, vals := a.ind[p0:p1], a.data[p0:p1]
			vals = vals[:len(cols)]
			for k, j := range cols {
				buf[j] += vals[k] * xi
			}
		}
	})
}

// MulBlockTo sets dst = A·X with X c×b and dst r×b (nnz·b flam). It panics
// on a shape mismatch.
func (a *CSR) MulBlockTo(dst, x blas64.General) {
	a.mulBlock(context.Background(), dst, x)
}

// MulBlockCtx is MulBlockTo that checks ctx between blocks of rows (a few
// milliseconds of work each); cancelled, it returns an error wrapping
// ctx.Err() and dst holds a partial product.
func (a *CSR) MulBlockCtx(ctx context.Context, dst, x blas64.General) error {
	if err := a.mulBlock(ctx, dst, x); err != nil {
		return fmt.Errorf("sparse: product cancelled: %w", err)
	}
	return nil
}

func (a *CSR) mulBlock(ctx context.Context, dst, x blas64.General) error {
	if dst.Rows != a.r || x.Rows != a.c || dst.Cols != x.Cols {
		panic(fmt.Sprintf("sparse: MulBlockTo: A is %d×%d, dst %d×%d, X %d×%d", a.r, a.c, dst.Rows, dst.Cols, x.Rows, x.Cols))
	}
	b := x.Cols
	body := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p0, p1 := a.indptr[i], a.indptr[i+1]
			mulBlockRow(dst.Data[i*dst.Stride:i*dst.Stride+b], a.ind[p0:p1], a.data[p0:p1], x)
		}
	}
	if a.NNZ()*max(1, b) < serialNNZ {
		body(0, a.r)
		return ctx.Err()
	}
	return backend.ParallelForCtx(ctx, a.r, max(1, a.rowGrain()/max(1, b)), body)
}

// mulBlockRow sets d = Σ_p vals[p]·X[cols[p], :], four columns (then two,
// then one) at a time in registers; each entry sums over p in order from
// zero, as a plain loop would.
func mulBlockRow(d []float64, cols []int, vals []float64, x blas64.General) {
	vals = vals[:len(cols)]
	b, k := len(d), 0
	for ; k+4 <= b; k += 4 {
		var s0, s1, s2, s3 float64
		for p, j := range cols {
			v, xr := vals[p], x.Data[j*x.Stride+k:j*x.Stride+k+4]
			s0 += v * xr[0]
			s1 += v * xr[1]
			s2 += v * xr[2]
			s3 += v * xr[3]
		}
		d[k], d[k+1], d[k+2], d[k+3] = s0, s1, s2, s3
	}
	if k+2 <= b {
		var s0, s1 float64
		for p, j := range cols {
			v, xr := vals[p], x.Data[j*x.Stride+k:j*x.Stride+k+2]
			s0 += v * xr[0]
			s1 += v * xr[1]
		}
		d[k], d[k+1] = s0, s1
		k += 2
	}
	if k < b {
		var s0 float64
		for p, j := range cols {
			s0 += vals[p] * x.Data[j*x.Stride+k]
		}
		d[k] = s0
	}
}

// MulTransBlockTo sets dst = Aᵀ·X with X r×b and dst c×b (nnz·b flam). It
// panics on a shape mismatch.
func (a *CSR) MulTransBlockTo(dst, x blas64.General) {
	if dst.Rows != a.c || x.Rows != a.r || dst.Cols != x.Cols {
		panic(fmt.Sprintf("sparse: MulTransBlockTo: A is %d×%d, dst %d×%d, X %d×%d", a.r, a.c, dst.Rows, dst.Cols, x.Rows, x.Cols))
	}
	b := x.Cols
	if b == 0 {
		return
	}
	// Work on a contiguous c×b buffer (dst itself when its stride is b).
	out := dst.Data
	if dst.Stride != b {
		out = make([]float64, a.c*b)
	}
	a.scatter(out[:a.c*b], b, func(buf []float64, lo, hi int) {
		for i := lo; i < hi; i++ {
			xr := x.Data[i*x.Stride : i*x.Stride+b]
			for p := a.indptr[i]; p < a.indptr[i+1]; p++ {
				v := a.data[p]
				d := buf[a.ind[p]*b:]
				d = d[:len(xr)]
				for k, xv := range xr {
					d[k] += v * xv
				}
			}
		}
	})
	if dst.Stride != b {
		for j := 0; j < a.c; j++ {
			copy(dst.Data[j*dst.Stride:j*dst.Stride+b], out[j*b:(j+1)*b])
		}
	}
}

// scatter runs body over all rows of a, each worker on a contiguous range of
// rows with its own zeroed accumulator of len(dst) (the first worker uses
// dst), then sums the accumulators into dst. b is the width of a row of the
// accumulator, used only to size the work.
func (a *CSR) scatter(dst []float64, b int, body func(buf []float64, lo, hi int)) {
	clear(dst)
	w := backend.Workers()
	if w <= 1 || a.NNZ()*b < serialNNZ || a.r < 2 {
		body(dst, 0, a.r)
		return
	}
	w = min(w, a.r)
	// Split the rows into w ranges of about equal nnz.
	bounds := make([]int, w+1)
	nnz := a.NNZ()
	for k, i := 1, 0; k < w; k++ {
		target := nnz * k / w
		for i < a.r && a.indptr[i] < target {
			i++
		}
		bounds[k] = i
	}
	bounds[w] = a.r
	bufs := make([][]float64, w)
	bufs[0] = dst
	for k := 1; k < w; k++ {
		bufs[k] = make([]float64, len(dst))
	}
	backend.ParallelFor(w, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			body(bufs[k], bounds[k], bounds[k+1])
		}
	})
	backend.ParallelFor(len(dst), 4096, func(lo, hi int) {
		d := dst[lo:hi]
		for k := 1; k < w; k++ {
			src := bufs[k][lo:hi]
			src = src[:len(d)]
			for i, v := range src {
				d[i] += v
			}
		}
	})
}
