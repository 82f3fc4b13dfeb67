package engine

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/internal/barycentric"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// NPE is neighborhood preserving embedding (He, Cai, Yan & Zhang,
// "Neighborhood preserving embedding", ICCV 2005): the linear
// approximation of LLE. Every point is reconstructed from its K nearest
// neighbours (or those within Eps) by the regularized barycentric weights
// of LLE (Gering 2002 eq. 61–64,
// Reg·trace on the diagonal of the local Gram matrix, the same function as
// the engine's LLE), M = (I − W)ᵀ(I − W), and the projections are the
// generalized eigenvectors of
//
//	X·M·Xᵀ·a = λ·X·Xᵀ·a
//
// for the Dim smallest λ (X features × samples, the paper's notation), normalised by
// aᵀ·X·Xᵀ·a = 1, after the paper's PCA/SVD step (the linear
// graph embedding solver in lge.go). The samples are centred on their mean
// (which removes the trivial solution y = 1, M·1 = 0); new points map by
// y = Aᵀ·(x − mean).
//
// X may be dense or a *sparse.CSR (documents; the local Gram matrices come
// from sparse inner products). With Labels the neighbours are sought within
// the class (K = 0: all of the class), the supervised NPE of
// Cai, He & Han, AAAI 2007 Table 2. Every point keeps its own neighbours,
// so no connected graph is needed and no disconnected policy applies.
type NPE struct {
	Dim int // output dimension; default 2
	// K neighbours per point (default 10), or, with Labels, within the
	// class (0: every point of the class).
	K int `setting:"k"`
	// Eps > 0 reconstructs every point from all points within Eps instead.
	Eps float64 `setting:"eps"`
	// Labels restrict the neighbours to the class of each point.
	Labels []int `setting:"labels"`
	// Reg regularizes the local Gram matrices: Reg·trace(G) is added to
	// their diagonal; default 1e-3.
	Reg float64 `setting:"alpha"`
	// PCADim as in LPP: 0 keeps every singular direction when
	// min(N, D) ≤ 2000 and the leading 100 otherwise.
	PCADim int
	Seed   uint64 // Lanczos start vector of a truncated SVD step
	Options
}

// NPEModel is a fitted NPE: y = Aᵀ·(x − mean).
type NPEModel struct{ linearModel[npeParams] }

// npeParams are NPE's parameters.
type npeParams struct {
	lgeParams
	Reg float64 `param:"reg"`
}

const methodNPE = "npe"

func (s NPE) spec() graphSpec { return graphSpec{k: s.K, eps: s.Eps, labels: s.Labels} }

func (s NPE) resolved() NPE {
	s.Dim, s.K, s.Reg = cmp.Or(s.Dim, 2), defaultK(s.K, s.Eps, s.Labels), cmp.Or(s.Reg, 1e-3)
	return s
}

// Fit learns the projection from the rows of x (dense, or a *sparse.CSR).
func (s NPE) Fit(ctx context.Context, x mat.Matrix) (*NPEModel, error) {
	const method = methodNPE
	s = s.resolved()
	return fitter[*NPEModel]{method: method, opts: s.Options, input: sparseRows,
		plan: func(in samples) (fitPlan, error) {
			return lgePlan(method, in, s.spec(), s.Dim, s.PCADim, s.Options, func() error {
				if s.Reg < 0 || math.IsNaN(s.Reg) || math.IsInf(s.Reg, 0) || s.PCADim < 0 {
					return fmt.Errorf("%s: %w: reg = %v, PCADim = %d", method, ErrBadSetting, s.Reg, s.PCADim)
				}
				return nil
			})
		},
		stages: func(r *run, in samples) (*NPEModel, error) {
			n, d := in.dims()
			var err error
			var nb *neighbors.Result
			err = r.stage("neighbors", flam.KNNBrute(n, n, d)*float64(in.nnz())/float64(n*d), func(ctx context.Context, st *stageCtx) error {
				var err error
				nb, err = inputNeighbours(ctx, st, in, s.K, s.Eps, s.Labels)
				if err != nil {
					return err
				}
				for i := 0; i < n; i++ {
					if nb.Ptr[i+1] == nb.Ptr[i] {
						return fmt.Errorf("%w: point %d has no neighbour within ε = %v", ErrBadSetting, i, s.Eps)
					}
				}
				st.detail = fmt.Sprintf("%d directed neighbours, %s rows", len(nb.Ind), in.kind())
				return nil
			})
			if err != nil {
				return nil, mapGraphErr(err)
			}
			var w *sparse.CSR
			avgK := float64(len(nb.Ind)) / float64(n)
			err = r.stage("weights", float64(n)*(avgK*avgK*float64(in.nnz())/float64(n)+flam.Potrf(int(avgK))), func(ctx context.Context, st *stageCtx) error {
				var err error
				if in.isSparse() {
					w, err = dotReconstructionWeights(ctx, in, nb, s.Reg)
				} else {
					w, err = barycentric.Weights(ctx, in.dense, in.dense, nb, s.Reg, n)
				}
				return err
			})
			if err != nil {
				return nil, err
			}
			p := lgeProblem{in: in, largest: false, dim: s.Dim, pcaDim: s.PCADim, seed: s.Seed,
				// R = Zᵀ·Z with Z = (I − W)·U.
				reduce: func(ctx context.Context, u blas64.General) (blas64.General, error) {
					z := dense.New(u.Rows, u.Cols)
					if err := w.MulBlockCtx(ctx, z, u); err != nil {
						return blas64.General{}, err
					}
					for i := 0; i < u.Rows; i++ {
						zr, ur := z.Data[i*z.Stride:i*z.Stride+u.Cols], u.Data[i*u.Stride:i*u.Stride+u.Cols]
						for t, v := range ur {
							zr[t] = v - zr[t]
						}
					}
					rr := dense.New(u.Cols, u.Cols)
					if err := backend.SyrkCtx(ctx, backend.Active(), blas.Trans, 1, z, 0, blas64.Symmetric{N: u.Cols, Stride: rr.Stride, Uplo: blas.Upper, Data: rr.Data}); err != nil {
						return blas64.General{}, err
					}
					dense.MirrorUpper(rr)
					return rr, nil
				},
				cost: func(rk int) float64 { return flam.SpMV(w.NNZ())*float64(rk) + flam.Syrk(rk, n) },
			}
			res, err := solveLGE(r, p)
			if err != nil {
				return nil, err
			}
			all := make([]int, n)
			for i := range all {
				all[i] = i
			}
			mp := npeParams{lgeParams: newLGEParams(s.spec(), in, s.PCADim, res.rank), Reg: s.Reg}
			m := &NPEModel{linearModel[npeParams]{base: newBase(method, mp), mean: res.mean, proj: res.proj, eig: res.vals, kept: all}}
			if err := m.embed(r, in); err != nil {
				return nil, err
			}
			return m, nil
		},
	}.fit(ctx, x)
}

// dotReconstructionWeights is barycentric.Weights for rows known through
// inner products (sparse rows): the local Gram matrix of point i is
// G_ab = (x_a − x_i)·(x_b − x_i) = x_a·x_b − x_a·x_i − x_b·x_i + x_i·x_i,
// regularized by reg·trace(G) (reg alone when the trace is 0), G·w = 1,
// w /= Σw (Gering 2002 eq. 63–64).
func dotReconstructionWeights(ctx context.Context, in samples, nb *neighbors.Result, reg float64) (*sparse.CSR, error) {
	n, _ := in.dims()
	return barycentric.From(ctx, nb, n, n, 64, reg, func() func(i int, js []int, gm []float64) {
		var xi []float64
		return func(i int, js []int, gm []float64) {
			k := len(js)
			if cap(xi) < k {
				xi = make([]float64, k)
			}
			xi = xi[:k]
			ii := in.dot(i, i)
			for a, ja := range js {
				xi[a] = in.dot(ja, i)
			}
			for a, ja := range js {
				for b := a; b < k; b++ {
					v := in.dot(ja, js[b]) - xi[a] - xi[b] + ii
					gm[a*k+b], gm[b*k+a] = v, v
				}
			}
		}
	})
}
