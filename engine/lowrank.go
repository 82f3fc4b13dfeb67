package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/admm"
	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/cluster"
	"github.com/manifoldlab/manifold/engine/internal/discriminant"
	"github.com/manifoldlab/manifold/internal/dense"
)

// LowRankIsomap is the Low-Rank Isomap of Mehrbani & Kahaei
// (Mehrbani & Kahaei, Low-Rank Isomap), Alg. 1 as printed:
//
//  1. Landmarks (steps 1–2, §2 eq. 3, after Manazhy & Sankaran 2019): the
//     Landmarks = N_C centroids μ_i of k-means (k-means++ seeding, package
//     engine/cluster) of the rows of X; every point belongs to the cluster
//     c_i of its nearest centroid.
//  2. Scatter matrices (step 3, eq. 4–5): S_B = Σ_i N_i(μ_i − μ)(μ_i − μ)ᵀ
//     = BBᵀ with the D×N_C factor B = [√N_i(μ_i − μ)], and the
//     within-cluster S_W = Σ_i Σ_{x∈c_i}(x − μ_i)(x − μ_i)ᵀ. Eq. (5) as
//     printed centres on the overall mean μ, which makes it the total
//     scatter S_T = S_B + S_W; the pencils (S_B, S_W) and (S_B, S_T) have
//     the same eigenvectors (eigenvalues λ and λ/(1+λ)), so W is the same.
//  3. Low-rank representation (step 4, Alg. 2, eq. 9): the columns of the
//     factor B are represented by the admm package's LRR,
//     B = B·Z_B + E_B, min ‖Z‖_* + β‖Z‖₁ + λ‖E‖₁, Z ≥ 0, with Alg. 2's
//     constants (LRR settings; λ is the command line's -alpha). The
//     factor, N_C columns, stands for S_B (D×D): rank(S_B) = rank(B), and
//     an N_C×N_C problem instead of a D×D one. The low-rank between-cluster
//     scatter is S̃_B = (BZ_B)(BZ_B)ᵀ, of rank ≤ rank(Z_B).
//  4. Partial generalized eigendecomposition (step 5): the Dim largest
//     eigenpairs of S̃_B·w = λ·S_W·w by the Cholesky reduction of S_W and
//     the thin SVD of L⁻¹BZ_B (as LDA): O(D³/6 + D²N_C). When S_W is
//     singular (D > N − N_C, as for 32×32 faces) the ridge
//     Ridge·tr(S_W)/D·I is added to it.
//  5. W = [w_1 … w_m] (step 6) and y = Wᵀ(x − μ) (step 7, centred).
//
// Alg. 1 has no geodesic step, although Tables 1 and 4 list the landmark
// geodesics D_KN among its stages; we follow Alg. 1. The projection is
// linear, so new points are mapped by W. Labels, when set, replace the
// k-means clusters by the classes (the supervised FLDA of the Extended
// Clustered Isomap the paper builds on); the paper's protocol (§4.2) is
// unsupervised reduction followed by FLDA leave-one-out classification in
// the latent space, LeaveOneOut.
//
// What the low-rank step gets: with Alg. 2's constants the problem (9) is
// not scale-free (λ weighs ‖E‖₁ in the units of the data). On ORL and Yale
// pixels (0–255) with the 20-column factor of 20 k-means clusters, or the
// 40 (15) class means, Z_B comes out of full rank (20/20, 40/40, 15/15):
// E_B costs more than Z_B's norms, and S̃_B ≈ S_B. With the factor scaled
// to ‖B‖₂ = 1 (UnitScale) and λ = 0.02, Z_B = 0 (E_B takes all, and Fit
// returns ErrDimension); the ranks fall in between for λ ≈ 0.2–0.3 on the
// unit-scaled factor (ORL, 20 clusters: rank 6 at λ = 0.2, 15 at 0.3). On
// small synthetic problems Z_B often comes out as the projector that
// removes the one exact dependency of B's columns (Σ√N_i·b_i = 0): rank
// N_C − 1 and BZ_B = B. The paper's "rank of S_B 390, reduced to 5" on
// AT&T cannot come from eq. (4) with N_C ≤ 40 groups (rank S_B ≤ N_C − 1).
// The model reports the rank of Z_B and the constraint residuals of
// eq. (25) and (10).
//
// Classification (FLDA leave-one-out in the latent space, measured with the
// pure-Go backend; TestLowRankIsomapYale): unsupervised as Alg. 1 says,
// ORL reaches 19.8 % (m = 2), 36.0 % (m = 10) and 39.8 % (m = 19) with 20
// clusters, 59.0 % with 40 clusters and m = 30; Yale 35–44 % (m = 10, 20
// clusters). With the classes as the groups (Labels) the held-out sample's
// label shapes S_B and S_W and the accuracy is 100 % on both at m = 2 —
// which is what Table 5's 98.2 % (AT&T) and 99.8 % (Yale) in a
// two-dimensional latent space (Figs. 5–8) look like. For comparison, PCA
// to 30 dimensions then FLDA leave-one-out gives 98.0 % (ORL) and 83.6 %
// (Yale).
type LowRankIsomap struct {
	Dim int // m; default 2 (the latent dimension of Figs. 5–8)
	// Landmarks is the number N_C of k-means clusters (landmarks);
	// default 20 (Figs. 9–12).
	Landmarks int `setting:"landmarks"`
	// Labels, if set, are the groups of S_B and S_W instead of the
	// clusters.
	Labels []int
	// LRR holds Alg. 2's constants (zero: the paper's, λ = 0.02).
	LRR admm.LRRSettings `setting:"alpha,field=Lambda"`
	// UnitScale runs the LRR on B/‖B‖₂, making λ independent of the
	// data's units.
	UnitScale bool
	// Ridge is the relative ridge added to a singular S_W, times
	// tr(S_W)/D; default 1e-3.
	Ridge float64
	Seed  uint64 // k-means
	Options
}

// LowRankIsomapModel is a fitted Low-Rank Isomap.
type LowRankIsomapModel struct {
	base[lowRankParams]
	mean      []float64
	proj      blas64.General // D×Dim
	eig       []float64      // generalized eigenvalues, descending
	landmarks blas64.General // N_C×D: the cluster centroids
	z         blas64.General // N_C×N_C: Z_B
	lrr       admm.LRRStats  // a loaded model's: the rank and residuals its file keeps
}

// lowRankParams are Low-Rank Isomap's parameters: the groups, and what the
// LRR and the eigenproblem found.
type lowRankParams struct {
	Landmarks      int     `param:"landmarks,report"` // groups: clusters, or classes
	Supervised     bool    `param:"supervised,report"`
	UnitScale      bool    `param:"unit_scale,report"`
	RankZ          int     `param:"rank_z"`
	LRRIterations  int     `param:"lrr_iterations,report"`
	LRRConverged   bool    `param:"lrr_converged,report"`
	PrimalResidual float64 `param:"lrr_primal_residual"`
	ZJResidual     float64 `param:"lrr_zj_residual"`
	Ridge          float64 `param:"ridge"` // added to S_W (0: none)
}

const methodLowRankIsomap = "lowrank-isomap"

func (s LowRankIsomap) resolved() LowRankIsomap {
	s.Dim, s.Landmarks, s.Ridge = cmp.Or(s.Dim, 2), cmp.Or(s.Landmarks, 20), cmp.Or(s.Ridge, 1e-3)
	return s
}

// Fit learns the projection from the rows of x.
func (s LowRankIsomap) Fit(ctx context.Context, x mat.Matrix) (*LowRankIsomapModel, error) {
	const method = methodLowRankIsomap
	s = s.resolved()
	var y []int // labels as class indices; nil: groups by k-means
	nc := s.Landmarks
	return fitter[*LowRankIsomapModel]{method: method, opts: s.Options, input: denseRows,
		plan: func(in samples) (fitPlan, error) {
			g := in.dense
			n, d := g.Rows, g.Cols
			if n < 3 {
				return fitPlan{}, fmt.Errorf("%s: %w: %d sample(s), need at least 3 (two groups and a within-group scatter)", method, ErrTooFewSamples, n)
			}
			if s.Labels != nil {
				var classes []int
				var err error
				if y, classes, _, err = checkLabels(method, s.Labels, n); err != nil {
					return fitPlan{}, err
				}
				nc = len(classes)
			} else if nc < 2 || nc >= n {
				return fitPlan{}, fmt.Errorf("%s: %w: %d landmarks for %d samples (need 2 ≤ L < N)", method, ErrBadSetting, nc, n)
			}
			if err := checkDim(method, s.Dim, min(nc-1, d), "min(landmarks−1, features)"); err != nil {
				return fitPlan{}, err
			}
			if s.Ridge < 0 || math.IsNaN(s.Ridge) || math.IsInf(s.Ridge, 0) {
				return fitPlan{}, fmt.Errorf("%s: %w: ridge %v", method, ErrBadSetting, s.Ridge)
			}
			est := 8 * (2*int64(n)*int64(d) + 3*int64(d)*int64(d) + 8*int64(nc)*int64(max(d, nc)))
			return fitPlan{dim: s.Dim, bytes: est, what: "Low-Rank Isomap (D×D scatter matrices)", cheaper: "fewer features (PCA first)"}, nil
		},
		stages: func(r *run, in samples) (*LowRankIsomapModel, error) {
			g := in.dense
			n, d := g.Rows, g.Cols
			var err error
			m := &LowRankIsomapModel{base: newBase(method, lowRankParams{Landmarks: nc, Supervised: s.Labels != nil, UnitScale: s.UnitScale})}
			if y == nil {
				err = r.stage("kmeans", 20*flam.KNNBrute(n, nc, d), func(ctx context.Context, st *stageCtx) error {
					res, err := cluster.KMeans{K: nc, Seed: s.Seed}.Fit(ctx, g)
					if err != nil {
						if isCtxErr(err) { // a cancellation is not a bad setting
							return err
						}
						return fmt.Errorf("%w: %w", ErrBadSetting, err)
					}
					y = res.Labels
					st.iterations = res.Iterations
					st.detail = fmt.Sprintf("%d clusters, k-means++ seeding, inertia %.4g", nc, res.Inertia)
					return nil
				})
				if err != nil {
					return nil, err
				}
			}
			// Scatter: centred data, cluster means, B and S_W.
			var a blas64.General
			m.mean, a, _ = centre(g)
			var b, sw blas64.General
			err = r.stage("scatter", discriminant.ScatterFlam(n, d, nc), func(ctx context.Context, st *stageCtx) error {
				size := make([]int, nc)
				for _, k := range y {
					size[k]++
				}
				for k, nk := range size {
					if nk == 0 {
						if distinct := len(distinctRows(g, nil, nc)); distinct < nc {
							return fmt.Errorf("%w: the data have %d distinct points, fewer than the %d landmarks (clusters): use at most %d", ErrDimension, distinct, nc, distinct)
						}
						return fmt.Errorf("%w: cluster %d is empty", ErrNumerical, k)
					}
				}
				cm, bb, w, err := discriminant.Scatter(ctx, a, y, size) // cm: cluster means of the centred data
				if err != nil {
					return err
				}
				b, sw = bb, w
				m.landmarks = dense.New(nc, d)
				for k := 0; k < nc; k++ {
					for j := 0; j < d; j++ {
						m.landmarks.Data[k*d+j] = cm.Data[k*d+j] + m.mean[j]
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			err = r.stage("lrr", admm.LRRIterFlam(d, nc, nc)*1000, func(ctx context.Context, st *stageCtx) error {
				in := b
				if s.UnitScale {
					in = dense.Copy(b)
					sv := make([]float64, min(d, nc))
					if err := backend.Active().Gesdd(dense.Copy(b), sv, blas64.General{}, blas64.General{}); err != nil {
						return wrapNumerical(err)
					}
					if sv[0] > 0 {
						for i := range in.Data {
							in.Data[i] /= sv[0]
						}
					}
				}
				res, err := admm.LRR(ctx, in, s.LRR)
				if res == nil || (err != nil && !errors.Is(err, admm.ErrNotConverged)) {
					if err != nil && !isCtxErr(err) {
						err = fmt.Errorf("%w: %w", ErrNumerical, err)
					}
					return err
				}
				m.z, m.lrr = res.Z, res.Stats
				st.iterations = res.Stats.Iterations
				st.predicted = res.Stats.Flam
				st.detail = fmt.Sprintf("rank(Z_B) = %d of %d, residuals %.2g (eq. 25) and %.2g (Z = J), converged %v",
					res.Stats.Rank, nc, res.Stats.PrimalResidual, res.Stats.ZJResidual, res.Stats.Converged)
				return nil
			})
			if err != nil {
				return nil, err
			}
			m.p.RankZ, m.p.LRRIterations, m.p.LRRConverged = m.lrr.Rank, m.lrr.Iterations, m.lrr.Converged
			m.p.PrimalResidual, m.p.ZJResidual = m.lrr.PrimalResidual, m.lrr.ZJResidual
			var wf blas64.General
			err = r.stage("eigensolve", flam.Gemm(d, nc, nc)+discriminant.SolveFlam(d, nc, s.Dim), func(ctx context.Context, st *stageCtx) error {
				bz := dense.New(d, nc) // the factor of S̃_B
				backend.Active().Gemm(blas.NoTrans, blas.NoTrans, 1, b, m.z, 0, bz)
				st.detail = "Cholesky of S_W, SVD of L⁻¹BZ_B"
				var err error
				m.eig, wf, err = discriminant.Solve(dense.Copy(sw), bz, s.Dim, 0)
				if errors.Is(err, discriminant.ErrSingular) {
					m.p.Ridge = discriminant.Ridge(s.Ridge, sw)
					st.detail += fmt.Sprintf(", S_W singular: ridge %.3g", m.p.Ridge)
					m.eig, wf, err = discriminant.Solve(sw, bz, s.Dim, m.p.Ridge)
					if errors.Is(err, discriminant.ErrSingular) {
						return fmt.Errorf("%w: the within-cluster scatter is singular even with the ridge %g; raise Ridge", ErrNumerical, m.p.Ridge)
					}
				}
				return wrapNumerical(err)
			})
			if err != nil {
				return nil, err
			}
			for j := 0; j < s.Dim; j++ {
				if j >= len(m.eig) || !(m.eig[j] > 1e-12*m.eig[0]) {
					return nil, fmt.Errorf("%s: %w: only %d of the %d requested directions have a non-zero generalized eigenvalue (rank of Z_B: %d); lower Dim or change the LRR's λ, which weighs E_B in the data's units (UnitScale fixes the units)",
						method, ErrDimension, j, s.Dim, m.lrr.Rank)
				}
			}
			discriminant.Pooled(wf, n) // Wᵀ(S_W/N)W = I, as LDA
			backend.FixSigns(wf)
			m.proj = wf
			if m.embedding, err = r.project("project", flam.Gemm(n, s.Dim, d), samples{dense: a}, m.proj); err != nil {
				return nil, err
			}
			return m, nil
		},
	}.fit(ctx, x)
}

// Projection returns W (D×Dim).
func (m *LowRankIsomapModel) Projection() *mat.Dense { return copyDense(m.proj) }

// Eigenvalues returns the generalized eigenvalues of (S̃_B, S_W) kept,
// descending.
func (m *LowRankIsomapModel) Eigenvalues() []float64 { return append([]float64(nil), m.eig...) }

// Landmarks returns the cluster centroids (N_C×D).
func (m *LowRankIsomapModel) Landmarks() *mat.Dense { return copyDense(m.landmarks) }

// Z returns the low-rank coefficients Z_B (N_C×N_C).
func (m *LowRankIsomapModel) Z() *mat.Dense { return copyDense(m.z) }

// LRRStats returns the statistics of the low-rank representation: the rank
// of Z_B, the residuals of its constraints, iterations.
func (m *LowRankIsomapModel) LRRStats() admm.LRRStats { return m.lrr }

// Ridge returns the ridge added to S_W (0 when it was nonsingular).
func (m *LowRankIsomapModel) Ridge() float64 { return m.p.Ridge }

// Transform maps new points: y = Wᵀ(x − μ).
func (m *LowRankIsomapModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	f := fisher{mean: m.mean, proj: m.proj}
	return f.transform(ctx, m.method, x)
}

// Save writes the model (see Load for the format).
func (m *LowRankIsomapModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *LowRankIsomapModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	if c.loaded() {
		m.lrr = admm.LRRStats{Rank: m.p.RankZ, PrimalResidual: m.p.PrimalResidual, ZJResidual: m.p.ZJResidual}
	}
	c.vector("mean", &m.mean, -1)
	c.matrix("projection", &m.proj, len(m.mean), dim)
	c.vector("eigenvalues", &m.eig, -1)
	c.matrix("embedding", &m.embedding, -1, dim)
	c.matrix("landmarks", &m.landmarks, -1, len(m.mean))
	c.matrix("z", &m.z, m.landmarks.Rows, m.landmarks.Rows)
}
