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

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/bottom"
	"github.com/manifoldlab/manifold/engine/internal/tangent"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/lobpcg"
	"github.com/manifoldlab/manifold/sparse"
)

// LTSA is local tangent space alignment (Zhang & Zha, "Principal manifolds
// and nonlinear dimensionality reduction via tangent space alignment",
// SIAM J. Sci. Comput. 26(1), 2004, the algorithm LTSA):
//
//  1. for every point x_i, its K nearest neighbours X_i (K×D), centred on
//     their mean, and Q_i, the Dim leading left singular vectors of the
//     centred X_i (the local tangent coordinates), found as the top
//     eigenvectors of the K×K Gram matrix of the centred neighbours;
//  2. G_i = [1/√K, Q_i] and the alignment matrix
//     B = Σ_i S_i·(I − G_i·G_iᵀ)·S_iᵀ (S_i selecting the neighbours),
//     sparse with at most N·K² entries;
//  3. the embedding is the eigenvectors of the Dim + 1 smallest eigenvalues
//     of B after the first (the constant vector, eigenvalue 0): unit
//     vectors, T·Tᵀ = I.
//
// As scikit-learn's LocallyLinearEmbedding(method='ltsa'), the neighbours
// of x_i are the K nearest other points (the paper's neighbourhood includes
// x_i itself); with the same K the embedding equals scikit-learn's up to
// the sign convention. B's bottom eigenvectors are found densely (index
// range, 2/3·N³ flam) for N ≤ 500, otherwise by shift-invert block Lanczos
// with locking on a sparse LDLᵀ factor of B, certified by the factor's
// inertia (package bottom): every eigenvalue below the last one returned
// was found (or, when that one is null, counted null), or the fit returns
// ErrNumerical. The constant vector (B·1 = 0)
// is always projected out. When B's null space has more than one
// dimension (points whose neighbourhoods do not overlap enough to tie the
// tangent spaces together — digit images with k = 10 give 7 to 24), the
// embedding is not unique: the report's params say so ("nullity" and
// "null_dropped", Nullity on the model) and its first coordinates are one
// basis of the null space; use more neighbours or a smaller Dim. Dim may
// not exceed the number of features D (ErrDimension).
//
// New points are placed by the local affine map of LTSA (the global
// coordinates of a neighbourhood are an affine function of its local
// tangent coordinates, τ = c_i + L_i·θ, up to an error term): for a new x, its K
// nearest training points, their local tangent coordinates Θ (from the
// same local PCA) and x's own θ; the affine map (c, L) fitted by least
// squares to the neighbours' embedding (c = their mean, L = T_c·Θ⁺) gives
// y = c + L·θ. A new point equal to a training point gets that point's
// embedding.
type LTSA struct {
	Dim         int         // output (and tangent-space) dimension; default 2
	K           int         `setting:"k"`           // neighbours; default 10, must exceed Dim
	Eigensolver Eigensolver `setting:"eigensolver"` // default: dense for N ≤ 500, the certified Lanczos above; EigenLOBPCG on dense rows without a factor
	Seed        uint64      // Lanczos start vector
	Options
}

// LTSAModel is a fitted LTSA.
type LTSAModel struct {
	base[ltsaParams]
	train samples
	eig   []float64 // the Dim eigenvalues of B used, ascending
	// near, when the fit's neighbours were approximate, answers
	// Transform's neighbour queries (see trainingLists); nil: exact.
	near *trainingLists
	// exact answers the exact queries (near == nil).
	exact exactQueries
}

// ltsaParams are LTSA's parameters.
type ltsaParams struct {
	K           int         `param:"k"` // > dim
	Eigensolver Eigensolver `param:"eigensolver,report"`
	Input       string      `param:"input,report"` // "dense" or "sparse"
	nullSpace               // of B
}

const methodLTSA = "ltsa"

func (s LTSA) resolved() LTSA {
	s.Dim, s.K = cmp.Or(s.Dim, 2), cmp.Or(s.K, 10)
	return s
}

// landmarks is the locally linear landmarks' fit whose reduced problem
// starts and preconditions LTSA's LOBPCG (its default weights' Reg).
func (s LTSA) landmarks(n int) LandmarkLLE {
	return LandmarkLLE{Dim: s.Dim, K: s.K, Landmarks: min(n, lobpcgLandmarks), Seed: s.Seed,
		Options: Options{Neighbors: s.Neighbors}}.resolved(n)
}

// ltsaLOBPCG is LTSA's EigenLOBPCG on the rows g and the alignment
// matrix b (formed; not held once it is copied into the local order).
func ltsaLOBPCG(r *run, g blas64.General, b *sparse.CSR, s LTSA) (*bottom.Result, error) {
	n := g.Rows
	ls := s.landmarks(n)
	return landmarkLOBPCG(r, g, ls, s.Dim, lobpcgSetup{
		what:      "the alignment matrix B",
		name:      "B",
		coarse:    explicitCoarse(b, ls.LandmarkK),
		mulPerRow: 2 * b.NNZ() / n,
		pattern:   func(context.Context) (*sparse.CSR, error) { return b, nil },
		operator: func(ctx context.Context, perm []int, _ int) (lobpcg.Operator, error) {
			bp, err := b.Permuted(ctx, perm)
			b = nil
			return lobpcg.NewCSROperator(bp), err
		},
	})
}

// Fit embeds the rows of x (dense, or a *sparse.CSR).
func (s LTSA) Fit(ctx context.Context, x mat.Matrix) (*LTSAModel, error) {
	const method = methodLTSA
	s = s.resolved()
	var solver Eigensolver
	return fitter[*LTSAModel]{method: method, opts: s.Options, input: sparseRows,
		plan: func(in samples) (fitPlan, error) {
			n, d := in.dims()
			if s.K < 1 {
				return fitPlan{}, fmt.Errorf("%s: %w: k = %d", method, ErrBadSetting, s.K)
			}
			if s.K >= n {
				return fitPlan{}, fmt.Errorf("%s: %w: k = %d neighbours need more than %d samples", method, ErrTooFewSamples, s.K, n)
			}
			if err := checkDim(method, s.Dim, n-2, "samples−2"); err != nil {
				return fitPlan{}, err
			}
			if s.Dim >= s.K {
				return fitPlan{}, fmt.Errorf("%s: %w: dim = %d needs k > dim neighbours (k = %d)", method, ErrBadSetting, s.Dim, s.K)
			}
			if s.Dim > d {
				// The local tangent spaces have at most D dimensions: with
				// dim > D the alignment matrix is indefinite.
				return fitPlan{}, fmt.Errorf("%s: %w: dim = %d exceeds the %d input features (the tangent spaces have at most %d dimensions)", method, ErrDimension, s.Dim, d, d)
			}
			var err error
			solver, err = chooseEigensolver(method, s.Eigensolver, eigenproblem{n: n, dim: s.Dim, sparse: true})
			if err != nil {
				return fitPlan{}, err
			}
			est := int64(8)*int64(in.nnz()+3*n*s.K*s.K) + graphBytes(s.Neighbors, in, s.K)
			if solver == EigenDense {
				est += 8 * int64(n) * int64(n)
			}
			if solver == EigenLOBPCG {
				if in.isSparse() {
					return fitPlan{}, fmt.Errorf("%s: %w: eigensolver %q needs dense rows (its landmarks rebuild each point from dense rows)", method, ErrBadSetting, solver)
				}
				// The landmarks (not LLE's weights: B is reduced as it
				// is); B in the local order (at most k² entries a row, 12
				// bytes each); LOBPCG's 10 blocks of dim + 4 columns; two
				// more L×L.
				ls := s.landmarks(n)
				b, l := int64(s.Dim+lobpcgExtra), int64(ls.Landmarks)
				est += ls.landmarkBytes(n, d) + 12*int64(n)*int64(s.K*s.K) + 8*int64(n)*10*b + 16*l*l
			}
			return fitPlan{dim: s.Dim, bytes: est, what: "LTSA", cheaper: sparseBottomCheaper(solver)}, nil
		},
		stages: func(r *run, in samples) (*LTSAModel, error) {
			n, d := in.dims()
			var err error
			var nb *neighbors.Result
			err = r.stage("neighbors", flam.KNNBrute(n, n, d)*float64(in.nnz())/float64(n*d), func(ctx context.Context, st *stageCtx) error {
				var err error
				nb, err = inputNeighbours(ctx, st, in, s.K, 0, nil)
				if err != nil {
					return err
				}
				return checkKNNConnected(method, nb)
			})
			if err != nil {
				return nil, mapGraphErr(err)
			}
			k := s.K
			var b *sparse.CSR
			localCost := float64(n)*tangent.LocalPCAFlam(k, max(1, in.nnz()/n), s.Dim) + ltsaAlignmentFlam(n, k, s.Dim)
			err = r.stage("tangents", localCost, func(ctx context.Context, st *stageCtx) error {
				st.detail = fmt.Sprintf("%d local PCAs of %d neighbours", n, k)
				blocks := make([]float64, n*k*k)
				// Batches of points, progress reported between them on this
				// goroutine; each batch runs in parallel.
				const batch = 4096
				var fitErr firstError
				for b0 := 0; b0 < n; b0 += batch {
					st.progress(int64(b0), int64(n))
					b1 := min(n, b0+batch)
					err := backend.ParallelForCtx(ctx, b1-b0, 128, func(lo, hi int) {
						ws := tangent.NewLocalPCA(k, s.Dim)
						for i := b0 + lo; i < b0+hi; i++ {
							js, _ := nb.Row(i)
							if err := ws.Fit(in.dotFrom, in.dense, js, false); err != nil {
								fitErr.set(err)
								return
							}
							// I − G·Gᵀ with G = [1/√k, Q].
							blk := blocks[i*k*k : (i+1)*k*k]
							for a := 0; a < k; a++ {
								for c := 0; c < k; c++ {
									v := -1 / float64(k)
									for t := 0; t < s.Dim; t++ {
										v -= ws.Q[a*s.Dim+t] * ws.Q[c*s.Dim+t]
									}
									if a == c {
										v++
									}
									blk[a*k+c] = v
								}
							}
						}
					})
					if err != nil {
						return err
					}
					if err := fitErr.get(); err != nil {
						return err
					}
				}
				// B = Σᵢ Sᵢ(I − GᵢGᵢᵀ)Sᵢᵀ, the blocks summed in place (no triplets).
				idx := make([]int, 0, n*k)
				for i := 0; i < n; i++ {
					js, _ := nb.Row(i)
					idx = append(idx, js...)
				}
				var err error
				if b, err = sparse.SumBlocks(ctx, n, k, idx, blocks); err != nil {
					return err
				}
				st.detail += fmt.Sprintf(", alignment matrix with %d entries", b.NNZ())
				return ctx.Err()
			})
			if err != nil {
				return nil, err
			}
			var eig *bottom.Result
			if solver == EigenLOBPCG {
				eig, err = ltsaLOBPCG(r, in.dense, b, s)
			} else {
				eig, err = bottomSparse(r, b, unitConstant(n), s.Dim, solver, s.Seed, nil, "alignment matrix B")
				if errors.Is(err, ErrNumerical) && r.ctx.Err() == nil && !in.isSparse() {
					err = fmt.Errorf("%w; for LTSA on dense rows, Eigensolver %q (-eigensolver %s) needs no factor either", err, EigenLOBPCG, EigenLOBPCG)
				}
			}
			if err != nil {
				return nil, err
			}
			m := &LTSAModel{base: newBase(method, ltsaParams{K: k, Eigensolver: solver, Input: in.kind(), nullSpace: nullSpaceOf(eig, s.Dim)})}
			if m.train, err = copyInput(r.ctx, in); err != nil {
				return nil, err
			}
			m.near = keepLists(r, in, nb)
			m.embedding = eig.Vectors
			m.eig = eig.Values
			return m, nil
		},
	}.fit(ctx, x)
}

// Eigenvalues returns the Dim eigenvalues of the alignment matrix B that
// belong to the embedding (the bottom one, 0, dropped), ascending.
func (m *LTSAModel) Eigenvalues() []float64 { return append([]float64(nil), m.eig...) }

// Nullity returns the dimension of the alignment matrix's null space at
// the fit, the constant vector included: above 1 the embedding is not
// unique (see LTSA). 0 for a loaded model whose report does not say.
func (m *LTSAModel) Nullity() int { return m.p.Nullity }

// Transform maps new points by the local affine map of their K nearest
// training points (see LTSA): y = c + T_cᵀ·V·Σ⁻²·Vᵀ·g, with V, Σ² the Dim
// leading eigenpairs of the neighbours' centred Gram matrix, g their
// centred inner products with the new point and T_c their centred
// embedding: the least-squares affine map from local tangent coordinates
// Θ = Σ·Vᵀ to the embedding, applied to θ = Σ⁻¹·Vᵀ·g. When the fit's
// neighbours were approximate (NN-descent) on dense rows, so are the new
// points': a best-first search of the training rows' neighbour lists,
// which the model (and its file) keeps.
func (m *LTSAModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	const what = "ltsa transform"
	q, nb, err := transformNeighbours(ctx, methodLTSA, x, m.train, m.near, &m.exact, m.p.K, 0)
	if err != nil {
		return nil, err
	}
	nq, _ := q.dims()
	dim, k := m.Dim(), m.p.K
	y := dense.New(nq, dim)
	var fitErr firstError
	err = backend.ParallelForCtx(ctx, nq, 64, func(lo, hi int) {
		ws := tangent.NewLocalPCA(k, dim)
		p := make([]float64, k)
		g := make([]float64, k)
		coef := make([]float64, k)
		for i := lo; i < hi; i++ {
			js, ds := nb.Row(i)
			row := y.Data[i*dim : (i+1)*dim]
			if exactMatch(row, js, ds, m.embedding) {
				continue
			}
			if err := ws.Fit(m.train.dotFrom, m.train.dense, js, true); err != nil {
				fitErr.set(err)
				return
			}
			// g_a = (x_a − x̄)·(x − x̄) = p_a − mean(p) − rmean_a + mean(G).
			pm, all := 0.0, 0.0
			for a, j := range js {
				p[a] = crossDotFrom(m.train, q, j, i, js[0]) // the origin of ws's Gram
				pm += p[a]
				all += ws.RowMeans[a]
			}
			pm /= float64(k)
			all /= float64(k)
			for a := range js {
				g[a] = p[a] - pm - ws.RowMeans[a] + all
			}
			// coef = V·Σ⁻²·Vᵀ·g, skipping null directions.
			clear(coef)
			tol := 1e-12 * math.Max(ws.W[0], 0)
			for t := 0; t < dim; t++ {
				if ws.W[t] <= tol {
					continue
				}
				s := 0.0
				for a := 0; a < k; a++ {
					s += ws.Q[a*dim+t] * g[a]
				}
				s /= ws.W[t]
				for a := 0; a < k; a++ {
					coef[a] += ws.Q[a*dim+t] * s
				}
			}
			// y = mean(T) + Σ_a coef_a·(T_a − mean(T)); Σ coef_a = 0
			// (the eigenvectors are orthogonal to 1), so y = mean(T) + Σ coef_a·T_a.
			for a, j := range js {
				e := m.embedding.Data[j*dim : (j+1)*dim]
				w := coef[a] + 1/float64(k)
				for t := range row {
					row[t] += w * e[t]
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if err := fitErr.get(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return transformResult(methodLTSA, y)
}

// Save writes the model (see Load for the format).
func (m *LTSAModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *LTSAModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	c.check(m.p.K > dim, "parameter %q = %v, want an integer in [%d, %d]", "k", m.p.K, dim+1, math.MaxInt32)
	c.matrix("embedding", &m.embedding, -1, dim)
	n := m.embedding.Rows
	c.check(m.p.K < n, "k = %d for %d training points", m.p.K, n)
	c.vector("eigenvalues", &m.eig, dim)
	c.input("train", &m.train, n)
	if !m.train.isSparse() {
		c.lists(&m.near, m.train.dense, n)
	}
}

// ltsaAlignmentFlam is n·k²·(t + 1): the blocks I − G_i·G_iᵀ of the alignment
// matrix of LTSA (Zhang & Zha 2004, Algorithm LTSA step 2), G_i = [1/√k, Q_i]
// with k rows and t + 1 columns, for n neighbourhoods.
func ltsaAlignmentFlam(n, k, t int) float64 {
	fk := float64(k)
	return float64(n) * fk * fk * float64(t+1)
}

// nearLists gives the training lists of an approximate fit (nearLister).
func (m *LTSAModel) nearLists() (*trainingLists, blas64.General) { return m.near, m.train.dense }
