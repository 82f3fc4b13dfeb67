package bottom

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/lanczos"
	"github.com/manifoldlab/manifold/sparse"
)

// Operator finds what Certified does by Lanczos on B itself, with
// products alone and no factorization: for graphs whose LDLᵀ factor,
// which the certificate needs, would not fit the budget or cost too much.
// Such graphs — k nearest neighbours of high-dimensional data (digits),
// near expanders — have no small separators, so their factors fill in,
// but the bottom of their spectrum is well separated, which is what
// Lanczos on B needs. The known null vector u is moved to the top of the
// spectrum (B + ‖B‖·u·uᵀ) and the dim smallest eigenpairs are wanted, with
// residuals ≤ operatorTol·‖B‖. Nothing certifies that no eigenvalue below
// the last one was missed (a single Lanczos vector finds one copy of an
// exactly repeated eigenvalue; rounding brings the others in, slowly), and
// the detail says so; a run that does not converge returns the Lanczos
// error. A basis that would pass half of o.MaxBytes gives a *LimitError
// (Budget).
func Operator(ctx context.Context, b *sparse.CSR, u []float64, dim int, o Options) (*Result, Info, error) {
	n, _ := b.Dims()
	norm := Gershgorin(b)
	if norm == 0 {
		return nil, Info{}, errors.New("the matrix is zero")
	}
	// Single vectors and a basis of dim + 28 vectors (dim = 2: 30): on the
	// Laplacians of 200,000 and 10⁶ deformed digits, Lanczos' own cost —
	// reorthogonalizing against the basis — outweighs the products, and
	// these took 2.6 and 40.5 s where blocks of 2 and a basis of 50 took
	// 4.7 and 71.7 s (throw-away benchmark, one run each).
	set := lanczos.Settings{K: dim, Which: lanczos.Smallest, BlockSize: 1, BasisSize: dim + max(2*dim, 28),
		Tol: operatorTol, MaxRestarts: operatorRestarts, Seed: o.Seed, Progress: o.Progress}
	if bytes := 8 * int64(n) * int64(set.BasisSize+4); o.MaxBytes > 0 && bytes > o.MaxBytes/2 {
		return nil, Info{}, &LimitError{Budget: true, Msg: fmt.Sprintf("Lanczos on the matrix alone needs %d bytes", bytes)}
	}
	// Lanczos runs on P·B·Pᵀ in a local order (sparse.LocalOrder): the rows
	// of a neighbour graph come in the data's order, where every product
	// misses the cache at every entry.
	b, perm, err := sparse.LocalOrder(ctx, b)
	if err != nil {
		return nil, Info{}, err
	}
	uo := make([]float64, n)
	for k, v := range perm {
		uo[k] = u[v]
	}
	// B + ‖B‖·u·uᵀ, one vector at a time (BlockSize 1: Lanczos makes no
	// block products).
	op := lanczos.Func{N: n, Flam: float64(b.NNZ() + 2*n), Mul: func(dst, x []float64) {
		b.MulVecTo(dst, x)
		s := 0.0
		for i, v := range uo {
			s += v * x[i]
		}
		for i, v := range uo {
			dst[i] += norm * s * v
		}
	}}
	res, err := lanczos.Solve(ctx, op, set)
	if err != nil {
		if ctx.Err() != nil {
			return nil, Info{}, ctx.Err()
		}
		return nil, Info{}, fmt.Errorf("Lanczos on the matrix alone failed: %w", err)
	}
	out := &Result{Values: res.Values, Vectors: dense.New(n, dim)}
	for k, v := range perm { // back to the rows' order
		copy(out.Vectors.Data[v*dim:(v+1)*dim], res.Vectors.Data[k*res.Vectors.Stride:k*res.Vectors.Stride+dim])
	}
	// The vectors are orthogonal to u up to the tolerance: exactly so now.
	for j := 0; j < dim; j++ {
		dot, nn := 0.0, 0.0
		for i, v := range u {
			dot += v * out.Vectors.Data[i*out.Vectors.Stride+j]
		}
		for i, v := range u {
			x := out.Vectors.Data[i*out.Vectors.Stride+j] - dot*v
			out.Vectors.Data[i*out.Vectors.Stride+j] = x
			nn += x * x
		}
		nn = 1 / math.Sqrt(nn)
		for i := 0; i < n; i++ {
			out.Vectors.Data[i*out.Vectors.Stride+j] *= nn
		}
	}
	out.Nullity = 1
	for _, v := range out.Values {
		if v <= NullRel*norm {
			out.Nullity++
		}
	}
	out.NullAtLeast = out.Nullity == dim+1
	st := res.Stats
	worst := 0.0
	for _, r := range res.Residuals {
		worst = max(worst, r/norm)
	}
	detail := fmt.Sprintf("lanczos on the matrix alone, not certified: block %d, %d products, %d restarts, residuals ≤ %.1e·‖B‖", set.BlockSize, st.MatVecs, st.Restarts, worst)
	return out, Info{Detail: detail, Iterations: st.Iterations, Flam: st.Flam}, nil
}
