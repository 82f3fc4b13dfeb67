package engine

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/internal/dense"
)

// PCASolver chooses how PCA finds its eigenpairs.
type PCASolver string

const (
	// PCAAuto picks the cheaper of the two paths by predicted flam.
	PCAAuto PCASolver = ""
	// PCACovariance eigendecomposes the D×D covariance matrix (N ≥ D).
	PCACovariance PCASolver = "covariance"
	// PCAGram eigendecomposes the N×N Gram matrix and maps back: the
	// Eigenfaces trick for D ≫ N.
	PCAGram PCASolver = "gram"
)

// PCA is principal component analysis (Gering 2002
// §2.1, §3): the Dim leading eigenvectors of the covariance
// Σ = MMᵀ/(N−1) of the centred data M (eq. 43), found either from the D×D
// covariance (eq. 25–26) or, when D ≫ N, from the N×N matrix MᵀM (eq. 45)
// mapped back by u = Mv/‖Mv‖ (eq. 46) — the Eigenfaces method. Only the
// Dim eigenpairs needed are computed (backend.EigTopCtx, by index range).
// The zero value gives 2 components by the cheaper path.
type PCA struct {
	Dim    int       // output dimension; default 2
	Solver PCASolver // default PCAAuto
	Options
}

// PCAModel is a fitted PCA.
type PCAModel struct {
	base[pcaParams]
	mean       []float64      // D
	components blas64.General // D×Dim, orthonormal columns
	variance   []float64      // Dim eigenvalues of the covariance, descending
}

// pcaParams are PCA's parameters.
type pcaParams struct {
	Solver PCASolver `param:"solver,report"`
	Total  float64   `param:"total_variance,file"` // total variance: trace of the covariance
}

const methodPCA = "pca"

func (s PCA) dim() int { return cmp.Or(s.Dim, 2) }

// Fit computes the principal components of the rows of x.
func (s PCA) Fit(ctx context.Context, x mat.Matrix) (*PCAModel, error) {
	const method = methodPCA
	dim := s.dim()
	var solver PCASolver
	return fitter[*PCAModel]{method: method, opts: s.Options, input: denseRows,
		plan: func(in samples) (fitPlan, error) {
			n, d := in.dims()
			if n < 2 {
				return fitPlan{}, fmt.Errorf("%s: %w: %d sample(s), need at least 2", method, ErrTooFewSamples, n)
			}
			if err := checkDim(method, dim, min(n-1, d), "min(samples−1, features)"); err != nil {
				return fitPlan{}, err
			}
			covCost := flam.Syrk(d, n) + flam.Syevr(d, dim)
			gramCost := flam.Syrk(n, d) + flam.Syevr(n, dim) + flam.Gemm(d, dim, n)
			solver = s.Solver
			switch solver {
			case PCAAuto:
				solver = PCACovariance
				if gramCost < covCost {
					solver = PCAGram
				}
			case PCACovariance, PCAGram:
			default:
				return fitPlan{}, fmt.Errorf("%s: %w: solver %q (want covariance or gram)", method, ErrBadSetting, s.Solver)
			}
			// Peak: the centred copy and the matrix eigendecomposed.
			est := int64(8 * (n*d + d*d))
			if solver == PCAGram {
				est = int64(8 * (n*d + n*n))
			}
			return fitPlan{dim: dim, bytes: est, what: string(solver) + " PCA", cheaper: "the other solver, or fewer samples"}, nil
		},
		stages: func(r *run, in samples) (*PCAModel, error) { return s.stages(r, in.dense, dim, solver) },
	}.fit(ctx, x)
}

// syrkEigen runs the stage name, which forms the symmetric matrix
// scale·xᵀx (trans blas.Trans: the covariance, D×D) or scale·x·xᵀ
// (blas.NoTrans: the Gram matrix, n×n), and the stage "eigensolve", which
// finds its top dim eigenpairs by the dense index-range solver (detail).
func syrkEigen(r *run, name string, trans blas.Transpose, scale float64, x blas64.General, dim int, detail string) ([]float64, blas64.General, error) {
	order, other := x.Rows, x.Cols
	if trans == blas.Trans {
		order, other = other, order
	}
	c := blas64.Symmetric{N: order, Stride: order, Uplo: blas.Upper}
	err := r.stage(name, flam.Syrk(order, other), func(ctx context.Context, st *stageCtx) error {
		c.Data = make([]float64, order*order)
		return backend.SyrkCtx(ctx, backend.Active(), trans, scale, x, 0, c)
	})
	if err != nil {
		return nil, blas64.General{}, err
	}
	var vals []float64
	var vecs blas64.General
	err = r.stage("eigensolve", flam.Syevr(order, dim), func(ctx context.Context, st *stageCtx) error {
		st.detail = detail
		var err error
		vals, vecs, err = backend.EigTopCtx(ctx, backend.Active(), c, dim)
		return err
	})
	return vals, vecs, err
}

// stages computes the dim principal components of g by solver.
func (s PCA) stages(r *run, g blas64.General, dim int, solver PCASolver) (*PCAModel, error) {
	const method = methodPCA
	n, d := g.Rows, g.Cols
	var err error
	impl := backend.Active()
	m := &PCAModel{base: newBase(method, pcaParams{Solver: solver})}
	var centred blas64.General
	err = r.stage("center", float64(n*d), func(ctx context.Context, st *stageCtx) error {
		m.mean, centred, m.p.Total = centre(g)
		m.p.Total /= float64(n - 1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var vecs blas64.General
	var vals []float64
	if solver == PCACovariance {
		vals, vecs, err = syrkEigen(r, "covariance", blas.Trans, 1/float64(n-1), centred, dim, "dense syevr")
	} else {
		var mu []float64
		var v blas64.General
		mu, v, err = syrkEigen(r, "gram", blas.NoTrans, 1, centred, dim, "dense syevr (Gram)")
		if err == nil {
			err = r.stage("map-back", flam.Gemm(d, dim, n), func(ctx context.Context, st *stageCtx) error {
				// u_j = Mᵀv_j / √μ_j (eq. 46, normalised).
				vecs = dense.New(d, dim)
				if err := backend.GemmCtx(ctx, impl, blas.Trans, blas.NoTrans, 1, centred, v, 0, vecs); err != nil {
					return err
				}
				vals = make([]float64, dim)
				for j := 0; j < dim; j++ {
					if mu[j] <= 0 {
						continue // reported by checkRank below
					}
					inv := 1 / math.Sqrt(mu[j])
					for i := 0; i < d; i++ {
						vecs.Data[i*dim+j] *= inv
					}
					vals[j] = mu[j] / float64(n-1)
				}
				backend.FixSigns(vecs)
				return nil
			})
		}
	}
	if err != nil {
		return nil, wrapNumerical(err)
	}
	if err := checkRank(method, vals, dim); err != nil {
		return nil, err
	}
	m.components, m.variance = vecs, vals
	err = r.stage("project", flam.Gemm(n, dim, d), func(ctx context.Context, st *stageCtx) error {
		m.embedding = dense.New(n, dim)
		return backend.GemmCtx(ctx, impl, blas.NoTrans, blas.NoTrans, 1, centred, vecs, 0, m.embedding)
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// wrapNumerical marks backend failures (not cancellations) as ErrNumerical.
func wrapNumerical(err error) error {
	if err == nil || isCtxErr(err) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrNumerical, err)
}

// The engine's one rank rule: a singular value σᵢ ≤ tol·σ₁ is zero
// (numericalRank, on dense.Rank, which engine/internal/discriminant's
// whitening also uses with its own tolerance). Two tolerances serve it. nullTol decides that a
// requested component (PCA, LSI) has no variance: the eigenvalues σ² of a
// covariance or Gram matrix are accurate to about ε·σ₁², so σ below
// √ε·σ₁ ≈ 1e-8·σ₁ is noise, and 1e-6 leaves a margin. rankTol (lge.go)
// is the truncation of the linear graph embeddings' SVD step: their
// reduced problem divides by σ, so directions below 1e-5·σ₁ (which
// constant pixels and duplicates produce) are dropped before they amplify
// rounding (the scikit-learn fixtures of LPP and NPE on Yale and USPS pass
// with it).
const nullTol = 1e-6

// numericalRank returns the number of leading values of sq (squared
// singular values or variances, descending) with σᵢ > tol·σ₁; 0 when σ₁ is
// not positive (dense.Rank, the rule itself).
func numericalRank(sq []float64, tol float64) int { return dense.Rank(sq, tol*tol) }

// checkRank rejects components whose variance is zero to working accuracy
// (numericalRank with nullTol): their directions would be arbitrary.
func checkRank(method string, vals []float64, dim int) error {
	if j := numericalRank(vals, nullTol); j < len(vals) {
		return fmt.Errorf("%s: %w: only %d of the %d requested components have non-zero variance (the data's rank is %d)",
			method, ErrDimension, j, dim, j)
	}
	return nil
}

// centre returns the column means of g, the centred copy M = g − mean and
// ‖M‖²_F (the sum of squared deviations).
func centre(g blas64.General) ([]float64, blas64.General, float64) {
	n, d := g.Rows, g.Cols
	mean := make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range g.Data[i*g.Stride : i*g.Stride+d] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	c := dense.New(n, d)
	sums := make([]float64, n)
	backend.ParallelFor(n, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			src, dst := g.Data[i*g.Stride:i*g.Stride+d], c.Data[i*d:(i+1)*d]
			s := 0.0
			for j, v := range src {
				t := v - mean[j]
				dst[j] = t
				s += t * t
			}
			sums[i] = s
		}
	})
	ss := 0.0
	for _, v := range sums {
		ss += v
	}
	return mean, c, ss
}

// Components returns the principal axes as the columns of a D×Dim matrix.
func (m *PCAModel) Components() *mat.Dense { return copyDense(m.components) }

// Mean returns the training mean.
func (m *PCAModel) Mean() []float64 { return append([]float64(nil), m.mean...) }

// ExplainedVariance returns the variance along each component: the
// eigenvalues of the covariance, descending.
func (m *PCAModel) ExplainedVariance() []float64 { return append([]float64(nil), m.variance...) }

// ExplainedVarianceRatio returns λ_i / Σ_j λ_j for each component (eq. 27),
// the sum running over all D eigenvalues (the trace of the covariance, so
// no other eigenvalue is computed).
func (m *PCAModel) ExplainedVarianceRatio() []float64 {
	r := make([]float64, len(m.variance))
	for i, v := range m.variance {
		r[i] = v / m.p.Total
	}
	return r
}

// Transform projects new points: y = Uᵀ(x − m) (eq. 47).
func (m *PCAModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	g, err := denseTransformInput("pca transform", x, len(m.mean))
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := dense.New(g.Rows, g.Cols)
	for i := 0; i < g.Rows; i++ {
		for j, v := range g.Data[i*g.Stride : i*g.Stride+g.Cols] {
			c.Data[i*c.Stride+j] = v - m.mean[j]
		}
	}
	y := dense.New(g.Rows, m.Dim())
	backend.Active().Gemm(blas.NoTrans, blas.NoTrans, 1, c, m.components, 0, y)
	return transformResult(methodPCA, y)
}

// Reconstruct maps embedded points back to the data space: x̃ = U·y + m
// (eq. 48).
func (m *PCAModel) Reconstruct(y mat.Matrix) (*mat.Dense, error) {
	g, err := denseInput("pca reconstruct", y)
	if err != nil {
		return nil, err
	}
	if g.Cols != m.Dim() {
		return nil, fmt.Errorf("pca reconstruct: %w: %d columns, the model has %d components", ErrShape, g.Cols, m.Dim())
	}
	d := len(m.mean)
	x := dense.New(g.Rows, d)
	backend.Active().Gemm(blas.NoTrans, blas.Trans, 1, g, m.components, 0, x)
	for i := 0; i < g.Rows; i++ {
		row := x.Data[i*d : (i+1)*d]
		for j := range row {
			row[j] += m.mean[j]
		}
	}
	return toDense(x), nil
}

// Save writes the model (see Load for the format).
func (m *PCAModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *PCAModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	c.vector("mean", &m.mean, -1)
	c.matrix("components", &m.components, len(m.mean), dim)
	c.vector("variance", &m.variance, dim)
	c.matrix("embedding", &m.embedding, -1, dim)
}

func rowVec(v []float64) blas64.General {
	return blas64.General{Rows: 1, Cols: len(v), Stride: max(1, len(v)), Data: v}
}
