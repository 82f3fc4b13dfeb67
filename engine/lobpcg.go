package engine

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/bottom"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/lobpcg"
	"github.com/manifoldlab/manifold/sparse"
)

// LLE's and LTSA's bottom eigenvectors without a factor (EigenLOBPCG):
// LOBPCG (Knyazev, "Toward the optimal preconditioned eigensolver: locally
// optimal block preconditioned conjugate gradient method", SIAM J. Sci.
// Comput. 23(2), 2001) on LLE's M = (I − W)ᵀ(I − W), applied as products
// with W and Wᵀ, never formed, or on LTSA's formed alignment matrix B, in
// reverse Cuthill–McKee order (sparse.LocalOrderOf), started from the
// locally linear landmarks' solution and preconditioned by their coarse
// space (Vladymyrov & Carreira-Perpiñán, ECML PKDD 2013): with Z the N×L
// landmark weights and D = diag(M),
//
//	T = Z·(Zᵀ·M·Z)⁺·Zᵀ + D⁻¹,
//
// an additive two-level preconditioner: the coarse term handles the
// smooth functions the landmarks span, Jacobi the rest. The Rayleigh–Ritz
// step of each iteration works in an orthonormal basis of [X, W, P] from
// the eigenvectors of its scaled Gram matrix (SVQB: Stathopoulos & Wu,
// "A block orthogonalization procedure with constant synchronization
// requirements", SIAM J. Sci. Comput. 23(6), 2002), dropping directions
// that have become dependent. Nothing certifies that no eigenvalue was
// missed; the residuals are checked (≤ lobpcg.DefaultTol·‖M‖). The solver
// itself is package lobpcg (with the preconditioner, lobpcg.TwoLevel, and
// the operators, lobpcg.LLEOperator and lobpcg.CSROperator); this file
// supplies its start and coarse space (sparse.Reduction).
//
// On deformed digits, whose bottom eigenvalues of M lie 2.9e-6·‖M‖ apart
// at 20,000 rows and 2.5e-7·‖M‖ at 100,000 (bench/scale/llespectrum), so
// that Lanczos on M alone does not converge, this reaches 1e-9·‖M‖ in 248
// and 692 iterations (scipy's lobpcg with the same start and
// preconditioner: 247 and 694; without the preconditioner 572 and 1546).
const (
	// lobpcgExtra is the block's columns beyond Dim: more make each
	// iteration dearer (Rayleigh–Ritz on 3·block columns) and the
	// iterations fewer (dim + 4: 694 at 100,000 digits; dim + 2: 1166).
	lobpcgExtra = 4
)

// lobpcgLandmarks is the coarse space's size (a variable only so that the
// race run's tests can shrink it: SetLOBPCGLandmarks).
var lobpcgLandmarks = 1000

// lobpcgSetup is what landmarkLOBPCG needs of a method's matrix B, whose
// null space holds the constant vector.
type lobpcgSetup struct {
	what   string // "the matrix M = (I−W)ᵀ(I−W)", for the stage detail
	name   string // the matrix's letter in it ("M")
	coarse coarseSpace
	// pattern returns a symmetric matrix with B's pattern, for the local
	// order (sparse.LocalOrderOf).
	pattern func(ctx context.Context) (*sparse.CSR, error)
	// operator returns B in the order perm (its row k is B's row perm[k])
	// with scratch for blocks of b columns.
	operator func(ctx context.Context, perm []int, b int) (lobpcg.Operator, error)
	// mulPerRow is the flam of a product with B, a row and a column.
	mulPerRow int
}

// landmarkLOBPCG runs the stages "landmarks", "reduce" (those of
// LandmarkLLE, with ls's settings) and "eigensolve" of EigenLOBPCG on the
// rows g: the dim bottom eigenpairs of p's matrix on the complement of
// the constant.
func landmarkLOBPCG(r *run, g blas64.General, ls LandmarkLLE, dim int, p lobpcgSetup) (*bottom.Result, error) {
	n := g.Rows
	lm := &LandmarkLLEModel{base: newBase(methodLandmarkLLE, landmarkLLEParams{K: ls.K, LandmarkK: ls.LandmarkK, Reg: ls.Reg, Choice: ls.Choice})}
	z, am, bm, err := ls.reduced(r, g, p.coarse, lm)
	if err != nil {
		return nil, err
	}
	p.coarse = coarseSpace{} // what it holds (LTSA: B) is the operator's to free
	l := len(lm.landmarks)
	b := min(dim+lobpcgExtra, l-1, n-1)
	var out *bottom.Result
	// An iteration: a product with B, the preconditioner, the Gram
	// matrices of [X W P] with [X W P BX BW BP] (18·b² a row) and the
	// updates (12·b²); predicted for 500 iterations, then for those run.
	perIter := float64(n) * float64(p.mulPerRow+2*ls.LandmarkK+30*b+2) * float64(b)
	err = r.stage("eigensolve", flam.Syevd(l, true)+500*perIter, func(ctx context.Context, st *stageCtx) error {
		// Work in a local order: in the data's order every entry of a
		// product misses the cache.
		pattern, err := p.pattern(ctx)
		if err != nil {
			return err
		}
		perm, err := sparse.LocalOrderOf(ctx, pattern)
		if err != nil {
			return err
		}
		pattern = nil
		op, err := p.operator(ctx, perm, b)
		if err != nil {
			return err
		}
		zp, err := z.RowsPermuted(perm)
		if err != nil {
			return err
		}
		z = nil // zp and its transpose serve from here (the estimate counts those two)
		norm, err := lobpcg.EstimateNorm(ctx, op.Mul, n)
		if err != nil {
			return wrapNumerical(err)
		}
		// The start: the reduced problem's b bottom pairs, Y = Z·Ỹ.
		amc, bmc := dense.Copy(am), dense.Copy(bm)
		start, err := generalizedBottom(ctx, amc, bmc, b)
		if err != nil {
			return err
		}
		x0 := dense.New(n, b)
		if err := zp.MulBlockCtx(ctx, x0, start.Vectors); err != nil {
			return err
		}
		dense.MirrorUpper(am)
		pre, err := lobpcg.NewTwoLevel(ctx, zp, am, op.Diagonal(), b)
		if err != nil {
			return wrapNumerical(err)
		}
		res, err := lobpcg.Bottom(ctx, lobpcg.Problem{Mul: op.Mul, Prec: pre.Apply, Null: unitConstant(n), Norm: norm, Want: dim,
			Progress: func(it int) { st.progress(int64(it), 0) }}, x0)
		if err != nil {
			return wrapNumerical(err)
		}
		out = &bottom.Result{Values: res.Values, Vectors: dense.New(n, dim), Nullity: 1}
		for k, v := range perm { // back to the rows' order
			copy(out.Vectors.Data[v*dim:(v+1)*dim], res.Vectors.Data[k*dim:(k+1)*dim])
		}
		for _, v := range res.Values {
			if v <= bottom.NullRel*norm {
				out.Nullity++
			}
		}
		out.NullAtLeast = out.Nullity == dim+1
		st.iterations = res.Iterations
		st.predicted = flam.Syevd(l, true) + float64(res.Iterations+1)*perIter
		st.detail = fmt.Sprintf("lobpcg on %s (eigensolver %s), not certified: block %d, %d iterations, "+
			"started from and preconditioned by %d locally linear landmarks, residuals ≤ %.1e·‖%s‖", p.what, EigenLOBPCG, b, res.Iterations, l, res.Worst, p.name)
		if res.Dropped > 0 {
			st.detail += fmt.Sprintf(", %d dependent directions dropped", res.Dropped)
		}
		st.detail += nullNote(out, dim)
		return nil
	})
	if err != nil {
		return nil, err
	}
	backend.FixSigns(out.Vectors)
	return out, nil
}

// lleLOBPCG is LLE's EigenLOBPCG on the rows g and the reconstruction
// weights w: M applied as products with W and Wᵀ (never formed).
func lleLOBPCG(r *run, g blas64.General, w *sparse.CSR, s LLE) (*bottom.Result, error) {
	n := g.Rows
	ls := s.landmarks(n)
	return landmarkLOBPCG(r, g, ls, s.Dim, lobpcgSetup{
		what:      "the matrix M = (I−W)ᵀ(I−W)",
		name:      "M",
		coarse:    lleCoarse(w, ls.K, ls.LandmarkK),
		mulPerRow: 4 * w.NNZ() / n,
		pattern: func(ctx context.Context) (*sparse.CSR, error) {
			return sparse.Symmetrized(ctx, w, true, func(x, _ float64) float64 { return x })
		},
		operator: func(ctx context.Context, perm []int, b int) (lobpcg.Operator, error) {
			wp, err := w.Permuted(ctx, perm)
			if err != nil {
				return nil, err
			}
			return lobpcg.NewLLEOperator(wp, b), nil
		},
	})
}

// landmarks is the locally linear landmarks' fit whose reduced problem
// starts and preconditions LLE's LOBPCG.
func (s LLE) landmarks(n int) LandmarkLLE {
	return LandmarkLLE{Dim: s.Dim, K: s.K, Reg: s.Reg, Landmarks: min(n, lobpcgLandmarks), Seed: s.Seed,
		Options: Options{Neighbors: s.Neighbors}}.resolved(n)
}
