package bottom

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// Dense is the dense path: the eigenpairs of b (densified: n² values),
// the null space counted, u projected out and the dim smallest pairs on
// its complement by a Rayleigh–Ritz step.
func Dense(ctx context.Context, b *sparse.CSR, u []float64, dim int) (*Result, error) {
	n, _ := b.Dims()
	sym := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: b.ToDense().RawMatrix().Data}
	return DenseOf(ctx, sym, Gershgorin(b), b.MulBlockTo, u, dim)
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
	cp := dense.Copy(blas64.General{Rows: n, Cols: m, Stride: vecs.Stride, Data: vecs.Data})
	q := orthonormalize(cp, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: u})
	if q.Cols < dim {
		return nil, fmt.Errorf("the bottom eigenvectors span only %d directions off the null vector (want %d)", q.Cols, dim)
	}
	w, v, _, err := rayleighRitzOf(mul, q)
	if err != nil {
		return nil, err
	}
	out.Values = w[:dim]
	out.Vectors = dense.Copy(blas64.General{Rows: n, Cols: dim, Stride: v.Stride, Data: v.Data})
	return out, nil
}

// Generalized returns the dim smallest eigenpairs of the dense a·y =
// λ·b·y (both L×L, row-major with stride L, upper triangles read; b
// positive definite; both destroyed) above the pair of the constant
// vector, whose eigenvalue is 0 when a's rows and columns sum to zero
// (the reduced problems Zᵀ·M·Z, Zᵀ·Z of the landmark methods): by b = RᵀR
// (backend.CholUpperCtx), the standard problem of S = R⁻ᵀ·a·R⁻¹ (two
// backend.RightSolveUpperCtx) on the complement of R·1 (DenseOf, which
// counts the null space), then y = R⁻¹·v, so that yᵀ·b·y = I. The
// vectors come signed by backend.FixSigns. A b that is not positive
// definite gives an error wrapping backend.ErrNotPositiveDefinite.
func Generalized(ctx context.Context, a, b blas64.General, dim int) (*Result, error) {
	l := a.Rows
	if err := backend.CholUpperCtx(ctx, backend.Active(), b); err != nil {
		return nil, err
	}
	r := blas64.Triangular{N: l, Stride: l, Uplo: blas.Upper, Diag: blas.NonUnit, Data: b.Data}
	for i := 0; i < l; i++ { // a's full square, then a·R⁻¹
		for j := i + 1; j < l; j++ {
			a.Data[j*a.Stride+i] = a.Data[i*a.Stride+j]
		}
	}
	if err := backend.RightSolveUpperCtx(ctx, backend.Active(), a, r); err != nil {
		return nil, err
	}
	sm := dense.New(l, l) // S = (a·R⁻¹)ᵀ·R⁻¹ = R⁻ᵀ·a·R⁻¹
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			sm.Data[j*l+i] = a.Data[i*l+j]
		}
	}
	if err := backend.RightSolveUpperCtx(ctx, backend.Active(), sm, r); err != nil {
		return nil, err
	}
	dense.Symmetrize(sm)
	norm := 0.0
	for i := 0; i < l; i++ {
		s := 0.0
		for _, v := range sm.Data[i*l : (i+1)*l] {
			s += math.Abs(v)
		}
		norm = max(norm, s)
	}
	u := make([]float64, l) // R·1, normalized
	un := 0.0
	for i := 0; i < l; i++ {
		for _, v := range b.Data[i*l+i : (i+1)*l] {
			u[i] += v
		}
		un += u[i] * u[i]
	}
	for i := range u {
		u[i] /= math.Sqrt(un)
	}
	sym := blas64.Symmetric{N: l, Stride: l, Uplo: blas.Upper, Data: sm.Data}
	mul := func(dst, src blas64.General) { backend.Local().Symm(blas.Left, 1, sym, src, 0, dst) }
	res, err := DenseOf(ctx, sym, norm, mul, u, dim)
	if err != nil {
		return nil, err
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, r, res.Vectors)
	backend.FixSigns(res.Vectors)
	return res, nil
}
