package engine

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lanczos"
	"github.com/manifoldlab/manifold/sparse"
)

// Shift-invert Lanczos for the bottom of a sparse positive semi-definite
// matrix B (LLE's M, LTSA's alignment matrix): the k smallest eigenpairs
// of B are the k largest of (B + ε·I)⁻¹, whose leading eigenvalues
// 1/(λ + ε) are far apart where the λ crowd near 0 — the regime in which
// plain or filtered Lanczos on B needs thousands of products. scikit-learn
// does the same with ARPACK (sigma = 0) and SuperLU; here the solves use an
// envelope Cholesky factor of B + ε·I on a reverse Cuthill–McKee ordering
// (sparse.NewCholesky), and the eigenvalues are recomputed as Rayleigh
// quotients vᵀBv.

const (
	// shiftRel is ε/‖B‖: B + ε·I is positive definite although B is
	// singular (λ₀ = 0), with condition ≤ 1/shiftRel.
	shiftRel = 1e-9
	// maxEnvelopeFlam bounds the factorization's cost (the envelope of a
	// neighbour graph of a 2-D manifold grows like N^1.5; beyond this the
	// filtered Lanczos is cheaper).
	maxEnvelopeFlam = 2e10
)

// shiftInvertBottom returns the k smallest eigenpairs of b, ascending, and
// ok = false (and no error) when the factor would not fit the memory
// budget or cost too much, so the caller falls back.
func shiftInvertBottom(ctx context.Context, r *run, b *sparse.CSR, k int, seed uint64) ([]float64, blas64.General, string, bool, error) {
	n, _ := b.Dims()
	entries, ff := sparse.EnvelopeSize(b)
	if ff > maxEnvelopeFlam || (r.opts.MaxBytes > 0 && int64(entries)*8 > r.opts.MaxBytes/2) {
		return nil, blas64.General{}, "", false, nil
	}
	// ‖B‖ by Gershgorin (B is symmetric).
	ptr, val := b.RowPtr(), b.Values()
	norm := 0.0
	for i := 0; i < n; i++ {
		s := 0.0
		for p := ptr[i]; p < ptr[i+1]; p++ {
			s += math.Abs(val[p])
		}
		norm = max(norm, s)
	}
	if norm == 0 {
		return nil, blas64.General{}, "", false, nil
	}
	eps := shiftRel * norm
	chol, err := sparse.NewCholesky(ctx, b, eps)
	if err != nil {
		if isCtxErr(err) {
			return nil, blas64.General{}, "", false, err
		}
		return nil, blas64.General{}, "", false, nil // not positive definite after all: fall back
	}
	// When the constant vector is in the null space (LLE's M, LTSA's B and
	// graph Laplacians all have B·1 = 0), deflate it: work on
	// P·(B + εI)⁻¹·P with P = I − 11ᵀ/n, whose top eigenvalue is
	// 1/(λ₁ + ε) instead of 1/ε, so the Lanczos tolerance (relative to the
	// top) resolves λ₁…λ_k, and prepend (0, 1/√n).
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	b1 := make([]float64, n)
	b.MulVecTo(b1, ones)
	deflate := true
	for _, v := range b1 {
		if math.Abs(v) > 1e-10*norm {
			deflate = false
			break
		}
	}
	center := func(x []float64) {
		m := 0.0
		for _, v := range x {
			m += v
		}
		m /= float64(n)
		for i := range x {
			x[i] -= m
		}
	}
	mul := chol.SolveTo
	kk := k
	if deflate {
		kk = k - 1
		mul = func(dst, x []float64) {
			tmp := append([]float64(nil), x...)
			center(tmp)
			chol.SolveTo(dst, tmp)
			center(dst)
		}
	}
	var res *lanczos.Result
	if kk > 0 {
		op := lanczos.Func{N: n, Mul: mul, Flam: 2 * float64(chol.Size())}
		res, err = lanczos.Solve(ctx, op, lanczos.Settings{K: kk, Seed: seed, Tol: 1e-10})
		if err != nil {
			return nil, blas64.General{}, "", false, wrapNumerical(err)
		}
	}
	vecs := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	off := 0
	if deflate {
		off = 1
		inv := 1 / math.Sqrt(float64(n))
		for i := 0; i < n; i++ {
			vecs.Data[i*k] = inv
		}
	}
	for i := 0; i < n && res != nil; i++ {
		copy(vecs.Data[i*k+off:(i+1)*k], res.Vectors.Data[i*res.Vectors.Stride:i*res.Vectors.Stride+kk])
	}
	// The eigenvalues of B: Rayleigh quotients, in ascending order (the
	// largest 1/(λ + ε) come first, so the order is already ascending in λ).
	vals := make([]float64, k)
	bv := make([]float64, n)
	col := make([]float64, n)
	for j := 0; j < k; j++ {
		for i := 0; i < n; i++ {
			col[i] = vecs.Data[i*k+j]
		}
		b.MulVecTo(bv, col)
		q := 0.0
		for i, v := range col {
			q += v * bv[i]
		}
		vals[j] = max(q, 0)
	}
	backend.FixSigns(vecs)
	solves := 0
	if res != nil {
		solves = res.Stats.MatVecs
	}
	detail := fmt.Sprintf("shift-invert lanczos (envelope Cholesky, %d entries, %.3g flam; %d solves; constant deflated: %v)", entries, ff, solves, deflate)
	return vals, vecs, detail, true, nil
}
