package sparse

import (
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// Reduction forms the reduced matrices Zᵀ·Z and Zᵀ·B·Z of a sparse N×L
// matrix Z with few entries a row, computed sparse-wise: Z the weights
// of locally linear landmarks (Vladymyrov & Carreira-Perpiñán, "Locally
// Linear Landmarks for Large-Scale Manifold Learning", ECML PKDD 2013),
// whose reduced generalized eigenproblem (Zᵀ·B·Z)·ỹ = λ·(Zᵀ·Z)·ỹ
// approximates the bottom of B = LLE's M = (I − W)ᵀ(I − W) (Roweis &
// Saul, "Nonlinear dimensionality reduction by locally linear
// embedding", Science 290, 2000; never formed: LLE) or of a formed B
// (Of). It holds Z and a copy of its rows with 32-bit column indices at
// a fixed stride s (the longest row's length), 4·N·(3·s + 1) bytes.
// Every entry sums over rows in ascending order, so the results are the
// same bit for bit at any GOMAXPROCS. A Reduction is safe for concurrent
// use.
type Reduction struct {
	z    *CSR
	rows rowSet
}

// NewReduction copies Z's rows for the products of a Reduction (Z is
// kept, not copied: it must not change).
func NewReduction(z *CSR) *Reduction {
	return &Reduction{z: z, rows: rowSetOf(z)}
}

// Gram returns the upper triangle of Zᵀ·Z (L×L, dense, row-major; the
// strict lower triangle zero). Cancelled, it returns an error wrapping
// ctx.Err().
func (r *Reduction) Gram(ctx context.Context) (blas64.General, error) {
	_, l := r.z.Dims()
	return upperGram(ctx, r.rows, l)
}

// LLE returns the upper triangle of Zᵀ·M·Z for M = (I − W)ᵀ(I − W), W
// N×N (LLE's reconstruction weights), without forming M: the Gram matrix
// of (I − W)·Z, whose row i is Z's row i less the weighted rows of i's
// neighbours, merged sparse-wise. L×L, dense, row-major, the strict lower
// triangle zero. Cancelled, it returns an error wrapping ctx.Err().
func (r *Reduction) LLE(ctx context.Context, w *CSR) (blas64.General, error) {
	_, l := r.z.Dims()
	cz, err := reduceWeights(ctx, w, r.rows, l)
	if err != nil {
		return blas64.General{}, err
	}
	return upperGram(ctx, cz, l)
}

// Of returns Zᵀ·B·Z for a formed B (N×N; LTSA's alignment matrix), both
// triangles (L×L, dense, row-major): row a is Σ_r Z_ra·(B_r·Z) over the
// points r whose row of Z holds column a, in ascending order, rows in
// parallel. Cancelled, it returns an error wrapping ctx.Err().
func (r *Reduction) Of(ctx context.Context, b *CSR) (blas64.General, error) {
	_, l := r.z.Dims()
	zt := r.z.Transpose()
	out := blas64.General{Rows: l, Cols: l, Stride: l, Data: make([]float64, l*l)}
	err := backend.ParallelForCtx(ctx, l, 1, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			row := out.Data[a*l : (a+1)*l]
			rs, za := zt.Row(a)
			for p, i := range rs {
				bc, bv := b.Row(i)
				for q, j := range bc {
					f := za[p] * bv[q]
					zcol, zv := r.rows.row(j)
					for t, c := range zcol {
						row[c] += f * zv[t]
					}
				}
			}
		}
	})
	return out, err
}

// rowSet is a sparse matrix by rows of at most stride entries each, with
// 32-bit column indices sorted within each row: Z and (I − W)·Z.
type rowSet struct {
	stride int
	count  []int32
	ind    []int32
	val    []float64
}

// rowSetOf copies a CSR into a rowSet.
func rowSetOf(a *CSR) rowSet {
	n, _ := a.Dims()
	ptr := a.RowPtr()
	stride := 0
	for i := 0; i < n; i++ {
		stride = max(stride, ptr[i+1]-ptr[i])
	}
	rs := rowSet{stride: stride, count: make([]int32, n), ind: make([]int32, n*stride), val: make([]float64, n*stride)}
	for i := 0; i < n; i++ {
		cols, vals := a.Row(i)
		rs.count[i] = int32(len(cols))
		for p, j := range cols {
			rs.ind[i*stride+p] = int32(j)
		}
		copy(rs.val[i*stride:], vals)
	}
	return rs
}

// row returns row i's columns and values.
func (rs rowSet) row(i int) ([]int32, []float64) {
	lo := i * rs.stride
	hi := lo + int(rs.count[i])
	return rs.ind[lo:hi], rs.val[lo:hi]
}

// rowSetGrain is how many rows a parallel chunk of a rowSet pass takes.
const rowSetGrain = 4096

// reduceWeights returns (I − W)·Z (N×L): row i is Z's row i less the
// weighted rows of i's neighbours, merged in a dense accumulator.
func reduceWeights(ctx context.Context, w *CSR, z rowSet, l int) (rowSet, error) {
	n := len(z.count)
	wptr := w.RowPtr()
	stride := 0
	for i := 0; i < n; i++ {
		stride = max(stride, (wptr[i+1]-wptr[i]+1)*z.stride)
	}
	stride = min(stride, l)
	out := rowSet{stride: stride, count: make([]int32, n), ind: make([]int32, n*stride), val: make([]float64, n*stride)}
	err := backend.ParallelForCtx(ctx, n, rowSetGrain, func(lo, hi int) {
		acc := make([]float64, l)
		mark := make([]int32, l)
		for j := range mark {
			mark[j] = -1
		}
		var cols []int32
		for i := lo; i < hi; i++ {
			cols = cols[:0]
			add := func(zr int, f float64) {
				zc, zv := z.row(zr)
				for p, j := range zc {
					if mark[j] != int32(i) {
						mark[j], acc[j] = int32(i), 0
						cols = append(cols, j)
					}
					acc[j] += f * zv[p]
				}
			}
			add(i, 1)
			wc, wv := w.Row(i)
			for p, j := range wc {
				add(j, -wv[p])
			}
			slices.Sort(cols)
			base := i * stride
			out.count[i] = int32(len(cols))
			for p, j := range cols {
				out.ind[base+p], out.val[base+p] = j, acc[j]
			}
		}
	})
	return out, err
}

// upperGram returns the upper triangle of rsᵀ·rs (L×L, dense, row-major):
// blocks of its rows in parallel, each scanning every row of rs and
// adding the products of the entries in its columns, rows in ascending
// order (so the sums do not depend on the number of workers). The blocks
// are cut so that each holds about the same share of the products (an
// entry at relative column x has about 1 − x of its row after it).
func upperGram(ctx context.Context, rs rowSet, l int) (blas64.General, error) {
	out := blas64.General{Rows: l, Cols: l, Stride: l, Data: make([]float64, l*l)}
	nb := min(l, 4*backend.Workers())
	cut := make([]int, nb+1)
	for b := range cut {
		cut[b] = min(l, int(math.Ceil(float64(l)*(1-math.Sqrt(1-float64(b)/float64(nb))))))
	}
	n := len(rs.count)
	err := backend.ParallelForCtx(ctx, nb, 1, func(b0, b1 int) {
		for b := b0; b < b1; b++ {
			lo, hi := int32(cut[b]), int32(cut[b+1])
			for i := 0; i < n; i++ {
				if i%rowSetGrain == 0 && ctx.Err() != nil {
					return
				}
				cols, vals := rs.row(i)
				p := 0
				for p < len(cols) && cols[p] < lo {
					p++
				}
				for ; p < len(cols) && cols[p] < hi; p++ {
					vp := vals[p]
					row := out.Data[int(cols[p])*l : int(cols[p]+1)*l]
					for q := p; q < len(cols); q++ {
						row[cols[q]] += vp * vals[q]
					}
				}
			}
		}
	})
	if err == nil {
		err = ctx.Err()
	}
	return out, err
}
