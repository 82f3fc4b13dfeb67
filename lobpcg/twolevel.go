package lobpcg

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

// TwoLevel is the additive two-level preconditioner of a positive
// semidefinite B whose null space holds the constant vector, from a coarse
// space Z (N×L, its rows summing to 1: the weights of landmarks, as in
// Vladymyrov & Carreira-Perpiñán, ECML PKDD 2013) and B's diagonal D:
//
//	T = Z·(Zᵀ·B·Z)⁺·Zᵀ + D⁻¹,
//
// the coarse term for the smooth functions Z spans, Jacobi for the rest
// (a zero diagonal entry, a zero row of B, gets no Jacobi term). Its Apply
// is a Problem's Prec.
type TwoLevel struct {
	z, zt  *sparse.CSR
	coarse blas64.General // (Zᵀ·M·Z)⁺, L×L
	dinv   []float64
	c1, c2 blas64.General // L×b scratch
}

// NewTwoLevel makes the preconditioner from Z, Zᵀ·B·Z (L×L, both
// triangles; destroyed) and diag(B), for blocks of at most b columns. It
// fails when the coarse matrix's eigendecomposition does (an error saying
// so), or with ctx's error.
func NewTwoLevel(ctx context.Context, z *sparse.CSR, am blas64.General, d []float64, b int) (*TwoLevel, error) {
	l := am.Rows
	coarse, err := coarseInverse(ctx, am)
	if err != nil {
		return nil, err
	}
	t := &TwoLevel{z: z, zt: z.Transpose(), coarse: coarse, dinv: make([]float64, len(d)), c1: dense.New(l, b), c2: dense.New(l, b)}
	for i, x := range d {
		if x > 0 { // M_ii = 0: row i of the positive semidefinite M is zero
			t.dinv[i] = 1 / x
		}
	}
	return t, nil
}

// coarseCond bounds the 1-norm condition number of Zᵀ·B·Z + s·e·eᵀ up to
// which coarseInverse takes its inverse from the Cholesky factor: its
// eigenvalues are then at least 1e-9 of its largest (κ₂ ≤ κ₁ for a
// symmetric matrix), none that the pseudo-inverse would drop.
const coarseCond = 1e9

// coarseInverse returns the pseudo-inverse of the L×L positive
// semidefinite A = Zᵀ·B·Z (both triangles; destroyed), whose null space
// holds e = 1/√L (Z·1 = 1, B·1 = 0). First by Cholesky: with s = tr(A)/L,
// (A + s·e·eᵀ)⁻¹ = A⁺ + e·eᵀ/s where A·e = 0 and its other eigenvalues are
// not null (the 1-norm condition number at most coarseCond), L³ flam;
// otherwise (more null vectors: LTSA's B on data in clusters) from the
// eigendecomposition, dropping eigenvalues at most 1e-12 of the largest,
// about 9·L³.
func coarseInverse(ctx context.Context, am blas64.General) (blas64.General, error) {
	l := am.Rows
	tr := 0.0
	for i := 0; i < l; i++ {
		tr += am.Data[i*am.Stride+i]
	}
	if s := tr / float64(l); s > 0 {
		a := dense.New(l, l)
		for i := 0; i < l; i++ {
			for j, v := range am.Data[i*am.Stride : i*am.Stride+l] {
				a.Data[i*l+j] = v + s/float64(l)
			}
		}
		norm := norm1(a)
		err := backend.CholUpperCtx(ctx, backend.Active(), a)
		if ctx.Err() != nil {
			return blas64.General{}, ctx.Err()
		}
		if err == nil {
			c := dense.New(l, l) // R⁻¹, then R⁻¹·R⁻ᵀ
			for i := 0; i < l; i++ {
				c.Data[i*l+i] = 1
			}
			r := blas64.Triangular{N: l, Stride: l, Uplo: blas.Upper, Diag: blas.NonUnit, Data: a.Data}
			if err := backend.RightSolveUpperCtx(ctx, backend.Active(), c, r); err != nil {
				return blas64.General{}, err
			}
			inv := dense.New(l, l)
			if err := backend.GemmCtx(ctx, backend.Active(), blas.NoTrans, blas.Trans, 1, c, c, 0, inv); err != nil {
				return blas64.General{}, err
			}
			if norm*norm1(inv) <= coarseCond {
				for i := range inv.Data {
					inv.Data[i] -= 1 / (s * float64(l))
				}
				return inv, nil
			}
		}
	}
	w := make([]float64, l)
	sym := blas64.Symmetric{N: l, Stride: am.Stride, Uplo: blas.Upper, Data: am.Data}
	if err := backend.Active().Syevd(sym, w, true); err != nil {
		return blas64.General{}, fmt.Errorf("the coarse matrix Zᵀ·B·Z: %w", err)
	}
	top := max(math.Abs(w[0]), math.Abs(w[l-1]))
	v := dense.New(l, l) // V·Λ^{-1/2} over the kept eigenvalues
	for j, lam := range w {
		if lam <= 1e-12*top {
			continue
		}
		s := 1 / math.Sqrt(lam)
		for i := 0; i < l; i++ {
			v.Data[i*l+j] = am.Data[i*am.Stride+j] * s
		}
	}
	inv := dense.New(l, l)
	backend.Active().Gemm(blas.NoTrans, blas.Trans, 1, v, v, 0, inv)
	return inv, nil
}

// norm1 returns the largest column sum of |a|.
func norm1(a blas64.General) float64 {
	sums := make([]float64, a.Cols)
	for i := 0; i < a.Rows; i++ {
		for j, v := range a.Data[i*a.Stride : i*a.Stride+a.Cols] {
			sums[j] += math.Abs(v)
		}
	}
	return slices.Max(sums)
}

// Apply sets dst = T·src (n×b blocks, b at most NewTwoLevel's).
func (t *TwoLevel) Apply(ctx context.Context, dst, src blas64.General) error {
	b := src.Cols
	c1, c2 := t.c1, t.c2
	c1.Cols, c2.Cols = b, b
	if err := t.zt.MulBlockCtx(ctx, c1, src); err != nil {
		return err
	}
	backend.Active().Gemm(blas.NoTrans, blas.NoTrans, 1, t.coarse, c1, 0, c2)
	if err := t.z.MulBlockCtx(ctx, dst, c2); err != nil {
		return err
	}
	backend.ParallelFor(src.Rows, 4096, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			di := dst.Data[i*dst.Stride : i*dst.Stride+b]
			for j, v := range src.Data[i*src.Stride : i*src.Stride+b] {
				di[j] += t.dinv[i] * v
			}
		}
	})
	return nil
}
