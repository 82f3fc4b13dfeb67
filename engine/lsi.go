package engine

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/internal/centred"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/lanczos"
)

// LSI is latent semantic indexing (Deerwester, Dumais, Furnas, Landauer &
// Harshman, "Indexing by latent semantic analysis", JASIS 41(6), 1990):
// the truncated singular value decomposition X ≈ U_k·Σ_k·V_kᵀ of the
// document–term matrix X (rows = documents), without centring, so that a
// sparse X stays sparse. Documents are represented by X·V_k = U_k·Σ_k and
// new documents (the paper's "pseudo-documents", folded in by
// q̂ = qᵀ·T·S⁻¹; the scaling by Σ is kept here) by x·V_k: Embedding is U·Σ and Transform
// is X·V, as scikit-learn's TruncatedSVD fit_transform and transform.
//
// The singular triplets come from the eigenpairs of the smaller Gram matrix
// X·Xᵀ (N ≤ D) or Xᵀ·X, applied as an operator (two sparse products, 2·nnz
// flam per vector) inside thick-restart Lanczos; for min(N, D) ≤ 1000 the
// Gram matrix is formed and eigendecomposed densely by index range. Each
// right singular vector (column of Components) has its largest-magnitude
// entry positive (backend.FixSigns). The top singular values are exact to
// Lanczos' tolerance; singular values below about 10⁻⁸·σ₁ lose relative
// accuracy through the Gram matrix, which LSI's leading dimensions never
// approach.
type LSI struct {
	Dim         int // number of latent dimensions; default 2
	Eigensolver Eigensolver
	Seed        uint64 // Lanczos start vector
	Options
}

// LSIModel is a fitted LSI: y = x·V.
type LSIModel struct {
	base[lsiParams]
	components blas64.General // D×Dim, orthonormal columns V
	sigma      []float64      // Dim singular values, descending
}

// lsiParams are LSI's parameters.
type lsiParams struct {
	Eigensolver Eigensolver `param:"eigensolver,report"`
	Input       string      `param:"input,report"`           // "dense", "sparse" (or "gram statistics": LSIFromGram; "range statistics": LSIFromRange)
	Basis       int         `param:"basis,report,omitempty"` // LSIFromRange: the columns of the range basis
}

const methodLSI = "lsi"

// Fit computes the truncated SVD of the rows of x (a *sparse.CSR, or dense).
func (s LSI) Fit(ctx context.Context, x mat.Matrix) (*LSIModel, error) {
	const method = methodLSI
	s.Dim = cmp.Or(s.Dim, 2)
	var solver Eigensolver
	return fitter[*LSIModel]{method: method, opts: s.Options, input: sparseRowsAlike,
		plan: func(in samples) (fitPlan, error) {
			n, d := in.dims()
			m := min(n, d)
			if err := checkDim(method, s.Dim, m, "min(documents, terms)"); err != nil {
				return fitPlan{}, err
			}
			var err error
			solver, err = chooseEigensolver(method, s.Eigensolver, eigenproblem{n: m, dim: s.Dim, gram: true})
			if err != nil {
				return fitPlan{}, err
			}
			est := int64(8) * int64((n+d)*s.Dim+3*m*max(3*s.Dim, 48))
			if solver == EigenDense {
				est += 8 * int64(m) * int64(m)
			}
			return fitPlan{dim: s.Dim, bytes: est, what: "LSI", cheaper: "the Lanczos eigensolver (no min(N, D)² Gram matrix)"}, nil
		},
		stages: func(r *run, in samples) (*LSIModel, error) {
			n, d := in.dims()
			m := min(n, d)
			var err error
			h := &centred.Hat{N: n, D: d, A: in.csr, Dense: in.dense, Mu: make([]float64, d)}
			gram := centred.Gram{H: h, Samples: n <= d}
			side := "X·Xᵀ"
			if !gram.Samples {
				side = "Xᵀ·X"
			}
			var vals []float64
			var vecs blas64.General
			if solver == EigenDense {
				cost := flam.Syevr(m, s.Dim)
				if in.isSparse() {
					cost += flam.GramSparse(in.nnz(), m)
				} else {
					cost += flam.Syrk(m, max(n, d))
				}
				err = r.stage("eigensolve", cost, func(ctx context.Context, st *stageCtx) error {
					sym, err := gram.Form(ctx, st.progress)
					if err != nil {
						return err
					}
					vals, vecs, err = backend.EigTopCtx(ctx, backend.Active(), sym, s.Dim)
					st.detail = fmt.Sprintf("dense syevr of %s (%d×%d)", side, m, m)
					return wrapNumerical(err)
				})
			} else {
				err = r.stage("eigensolve", flam.Lanczos(m, s.Dim, 20)*2*float64(in.nnz())/float64(m*m), func(ctx context.Context, st *stageCtx) error {
					res, err := st.lanczos(ctx, gram.Operator(), lanczos.Settings{K: s.Dim, Seed: s.Seed, Tol: 1e-10})
					if err != nil {
						return err
					}
					// The solver prices a function operator at m² per product; a
					// product here is one with X and one with Xᵀ.
					fm := float64(m)
					st.predicted = res.Stats.Flam - float64(res.Stats.MatVecs)*(fm*fm-2*float64(in.nnz()))
					st.detail = fmt.Sprintf("lanczos on %s (%d×%d, %s): %d products, %d restarts", side, m, m, in.kind(), res.Stats.MatVecs, res.Stats.Restarts)
					vals, vecs = res.Values, res.Vectors
					return nil
				})
			}
			if err != nil {
				return nil, err
			}
			if err := checkLSIRank(vals, s.Dim); err != nil {
				return nil, err
			}
			mod := &LSIModel{base: newBase(method, lsiParams{Eigensolver: solver, Input: in.kind()}), sigma: make([]float64, s.Dim)}
			for j, v := range vals {
				mod.sigma[j] = math.Sqrt(v)
			}
			err = r.stage("project", flam.Gemm(n, s.Dim, d)*float64(in.nnz())/float64(n*d), func(ctx context.Context, st *stageCtx) error {
				if gram.Samples {
					// V = Xᵀ·U·Σ⁻¹.
					mod.components = dense.New(d, s.Dim)
					if err := h.MulT(ctx, mod.components, vecs); err != nil {
						return err
					}
					for i := 0; i < d; i++ {
						for j := 0; j < s.Dim; j++ {
							mod.components.Data[i*s.Dim+j] /= mod.sigma[j]
						}
					}
				} else {
					mod.components = vecs
				}
				backend.FixSigns(mod.components)
				mod.embedding = dense.New(n, s.Dim)
				return in.mulBlock(ctx, mod.embedding, mod.components)
			})
			if err != nil {
				return nil, err
			}
			return mod, nil
		},
	}.fit(ctx, x)
}

// checkLSIRank rejects singular values that are zero to working accuracy
// (numericalRank with nullTol).
func checkLSIRank(vals []float64, dim int) error {
	if j := numericalRank(vals, nullTol); j < len(vals) {
		return fmt.Errorf("%s: %w: only %d of the %d requested singular values are non-zero", methodLSI, ErrDimension, j, dim)
	}
	return nil
}

// Components returns the right singular vectors V as the columns of a
// D×Dim matrix (scikit-learn's components_ transposed).
func (m *LSIModel) Components() *mat.Dense { return copyDense(m.components) }

// SingularValues returns the Dim leading singular values, descending.
func (m *LSIModel) SingularValues() []float64 { return append([]float64(nil), m.sigma...) }

// Transform maps new documents (rows, dense or a *sparse.CSR): y = x·V.
func (m *LSIModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	return projectSamples(ctx, m.method, x, m.components)
}

// Save writes the model (see Load for the format).
func (m *LSIModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *LSIModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	c.matrix("components", &m.components, -1, dim)
	c.vector("singular_values", &m.sigma, dim)
	c.matrix("embedding", &m.embedding, -1, dim)
}
