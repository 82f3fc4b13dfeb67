package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/bottom"
	"github.com/manifoldlab/manifold/engine/internal/barycentric"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// LLE is locally linear embedding (Roweis & Saul 2000;
// Gering 2002 §4): every point is
// reconstructed from its K nearest neighbours by weights summing to one
// (eq. 49, 61–64: G·w = 1 with the local Gram matrix G of eq. 62–63,
// regularised by Reg·trace(G) on the diagonal, as scikit-learn does — G is
// singular whenever K > D), and the embedding is given by the bottom
// eigenvectors of the sparse M = (I − W)ᵀ(I − W) (eq. 69, 72), dropping
// the constant one (eigenvalue 0; it is always projected out). They are
// found densely for N ≤ 500, otherwise by certified shift-invert Lanczos
// (see LTSA). When M's null space has more than one dimension the
// embedding is not unique; the report ("nullity", "null_dropped") and
// Nullity say so — use more neighbours or a smaller Dim. Coordinates are scaled to the
// normalisation of eq. 70, (1/(N−1))·Σ y yᵀ = I (scikit-learn returns unit
// eigenvectors: the same embedding up to the factor √(N−1)).
type LLE struct {
	Dim         int         // default 2
	K           int         `setting:"k"`           // neighbours; default 10
	Reg         float64     `setting:"alpha"`       // regularisation; default 1e-3
	Eigensolver Eigensolver `setting:"eigensolver"` // default: dense for N ≤ 500, the certified Lanczos above
	Seed        uint64
	Options
}

// LLEModel is a fitted LLE.
type LLEModel struct {
	base[lleParams]
	train blas64.General
	eig   []float64 // the Dim eigenvalues of M used, ascending
	// near, when the fit's neighbours were approximate, answers
	// Transform's neighbour queries (see trainingLists); nil: exact.
	near *trainingLists
	// exact answers the exact queries (near == nil).
	exact exactQueries
}

// lleParams are LLE's parameters.
type lleParams struct {
	K           int         `param:"k,min=1"`
	Reg         float64     `param:"reg"`
	Eigensolver Eigensolver `param:"eigensolver,report"`
	nullSpace               // of M
}

const methodLLE = "lle"

func (s LLE) resolved() LLE {
	s.Dim, s.K, s.Reg = cmp.Or(s.Dim, 2), cmp.Or(s.K, 10), cmp.Or(s.Reg, 1e-3)
	return s
}

// Fit embeds the rows of x.
func (s LLE) Fit(ctx context.Context, x mat.Matrix) (*LLEModel, error) {
	s = s.resolved()
	var solver Eigensolver
	return fitter[*LLEModel]{method: methodLLE, opts: s.Options, input: denseRows,
		plan: func(in samples) (fitPlan, error) {
			g := in.dense
			n, d := g.Rows, g.Cols
			if s.K < 1 || s.Reg < 0 || math.IsNaN(s.Reg) || math.IsInf(s.Reg, 0) {
				return fitPlan{}, fmt.Errorf("%s: %w: k = %d, reg = %v", methodLLE, ErrBadSetting, s.K, s.Reg)
			}
			if s.K >= n {
				return fitPlan{}, fmt.Errorf("%s: %w: k = %d neighbours need more than %d samples", methodLLE, ErrTooFewSamples, s.K, n)
			}
			if err := checkDim(methodLLE, s.Dim, n-2, "samples−2"); err != nil {
				return fitPlan{}, err
			}
			var err error
			solver, err = chooseEigensolver(methodLLE, s.Eigensolver, eigenproblem{n: n, dim: s.Dim, sparse: true})
			if err != nil {
				return fitPlan{}, err
			}
			est := int64(8) * int64(n) * int64(d+4*s.K*s.K)
			if solver == EigenDense {
				est += 8 * int64(n) * int64(n)
			}
			est += graphBytes(s.Neighbors, in, s.K)
			if solver == EigenLOBPCG {
				// Locally linear landmarks' fit; the training rows; W in
				// the local order, its transpose and the pattern of W + Wᵀ;
				// Z in that order and Zᵀ; LOBPCG's 10 blocks of dim + 4
				// columns; two more L×L.
				ls := s.landmarks(n)
				b, l := int64(s.Dim+lobpcgExtra), int64(ls.Landmarks)
				est = ls.bytes(in) + 8*int64(n)*int64(d) + 64*int64(n)*int64(s.K) + 32*int64(n)*int64(ls.LandmarkK) +
					8*int64(n)*10*b + 16*l*l
			}
			return fitPlan{dim: s.Dim, bytes: est, what: "LLE", cheaper: sparseBottomCheaper(solver)}, nil
		},
		stages: func(r *run, in samples) (*LLEModel, error) {
			g := in.dense
			n, d := g.Rows, g.Cols
			var err error
			var nb *neighbors.Result
			err = r.stage("neighbors", neighbors.Options{}.Flam(n, n, d, s.K), func(ctx context.Context, st *stageCtx) error {
				var err error
				nb, err = selfKNN(ctx, st, samples{dense: g}, s.K)
				if err != nil {
					return err
				}
				return checkKNNConnected(methodLLE, nb)
			})
			if err != nil {
				return nil, mapGraphErr(err)
			}
			// The weights, then M from them: (K+1)² products a row.
			var w, mm *sparse.CSR
			err = r.stage("weights", float64(n)*(float64(s.K*s.K*d)+flam.Potrf(s.K)+float64((s.K+1)*(s.K+1))), func(ctx context.Context, st *stageCtx) error {
				var err error
				if w, err = barycentric.Weights(ctx, g, g, nb, s.Reg, n); err != nil || solver == EigenLOBPCG {
					return err
				}
				mm, err = sparse.LLEMatrix(ctx, w)
				return err
			})
			if err != nil {
				return nil, err
			}
			m := &LLEModel{base: newBase(methodLLE, lleParams{K: s.K, Reg: s.Reg, Eigensolver: solver})}
			if m.train, err = trainRows(r.ctx, g, nil); err != nil {
				return nil, err
			}
			m.near = keepLists(r, samples{dense: g}, nb)
			var eig *bottom.Result
			if solver == EigenLOBPCG {
				eig, err = lleLOBPCG(r, g, w, s)
			} else {
				w = nil
				eig, err = bottomSparse(r, mm, unitConstant(n), s.Dim, solver, s.Seed, nil, "matrix M = (I−W)ᵀ(I−W)")
				if errors.Is(err, ErrNumerical) && r.ctx.Err() == nil {
					err = fmt.Errorf("%w; for LLE, Eigensolver %q (-eigensolver %s) needs no factor either and converges where Lanczos on M alone does not", err, EigenLOBPCG, EigenLOBPCG)
				}
			}
			if err != nil {
				return nil, err
			}
			m.p.nullSpace = nullSpaceOf(eig, s.Dim)
			// Scale to eq. 70.
			scale := math.Sqrt(float64(n - 1))
			m.embedding = eig.Vectors
			for i := range m.embedding.Data {
				m.embedding.Data[i] *= scale
			}
			m.eig = eig.Values
			return m, nil
		},
	}.fit(ctx, x)
}

// Eigenvalues returns the Dim eigenvalues of M belonging to the embedding
// (the bottom one, 0, dropped), ascending.
func (m *LLEModel) Eigenvalues() []float64 { return append([]float64(nil), m.eig...) }

// Nullity returns the dimension of M's null space at the fit, the constant
// vector included: above 1 the embedding is not unique (see LLE). 0 for a
// loaded model whose report does not say.
func (m *LLEModel) Nullity() int { return m.p.Nullity }

// Transform maps new points by their reconstruction weights from their K
// nearest training points: y = Σ w_j·y_j (scikit-learn's LLE.transform). A
// new point equal to training points (distance 0) gets their embedding
// (the mean, for duplicates), so transforming the training data reproduces
// the training embedding. When the fit's neighbours were approximate
// (NN-descent), so are the new points': a best-first search of the
// training rows' neighbour lists, which the model (and its file) keeps.
func (m *LLEModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	g, err := denseTransformInput("lle transform", x, m.train.Cols)
	if err != nil {
		return nil, err
	}
	if err := checkTransformRange(methodLLE, samples{dense: g}, m.train.Rows); err != nil {
		return nil, err
	}
	var nb *neighbors.Result
	if m.near != nil {
		nb, err = m.near.query(ctx, m.train, g, m.p.K)
	} else {
		var s *neighbors.Searcher
		if s, err = exactSearcher(ctx, &m.exact, m.train); err == nil {
			nb, err = s.KNN(ctx, toDense(g), m.p.K)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lle transform: %w", err)
	}
	n := m.train.Rows
	w, err := barycentric.Weights(ctx, m.train, g, nb, m.p.Reg, n)
	if err != nil {
		return nil, fmt.Errorf("lle transform: %w", err)
	}
	y := dense.New(g.Rows, m.Dim())
	w.MulBlockTo(y, m.embedding)
	dim := m.Dim()
	for i := 0; i < g.Rows; i++ {
		js, ds := nb.Row(i)
		exactMatch(y.Data[i*dim:(i+1)*dim], js, ds, m.embedding)
	}
	return transformResult(methodLLE, y)
}

// Save writes the model (see Load for the format).
func (m *LLEModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *LLEModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	c.matrix("embedding", &m.embedding, -1, dim)
	n := m.embedding.Rows
	c.check(m.p.K < n, "k = %d for %d training points", m.p.K, n)
	c.matrix("train", &m.train, n, -1)
	c.vector("eigenvalues", &m.eig, dim)
	c.lists(&m.near, m.train, n)
}

// nearLists gives the training lists of an approximate fit (nearLister).
func (m *LLEModel) nearLists() (*trainingLists, blas64.General) { return m.near, m.train }
