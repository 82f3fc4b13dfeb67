package engine

import (
	"context"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/internal/centred"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/lanczos"
)

// The linear graph embeddings LPP and NPE share one solver. Both look for
// projections a (y = Xᵀa in the papers' notation, X features × samples)
// that extremize a Rayleigh quotient
//
//	aᵀ·X·A·Xᵀ·a / aᵀ·X·B·Xᵀ·a
//
// with B = diag(b) (LPP: the degrees D; NPE: I) and A an N×N matrix given
// as an operator (LPP: W, largest; NPE: M = (I − W)ᵀ(I − W), smallest).
// The samples are first centred with the weights b (μ = Σ b_i·x_i / Σ b_i),
// which removes the trivial solution y = 1 of both methods (L·1 = 0,
// M·1 = 0) and makes the result independent of where the data sit: it is
// the constraint yᵀ·B·1 = 0 of Laplacian eigenmaps and LLE.
//
// The PCA/SVD step of the papers (He & Niyogi 2003; He, Cai, Yan
// & Zhang 2005 §3 step 1; Cai, He & Han, AAAI 2007 §"Learning Isometric
// Projections", eq. (7)) makes the right-hand side well conditioned when
// D > N or X·B·Xᵀ is singular: with the thin SVD X̂ = B^{1/2}·X_c = U·Σ·Vᵀ
// (rows = samples here) and a = V·Σ⁻¹·c, the problem becomes the ordinary
// symmetric eigenproblem (Uᵀ·Ã·U)·c = μ·c with Ã = B^{-1/2}·A·B^{-1/2}, of
// order r = rank(X̂), and aᵀ·X·B·Xᵀ·a = cᵀc = 1. The SVD is taken from the
// eigendecomposition of the smaller Gram matrix (X̂·X̂ᵀ or X̂ᵀ·X̂, formed
// densely, 4.5·m³ flam for its eigenvectors), keeping singular values
// σ_i > 10⁻⁵·σ_1. The cost is Cai, He & Han, AAAI 2007
// eq. (8): SVD (3/2·m²n + 9/2·m³ with m = min(N, D)), forming the reduced
// matrix (2·m³) and its eigenvectors.
//
// With PCADim = p the SVD keeps only the p leading singular directions (He
// & Niyogi's "throwing away the smallest principal components"), found by
// block Lanczos (blocks of 8) on the Gram matrix as an operator: for sparse
// documents the work is then a few hundred products with the sparse X
// (and the Lanczos basis' orthogonalization) instead of an m³
// decomposition. PCADim = 0 keeps every direction when m = min(N, D) ≤
// 2000 and the leading 100 otherwise.

// maxExactSVD is the largest min(N, D) for which PCADim = 0 keeps every
// singular direction (a dense eigendecomposition of the m×m Gram matrix);
// above it the leading autoPCADim are kept.
const (
	maxExactSVD = 2000
	// maxSyevd is the largest m whose full eigendecomposition runs as one
	// Syevd call (≈ 60 ms in pure Go); above it the cancellable
	// EigTopCtx finds all m pairs.
	maxSyevd   = 200
	autoPCADim = 100
)

// rankTol: the SVD step keeps σ_i > rankTol·σ_1 (numericalRank; see
// nullTol in pca.go for the rank rule and why this tolerance is larger).
const rankTol = 1e-5

// lgeProblem is one linear graph embedding to solve.
type lgeProblem struct {
	in      samples   // the samples (kept rows)
	b       []float64 // the weights of the constraint (nil: all 1)
	largest bool      // maximize (LPP) or minimize (NPE) the quotient
	dim     int
	pcaDim  int // 0: automatic
	// alpha > 0 regularizes the constraint as Deng Cai's LGE.m does with
	// Regu = 1: aᵀ(X·B·Xᵀ + α·I)a = 1 in place of aᵀ·X·B·Xᵀ·a = 1. In the
	// SVD's coordinates the reduced matrix is scaled on both sides by
	// wᵢ = σᵢ/√(σᵢ² + α) and the projections are a = V·Σ⁻¹·W·c, so that
	// directions of small σᵢ are damped before the eigenvectors are chosen.
	alpha float64
	seed  uint64
	// reduce returns R = Uᵀ·Ã·U (r×r, both triangles) for the N×r U with
	// orthonormal columns, its products cancellable (at 10⁶ rows they run
	// for tens of seconds); cost is its predicted flam for r columns.
	reduce func(ctx context.Context, u blas64.General) (blas64.General, error)
	cost   func(r int) float64
}

// lgeResult is the solved problem: y = (x − mean)·proj.
type lgeResult struct {
	mean   []float64
	proj   blas64.General // D×dim
	vals   []float64      // the dim eigenvalues μ of Uᵀ·Ã·U, most extreme first
	rank   int            // singular directions kept
	svdDim int            // the p of the SVD step (min(N, D) when exact)
}

// solveLGE runs the stages "center", "svd", "reduce", "eigensolve" and
// "project" of a linear graph embedding.
func solveLGE(r *run, p lgeProblem) (*lgeResult, error) {
	// The rows centred here, with the weights b, may share an offset the
	// fit's rows did not (a largest component; the rows of positive
	// degree), so it is checked again.
	in, err := denseIfOffset(r.method, p.in, p.b, r.opts)
	if err != nil {
		return nil, err
	}
	n, d := in.dims()
	res := &lgeResult{}
	h := &centred.Hat{N: n, D: d, A: in.csr}
	if p.b != nil {
		h.Sb = make([]float64, n)
		for i, v := range p.b {
			h.Sb[i] = math.Sqrt(v)
		}
	}
	err = r.stage("center", float64(in.nnz()), func(ctx context.Context, st *stageCtx) error {
		res.mean = centred.WeightedMean(in.dense, in.csr, p.b)
		h.Mu = res.mean
		if in.csr == nil {
			h.Dense = dense.New(n, d)
			g := in.dense
			backend.ParallelFor(n, 256, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					s := 1.0
					if h.Sb != nil {
						s = h.Sb[i]
					}
					src, dst := g.Data[i*g.Stride:i*g.Stride+d], h.Dense.Data[i*d:(i+1)*d]
					for j, v := range src {
						dst[j] = s * (v - res.mean[j])
					}
				}
			})
			st.detail = "dense, explicit"
		} else {
			st.detail = "sparse, implicit (the CSR stays sparse)"
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	// The SVD step.
	m := min(n, d)
	gram := centred.Gram{H: h, Samples: n <= d}
	svdDim := p.pcaDim
	if svdDim == 0 {
		svdDim = m
		if m > maxExactSVD {
			svdDim = autoPCADim
		}
	}
	svdDim = min(svdDim, m)
	exact := svdDim == m
	res.svdDim = svdDim
	var u, pm blas64.General // U (n×r) and P = V·Σ⁻¹ (d×r): X̂·P = U
	var sq []float64         // σᵢ² of the r directions kept
	var svdCost float64
	switch {
	case exact && in.csr == nil:
		svdCost = flam.Syrk(m, max(n, d)) + flam.Syevd(m, true)
	case exact:
		svdCost = flam.GramSparse(in.nnz(), m) + flam.Syevd(m, true)
	default:
		// About 3·p products with X̂ and X̂ᵀ (measured on Reuters-21578) and
		// the orthogonalization of a basis of 3·p vectors.
		svdCost = 3*float64(svdDim)*2*float64(in.nnz()) + flam.LanczosStep(m, 3*svdDim, 1)*float64(3*svdDim)/2
	}
	svdCost += flam.Gemm(max(n, d), m, svdDim)
	err = r.stage("svd", svdCost, func(ctx context.Context, st *stageCtx) error {
		var vals []float64
		var vecs blas64.General
		side := "X̂·X̂ᵀ"
		if !gram.Samples {
			side = "X̂ᵀ·X̂"
		}
		if !exact {
			lr, err := lanczos.Solve(ctx, gram.Operator(), lanczos.Settings{K: svdDim, Seed: p.seed, Tol: 1e-8, BlockSize: 8})
			if err != nil {
				return wrapNumerical(err)
			}
			st.iterations = lr.Stats.Iterations
			st.detail = fmt.Sprintf("block lanczos on %s (%d×%d, %s): %d leading pairs, %d products, %d restarts",
				side, m, m, in.kind(), svdDim, lr.Stats.MatVecs, lr.Stats.Restarts)
			vals, vecs = lr.Values, lr.Vectors
		} else {
			sym, err := gram.Form(ctx, st.progress)
			if err != nil {
				return err
			}
			if m > maxSyevd {
				// All m pairs by the cancellable solver: one Syevd call
				// (9·m³ flam in pure Go) would outlast a cancel by seconds.
				if vals, vecs, err = backend.EigTopCtx(ctx, backend.Active(), sym, m); err != nil {
					return wrapNumerical(err)
				}
				st.detail = fmt.Sprintf("dense eigensolver (cancellable) on %s (%d×%d): all singular directions", side, m, m)
			} else {
				vals = make([]float64, m)
				if err = backend.Active().Syevd(sym, vals, true); err != nil {
					return wrapNumerical(err)
				}
				// Descending order, vectors as columns.
				vecs = dense.New(m, m)
				for j := 0; j < m; j++ {
					for i := 0; i < m; i++ {
						vecs.Data[i*m+j] = sym.Data[i*m+m-1-j]
					}
				}
				for i, j := 0, m-1; i < j; i, j = i+1, j-1 {
					vals[i], vals[j] = vals[j], vals[i]
				}
				st.detail = fmt.Sprintf("dense syevd of %s (%d×%d): all singular directions", side, m, m)
			}
		}
		// Keep σ_i > rankTol·σ_1 (vals are σ², descending).
		rk := numericalRank(vals, rankTol)
		res.rank = rk
		sq = vals[:rk]
		// The paper's count for the whole exact method (eq. 8), beside
		// the stages' own predictions.
		st.detail += fmt.Sprintf(", rank %d; eq. (8) predicts %.3g flam for the exact method", rk,
			lgeFlam(m, max(n, d), p.dim, 20))
		if rk == 0 {
			return nil
		}
		// Scale the kept vectors by 1/σ (samples side) or 1/σ (features side).
		w := dense.New(m, rk)
		for i := 0; i < m; i++ {
			for j := 0; j < rk; j++ {
				w.Data[i*rk+j] = vecs.Data[i*vecs.Stride+j] / math.Sqrt(vals[j])
			}
		}
		if gram.Samples {
			// U = eigenvectors; P = X̂ᵀ·U·Σ⁻² = X̂ᵀ·(U·Σ⁻¹)·Σ⁻¹.
			u = dense.Copy(blas64.General{Rows: n, Cols: rk, Stride: vecs.Stride, Data: vecs.Data})
			pm = dense.New(d, rk)
			if err := h.MulT(ctx, pm, w); err != nil {
				return err
			}
			for i := 0; i < d; i++ {
				for j := 0; j < rk; j++ {
					pm.Data[i*rk+j] /= math.Sqrt(vals[j])
				}
			}
		} else {
			// P = V·Σ⁻¹; U = X̂·P.
			pm = w
			u = dense.New(n, rk)
			if err := h.Mul(ctx, u, pm); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rk := res.rank
	if p.dim > rk {
		return nil, fmt.Errorf("%s: %w: dim = %d but the centred data have rank %d (in the %d singular directions kept)",
			r.method, ErrDimension, p.dim, rk, svdDim)
	}
	var red blas64.General
	var w []float64 // the regularization's scaling (alpha > 0)
	err = r.stage("reduce", p.cost(rk), func(ctx context.Context, st *stageCtx) error {
		var err error
		if red, err = p.reduce(ctx, u); err != nil {
			return err
		}
		st.detail = fmt.Sprintf("%d×%d", rk, rk)
		if p.alpha > 0 {
			w = make([]float64, rk)
			for i, s2 := range sq {
				w[i] = math.Sqrt(s2 / (s2 + p.alpha))
			}
			for i := 0; i < rk; i++ {
				for j := 0; j < rk; j++ {
					red.Data[i*red.Stride+j] *= w[i] * w[j]
				}
			}
			st.detail += fmt.Sprintf(", regularized (α = %g)", p.alpha)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var c blas64.General
	err = r.stage("eigensolve", flam.Syevr(rk, p.dim), func(ctx context.Context, st *stageCtx) error {
		sym := blas64.Symmetric{N: rk, Stride: red.Stride, Uplo: blas.Upper, Data: red.Data}
		var err error
		if p.largest {
			res.vals, c, err = backend.EigTopCtx(ctx, backend.Active(), sym, p.dim)
		} else {
			res.vals, c, err = backend.EigBottomCtx(ctx, backend.Active(), sym, p.dim)
		}
		st.detail = fmt.Sprintf("dense syevr, order %d", rk)
		return wrapNumerical(err)
	})
	if err != nil {
		return nil, err
	}
	err = r.stage("project", flam.Gemm(d, p.dim, rk), func(ctx context.Context, st *stageCtx) error {
		for i, wi := range w {
			for j := 0; j < p.dim; j++ {
				c.Data[i*c.Stride+j] *= wi
			}
		}
		res.proj = dense.New(d, p.dim)
		backend.Active().Gemm(blas.NoTrans, blas.NoTrans, 1, pm, c, 0, res.proj)
		backend.FixSigns(res.proj)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// linearModel is a fitted linear method: y = (x − mean)·proj.
type linearModel[P any] struct {
	base[P]
	mean    []float64
	proj    blas64.General // D×Dim
	eig     []float64
	kept    []int
	dropped []int
}

// lgeParams are the parameters LPP and NPE share.
type lgeParams struct {
	graphParams        // every graph is accepted: no disconnected policy
	Input       string `param:"input,report"`             // "dense" or "sparse"
	PCADim      int    `param:"pca_dim,report,omitempty"` // 0: automatic
	Rank        int    `param:"rank"`                     // of the SVD step
}

// newLGEParams returns the parameters of a linear graph embedding of in on
// the graph of spec.
func newLGEParams(spec graphSpec, in samples, pcaDim, rank int) lgeParams {
	p := lgeParams{graphParams: spec.params(), Input: in.kind(), PCADim: pcaDim, Rank: rank}
	p.Disconnected = ""
	return p
}

// apply maps rows: (X − 1·meanᵀ)·proj = X·proj − 1·(meanᵀ·proj).
func (m *linearModel[P]) apply(ctx context.Context, in samples) (blas64.General, error) {
	n, _ := in.dims()
	dim := m.proj.Cols
	y := dense.New(n, dim)
	if err := in.mulBlock(ctx, y, m.proj); err != nil {
		return blas64.General{}, err
	}
	off := make([]float64, dim)
	for j, v := range m.mean {
		row := m.proj.Data[j*m.proj.Stride : j*m.proj.Stride+dim]
		for t, p := range row {
			off[t] += v * p
		}
	}
	for i := 0; i < n; i++ {
		row := y.Data[i*dim : (i+1)*dim]
		for t := range row {
			row[t] -= off[t]
		}
	}
	return y, nil
}

// embed runs the stage "embed" of a linear graph embedding: the training
// rows mapped by apply.
func (m *linearModel[P]) embed(r *run, in samples) error {
	n, d := in.dims()
	return r.stage("embed", flam.Gemm(n, m.proj.Cols, d)*float64(in.nnz())/float64(n*d), func(ctx context.Context, st *stageCtx) error {
		var err error
		m.embedding, err = m.apply(ctx, in)
		return err
	})
}

// Projection returns the projection vectors a as the columns of a D×Dim
// matrix: y = Aᵀ·(x − mean).
func (m *linearModel[P]) Projection() *mat.Dense { return copyDense(m.proj) }

// Mean returns the (weighted) training mean the data are centred on.
func (m *linearModel[P]) Mean() []float64 { return append([]float64(nil), m.mean...) }

// Eigenvalues returns the Dim generalized eigenvalues of the projections,
// ascending (the smallest, best-preserving first).
func (m *linearModel[P]) Eigenvalues() []float64 { return append([]float64(nil), m.eig...) }

// Kept returns the indices of the training points in the embedding.
func (m *linearModel[P]) Kept() []int { return append([]int(nil), m.kept...) }

// Dropped returns the training points left out by DisconnectedLargest.
func (m *linearModel[P]) Dropped() []int { return append([]int(nil), m.dropped...) }

// Transform projects new points (dense rows or a *sparse.CSR):
// y = Aᵀ·(x − mean). The training points map onto their embedding.
func (m *linearModel[P]) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	what := m.method + " transform"
	in, err := transformInput(what, x, len(m.mean))
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	y, err := m.apply(ctx, in)
	if err != nil {
		return nil, err
	}
	return transformResult(m.method, y)
}

// Save writes the model (see Load for the format).
func (m *linearModel[P]) Save(w io.Writer) error { return saveModel(w, m) }

func (m *linearModel[P]) fields(c *codec) {
	dim := c.dim(m.Dim())
	c.vector("mean", &m.mean, -1)
	c.matrix("projection", &m.proj, len(m.mean), dim)
	c.vector("eigenvalues", &m.eig, dim)
	c.matrix("embedding", &m.embedding, -1, dim)
	c.keptDropped(&m.kept, &m.dropped, m.embedding.Rows)
}

// lgeFlam is Cai, He & Han, AAAI 2007 eq. (8), the cost the
// paper gives for LPP and NPE ("exactly the cost of LPP and NPE", §"Efficient
// Computation"): the SVD of the data matrix, m samples × n features with
// m ≤ n (3/2·m²n + 9/2·m³), the reduced m×m matrix X̃·A·X̃ᵀ (2·m³) and l
// eigenvectors by Lanczos with p iterations each (p·l·m²):
// 3/2·m²n + 13/2·m³ + p·l·m².
func lgeFlam(m, n, l, p int) float64 {
	fm := float64(m)
	return 1.5*fm*fm*float64(n) + 6.5*fm*fm*fm + flam.Lanczos(m, l, p)
}
