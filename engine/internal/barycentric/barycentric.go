package barycentric

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/internal/errs"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// Weights returns the CSR of barycentric weights (q.Rows×n) that
// reconstruct each query row of q from its neighbours nb among the rows of
// x: G = C·Cᵀ with C the neighbours minus the query (eq. 63),
// G += reg·trace(G)·I (reg alone when the trace is 0), G·w = 1, w /= Σw
// (eq. 64). In parallel over queries, ctx checked per chunk.
func Weights(ctx context.Context, x, q blas64.General, nb *neighbors.Result, reg float64, n int) (*sparse.CSR, error) {
	d := q.Cols
	return From(ctx, nb, q.Rows, n, 256, reg, func() func(i int, js []int, gm []float64) {
		var c []float64
		return func(i int, js []int, gm []float64) {
			k := len(js)
			if cap(c) < k*d {
				c = make([]float64, k*d)
			}
			c = c[:k*d]
			qi := q.Data[i*q.Stride : i*q.Stride+d]
			for a, j := range js {
				xj := x.Data[j*x.Stride : j*x.Stride+d]
				ca := c[a*d : (a+1)*d]
				for t := range ca {
					ca[t] = xj[t] - qi[t]
				}
			}
			cg := blas64.General{Rows: k, Cols: d, Stride: max(1, d), Data: c}
			gs := blas64.Symmetric{N: k, Stride: k, Uplo: blas.Lower, Data: gm}
			backend.Local().Syrk(blas.NoTrans, 1, cg, 0, gs)
		}
	})
}

// From is Weights for local Gram matrices computed by the caller (rows
// known only through their dot products, say): for each of the nq
// queries, in parallel chunks of grain queries with ctx checked per chunk,
// gram fills the k×k local Gram matrix gm of query i's neighbours js (at
// least its lower triangle), the regularised solve turns it into weights,
// and the rows come back as an nq×n CSR with sorted columns. newGram is
// called once per chunk, so the function it returns may keep scratch. A
// local Gram matrix that is not positive definite after the
// regularisation gives an error wrapping errs.Numerical (engine's
// ErrNumerical) that names the query.
func From(ctx context.Context, nb *neighbors.Result, nq, n, grain int, reg float64, newGram func() func(i int, js []int, gm []float64)) (*sparse.CSR, error) {
	indptr := append([]int(nil), nb.Ptr[:nq+1]...)
	ind := make([]int, len(nb.Ind))
	val := make([]float64, len(nb.Ind))
	failed := make([]error, nq)
	err := backend.ParallelForCtx(ctx, nq, grain, func(lo, hi int) {
		gram := newGram()
		var gm, rhs []float64
		for i := lo; i < hi; i++ {
			js, _ := nb.Row(i)
			k := len(js)
			if cap(gm) < k*k {
				gm, rhs = make([]float64, k*k), make([]float64, k)
			}
			gm, rhs = gm[:k*k], rhs[:k]
			gram(i, js, gm)
			if err := solve(gm, k, reg, rhs); err != nil {
				failed[i] = fmt.Errorf("point %d: %w", i, err)
				continue
			}
			base := nb.Ptr[i]
			for a, j := range js {
				ind[base+a] = j
				val[base+a] = rhs[a]
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for _, e := range failed {
		if e != nil {
			return nil, e
		}
	}
	// Rows of a CSR need sorted column indices.
	for i := 0; i < nq; i++ {
		sortRow(ind[indptr[i]:indptr[i+1]], val[indptr[i]:indptr[i+1]])
	}
	return sparse.NewCSR(nq, n, indptr, ind, val)
}

// solve turns the k×k local Gram matrix G (lower triangle
// read; destroyed) into the reconstruction weights w: G += reg·trace(G)·I
// (reg alone when the trace is 0: scikit-learn's rule, needed whenever
// K > D makes G singular), G·w = 1, w /= Σw (eq. 64).
func solve(gm []float64, k int, reg float64, w []float64) error {
	tr := 0.0
	for a := 0; a < k; a++ {
		tr += gm[a*k+a]
	}
	r := reg
	if tr > 0 {
		r = reg * tr
	}
	for a := 0; a < k; a++ {
		gm[a*k+a] += r
		w[a] = 1
	}
	gs := blas64.Symmetric{N: k, Stride: k, Uplo: blas.Lower, Data: gm}
	if err := backend.Local().Potrf(gs); err != nil {
		return fmt.Errorf("%w: the local Gram matrix is not positive definite (reg = %v)", errs.Numerical, reg)
	}
	backend.Local().Potrs(gs, blas64.General{Rows: k, Cols: 1, Stride: 1, Data: w})
	sum := 0.0
	for _, v := range w {
		sum += v
	}
	for a := range w {
		w[a] /= sum
	}
	return nil
}

// sortRow sorts a short row by column index (insertion sort).
func sortRow(ind []int, val []float64) {
	for i := 1; i < len(ind); i++ {
		for j := i; j > 0 && ind[j] < ind[j-1]; j-- {
			ind[j], ind[j-1] = ind[j-1], ind[j]
			val[j], val[j-1] = val[j-1], val[j]
		}
	}
}
