package bottom

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/sparse"
)

// Dense is the dense path: the eigenpairs of b (densified: n² values),
// the null space counted, u projected out and the dim smallest pairs on
// its complement by a Rayleigh–Ritz step.
func Dense(ctx context.Context, b *sparse.CSR, u []float64, dim int) (*Result, error) {
	return DenseOf(ctx, denseSymmetric(b), Gershgorin(b), b.MulBlockTo, u, dim)
}

// DenseOf is Dense of the dense symmetric sym (the triangle its Uplo
// names is read), whose norm is at most norm and whose product mul writes
// (dst = sym·src).
func DenseOf(ctx context.Context, sym blas64.Symmetric, norm float64, mul func(dst, src blas64.General), u []float64, dim int) (*Result, error) {
	n := sym.N
	thr := NullRel * norm
	kk := min(n, dim+1+certExtra)
	var vals []float64
	var vecs blas64.General
	for {
		var err error
		cp := blas64.Symmetric{N: n, Stride: n, Uplo: sym.Uplo, Data: slices.Clone(sym.Data)}
		vals, vecs, err = backend.EigBottomCtx(ctx, backend.Active(), cp, kk)
		if err != nil {
			return nil, err
		}
		if vals[kk-1] > thr || kk == n {
			break
		}
		kk = min(n, 2*kk)
	}
	out := &Result{}
	for _, v := range vals {
		if v <= thr {
			out.Nullity++
		}
	}
	out.NullAtLeast = out.Nullity == kk && kk < n
	// Keep the pairs up to the dim+1-th and every one tied with it, so that
	// the span is invariant; project u out.
	m := dim + 1
	for m < kk && vals[m]-vals[dim] <= max(thr, 1e-12*norm) {
		m++
	}
	cp := copyGeneral(blas64.General{Rows: n, Cols: m, Stride: vecs.Stride, Data: vecs.Data})
	q := orthonormalize(cp, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: u})
	if q.Cols < dim {
		return nil, fmt.Errorf("the bottom eigenvectors span only %d directions off the null vector (want %d)", q.Cols, dim)
	}
	w, v, _, err := rayleighRitzOf(mul, q)
	if err != nil {
		return nil, err
	}
	out.Values = w[:dim]
	out.Vectors = copyGeneral(blas64.General{Rows: n, Cols: dim, Stride: v.Stride, Data: v.Data})
	return out, nil
}
