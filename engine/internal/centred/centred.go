package centred

import (
	"context"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/lanczos"
	"github.com/manifoldlab/manifold/sparse"
)

// Hat applies X̂ = diag(√b)·(X − 1·μᵀ) and its transpose to blocks, for
// dense rows (held explicitly, centred) or sparse rows (centred implicitly,
// so the CSR stays sparse).
type Hat struct {
	N, D  int            // samples, features
	Dense blas64.General // explicit X̂ (dense input)
	A     *sparse.CSR    // sparse input, nil for dense
	Mu    []float64      // μ, subtracted implicitly from A's rows
	Sb    []float64      // √b; nil: 1
}

// Mul sets dst (n×c) = X̂·B (B d×c), cancellable (10⁶ rows by 256×256
// are tens of seconds of work).
func (h *Hat) Mul(ctx context.Context, dst, b blas64.General) error {
	if h.A == nil {
		return backend.GemmCtx(ctx, backend.Active(), blas.NoTrans, blas.NoTrans, 1, h.Dense, b, 0, dst)
	}
	if err := h.A.MulBlockCtx(ctx, dst, b); err != nil {
		return err
	}
	c := b.Cols
	mb := make([]float64, c) // μᵀ·B
	for j, m := range h.Mu {
		if m == 0 {
			continue
		}
		row := b.Data[j*b.Stride : j*b.Stride+c]
		for t, v := range row {
			mb[t] += m * v
		}
	}
	for i := 0; i < h.N; i++ {
		s := 1.0
		if h.Sb != nil {
			s = h.Sb[i]
		}
		row := dst.Data[i*dst.Stride : i*dst.Stride+c]
		for t := range row {
			row[t] = s * (row[t] - mb[t])
		}
	}
	return nil
}

// MulT sets dst (d×c) = X̂ᵀ·U (U n×c), the dense product cancellable.
func (h *Hat) MulT(ctx context.Context, dst, u blas64.General) error {
	if h.A == nil {
		return backend.GemmCtx(ctx, backend.Active(), blas.Trans, blas.NoTrans, 1, h.Dense, u, 0, dst)
	}
	c := u.Cols
	su := u
	if h.Sb != nil {
		su = dense.New(h.N, c)
		for i := 0; i < h.N; i++ {
			for t := 0; t < c; t++ {
				su.Data[i*c+t] = h.Sb[i] * u.Data[i*u.Stride+t]
			}
		}
	}
	h.A.MulTransBlockTo(dst, su)
	ones := make([]float64, c) // 1ᵀ·diag(√b)·U
	for i := 0; i < h.N; i++ {
		row := su.Data[i*su.Stride : i*su.Stride+c]
		for t, v := range row {
			ones[t] += v
		}
	}
	for j, m := range h.Mu {
		if m == 0 {
			continue
		}
		row := dst.Data[j*dst.Stride : j*dst.Stride+c]
		for t := range row {
			row[t] -= m * ones[t]
		}
	}
	return nil
}

// Gram is X̂·X̂ᵀ (samples side, n×n) or X̂ᵀ·X̂ (features side, d×d) as a
// block operator.
type Gram struct {
	H       *Hat
	Samples bool
}

func (g Gram) Size() int {
	if g.Samples {
		return g.H.N
	}
	return g.H.D
}

// MulBlock applies the operator to the columns of x (Lanczos checks ctx
// between its products).
func (g Gram) MulBlock(dst, x blas64.General) {
	ctx := context.Background()
	if g.Samples {
		t := dense.New(g.H.D, x.Cols)
		_ = g.H.MulT(ctx, t, x)
		_ = g.H.Mul(ctx, dst, t)
		return
	}
	t := dense.New(g.H.N, x.Cols)
	_ = g.H.Mul(ctx, t, x)
	_ = g.H.MulT(ctx, dst, t)
}

// Form returns the Gram matrix densely (m×m, m = Size): by one Syrk when
// the rows are dense, else by applying it to blocks of the identity, ctx
// checked and progress reported (progress may be nil) between blocks.
func (g Gram) Form(ctx context.Context, progress func(done, total int64)) (blas64.Symmetric, error) {
	m := g.Size()
	sym := blas64.Symmetric{N: m, Stride: m, Uplo: blas.Upper, Data: make([]float64, m*m)}
	if g.H.A == nil {
		t := blas.Trans
		if g.Samples {
			t = blas.NoTrans
		}
		return sym, backend.SyrkCtx(ctx, backend.Active(), t, 1, g.H.Dense, 0, sym)
	}
	const blk = 64
	nb := (m + blk - 1) / blk
	for c := 0; c < nb; c++ {
		if err := ctx.Err(); err != nil {
			return sym, err
		}
		if progress != nil {
			progress(int64(c), int64(nb))
		}
		lo, hi := c*blk, min(m, (c+1)*blk)
		e := dense.New(m, hi-lo)
		for j := lo; j < hi; j++ {
			e.Data[j*(hi-lo)+j-lo] = 1
		}
		out := dense.New(m, hi-lo)
		g.MulBlock(out, e)
		for i := 0; i < m; i++ {
			for j := lo; j < hi; j++ {
				sym.Data[i*m+j] = out.Data[i*(hi-lo)+j-lo]
			}
		}
	}
	dense.Symmetrize(blas64.General{Rows: m, Cols: m, Stride: m, Data: sym.Data}) // against rounding
	return sym, nil
}

// Operator returns the Gram matrix as an operator for the Lanczos solver.
func (g Gram) Operator() lanczos.Func {
	m := g.Size()
	return lanczos.Func{N: m, MulBlock: g.MulBlock, Mul: func(dst, x []float64) {
		g.MulBlock(blas64.General{Rows: m, Cols: 1, Stride: 1, Data: dst}, blas64.General{Rows: m, Cols: 1, Stride: 1, Data: x})
	}}
}

// WeightedMean returns Σ b_i·x_i / Σ b_i (b nil: the plain mean) of the
// rows of a, or of dense when a is nil.
func WeightedMean(dense blas64.General, a *sparse.CSR, b []float64) []float64 {
	n, d := dense.Rows, dense.Cols
	if a != nil {
		n, d = a.Dims()
	}
	mean := make([]float64, d)
	total := 0.0
	for i := 0; i < n; i++ {
		w := 1.0
		if b != nil {
			w = b[i]
		}
		total += w
		if a != nil {
			cols, vals := a.Row(i)
			for c, j := range cols {
				mean[j] += w * vals[c]
			}
			continue
		}
		for j, v := range dense.Data[i*dense.Stride : i*dense.Stride+d] {
			mean[j] += w * v
		}
	}
	if total > 0 {
		for j := range mean {
			mean[j] /= total
		}
	}
	return mean
}
