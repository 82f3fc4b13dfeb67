package engine

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// LPP is locality preserving projections (He & Niyogi, "Locality
// preserving projections", NIPS 2003): the linear map y = Aᵀ·x that
// best preserves a neighbour graph. With the graph's weights W (heat kernel
// by default, GraphWeight), D = diag(Σ_j W_ij) and L = D − W, the
// projections are the generalized eigenvectors of
//
//	X·L·Xᵀ·a = λ·X·D·Xᵀ·a
//
// for the Dim smallest λ (X features × samples, the paper's notation), normalised by
// aᵀ·X·D·Xᵀ·a = 1. They are found as the largest eigenvectors of the
// equivalent X·W·Xᵀ·a = (1 − λ)·X·D·Xᵀ·a after the SVD step of the paper
// (§3 step 1, "PCA projection"; Cai, He & Han, AAAI 2007 eq. (7), whose
// cost eq. (8) is exactly LPP's): see the linear graph embedding solver in
// lge.go. The samples are centred on their degree-weighted mean first
// (which removes the trivial solution with L·y = 0, y constant, and the
// dependence on the origin); new points map by y = Aᵀ·(x − mean).
//
// X may be dense or a *sparse.CSR (documents, as Cai, He & Han, AAAI 2007
// Table 1 on Reuters-21578; sparse rows are never densified). With D > N
// and all singular directions kept, LPP's training embedding equals
// Laplacian eigenmaps' (the constraint y ∈ range(Xᵀ) is void); PCADim
// keeps fewer. With Labels the graph joins only points of the same class
// (k = 0: all of the class), the supervised graph of Cai, He & Han, AAAI 2007
// Table 2. The graph may be disconnected (the eigenproblem stays well
// posed; a supervised graph always is): the number of components is
// reported, and no policy applies.
type LPP struct {
	Dim int // output dimension; default 2
	// K neighbours per point (default 10), or, with Labels, within the
	// class (0: every point of the class).
	K int `setting:"k"`
	// Eps > 0 uses the ε-graph instead of kNN.
	Eps float64 `setting:"eps"`
	// Labels make the supervised graph.
	Labels []int `setting:"labels"`
	// Weight of the edges; default WeightHeat.
	Weight GraphWeight `setting:"weight"`
	// T is the heat kernel's t; 0 means the mean of d² over the edges.
	T float64
	// PCADim is the number of leading singular directions the SVD step
	// keeps: 0 keeps all with σ > 10⁻⁵·σ₁ when min(N, D) ≤ 2000 (the exact
	// problem) and the leading 100 otherwise (found by block Lanczos).
	PCADim int
	Seed   uint64 // Lanczos start vector of a truncated SVD step
	Options
}

// LPPModel is a fitted LPP: y = Aᵀ·(x − mean).
type LPPModel struct{ linearModel[lppParams] }

// lppParams are LPP's parameters.
type lppParams struct {
	lgeParams
	Weight string  `param:"weight"`             // GraphWeight.String
	T      float64 `param:"t,report,omitempty"` // the heat kernel's t (0: other weights)
}

const methodLPP = "lpp"

func (s LPP) resolved() LPP {
	s.Dim, s.K = cmp.Or(s.Dim, 2), defaultK(s.K, s.Eps, s.Labels)
	return s
}

func (s LPP) spec() graphSpec { return graphSpec{k: s.K, eps: s.Eps, labels: s.Labels} }

// Fit learns the projection from the rows of x (dense, or a *sparse.CSR).
func (s LPP) Fit(ctx context.Context, x mat.Matrix) (*LPPModel, error) {
	const method = methodLPP
	s = s.resolved()
	return fitter[*LPPModel]{method: method, opts: s.Options, input: sparseRows,
		plan: func(in samples) (fitPlan, error) {
			return lgePlan(method, in, s.spec(), s.Dim, s.PCADim, s.Options, func() error {
				if err := s.Weight.check(method); err != nil {
					return err
				}
				if s.T < 0 || math.IsNaN(s.T) || math.IsInf(s.T, 0) || s.PCADim < 0 {
					return fmt.Errorf("%s: %w: t = %v, PCADim = %d", method, ErrBadSetting, s.T, s.PCADim)
				}
				return nil
			})
		},
		stages: func(r *run, in samples) (*LPPModel, error) {
			n, _ := in.dims()
			fixed, err := inputGraph(r, in, s.spec(), true)
			if err != nil {
				return nil, err
			}
			var a *sparse.CSR
			var deg []float64
			var t float64
			err = r.stage("weights", float64(3*fixed.Graph.NNZ()), func(ctx context.Context, st *stageCtx) error {
				var w *sparse.CSR
				w, t = weighGraph(st, fixed.Graph, in, s.Weight, s.T, s.spec())
				deg = w.RowSums()
				a, _ = sparse.NormalizedAdjacency(w)
				return nil
			})
			if err != nil {
				return nil, err
			}
			p := lgeProblem{in: in, b: deg, largest: true, dim: s.Dim, pcaDim: s.PCADim, seed: s.Seed,
				// R = Uᵀ·D^{-1/2}·W·D^{-1/2}·U.
				reduce: func(ctx context.Context, u blas64.General) (blas64.General, error) {
					z := dense.New(u.Rows, u.Cols)
					if err := a.MulBlockCtx(ctx, z, u); err != nil {
						return blas64.General{}, err
					}
					rr := dense.New(u.Cols, u.Cols)
					if err := backend.GemmCtx(ctx, backend.Active(), blas.Trans, blas.NoTrans, 1, u, z, 0, rr); err != nil {
						return blas64.General{}, err
					}
					dense.Symmetrize(rr)
					return rr, nil
				},
				cost: func(rk int) float64 { return flam.SpMV(a.NNZ())*float64(rk) + flam.Gemm(rk, rk, n) },
			}
			res, err := solveLGE(r, p)
			if err != nil {
				return nil, err
			}
			mp := lppParams{lgeParams: newLGEParams(s.spec(), in, s.PCADim, res.rank), Weight: s.Weight.String(), T: t}
			m := &LPPModel{linearModel[lppParams]{base: newBase(method, mp), mean: res.mean, proj: res.proj, kept: fixed.Kept}}
			m.eig = make([]float64, s.Dim)
			for j, v := range res.vals {
				m.eig[j] = 1 - v
			}
			if err := m.embed(r, in); err != nil {
				return nil, err
			}
			return m, nil
		},
	}.fit(ctx, x)
}

// lgePlan is the plan of a linear graph embedding (LPP, NPE) of in on the
// graph spec: the graph checked against the samples, then the method's own
// settings (check), then the dimension; the memory of the graph and of the
// SVD step (lgeBytes).
func lgePlan(method string, in samples, spec graphSpec, dim, pcaDim int, opts Options, check func() error) (fitPlan, error) {
	n, d := in.dims()
	if err := spec.validate(method, n); err != nil {
		return fitPlan{}, err
	}
	if err := check(); err != nil {
		return fitPlan{}, err
	}
	if err := checkDim(method, dim, min(n-1, d), "min(samples−1, features)"); err != nil {
		return fitPlan{}, err
	}
	return fitPlan{dim: dim, bytes: lgeBytes(in, pcaDim) + graphBytes(opts.Neighbors, in, spec.k),
		what: strings.ToUpper(method), cheaper: "a smaller PCADim (fewer singular directions)"}, nil
}

// lgeBytes estimates the peak memory of the linear graph embedding solver:
// the centred copy (dense input), the Gram matrix of the SVD step, U and
// the reduced matrix.
func lgeBytes(in samples, pcaDim int) int64 {
	n, d := in.dims()
	m := int64(min(n, d))
	r := m
	if pcaDim > 0 {
		r = min(r, int64(pcaDim))
	} else if m > maxExactSVD {
		r = autoPCADim
	}
	est := int64(in.nnz()) + 2*int64(n)*r + int64(d)*r + r*r
	if !in.isSparse() {
		est += int64(n) * int64(d)
	}
	if r == m || !in.isSparse() {
		est += 2 * m * m
	} else {
		est += 3 * r * m // the Lanczos basis
	}
	return 8 * est
}
