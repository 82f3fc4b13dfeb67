package engine

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/internal/tangent"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
)

// TDPM is the Tangent Distance Preserving Mapping of Zhao & Jiang
// (Zhao & Jiang, TDPM): classical MDS of the tangent
// distances between the points, which keeps the folds of the manifold
// where Isomap unfolds it.
//
//   - Tangent spaces (§2.1, eq. 3–4, step 2 of §3): for every point x_i,
//     P_i holds the TangentDim leading left singular vectors of its K
//     nearest neighbours (x_i itself excluded) centred on their mean,
//     X_i(I − eeᵀ/K): local PCA, the tangent space of LTSA.
//   - Tangent distances (§2.2, eq. 5): TD(i,j) = min_α ‖x_i + P_iα − x_j‖
//     = ‖(I − P_iP_iᵀ)(x_j − x_i)‖, the distance from x_j to the tangent
//     plane at x_i. It is computed for all j at once as
//     TD(i,j)² = ‖x_j − x_i‖² − ‖P_iᵀx_j − P_iᵀx_i‖² (clamped at 0): the
//     projections P_iᵀx_j of all points for a block of tangent spaces are
//     one matrix product (n²·D·TangentDim flam in all), never a loop over
//     pairs (the kernels are engine/internal/tangent's). The difference of
//     squares cancels where TD ≪ ‖x_j − x_i‖: TD is accurate to about
//     √ε·‖x‖, 1e-8 of the data's radius (the data are centred first; TD is
//     translation invariant). When every TD is that small the points lie
//     in their tangent spaces (a flat manifold of the tangent dimension)
//     and Fit returns ErrDimension.
//   - TD is not symmetric: TD(i,j) uses the tangent space at x_i. The
//     paper leaves open how MDS treats that; TDPM uses the symmetric
//     (TD + TDᵀ)/2, the nearest symmetric matrix in the Frobenius norm.
//   - Classical MDS (step 3): B = −½·H·(TD∘TD)·H, coordinates √λ·v of its
//     Dim leading eigenpairs (dense or Lanczos, as MDS).
//
// TD(i,j) ≤ ‖x_i − x_j‖ always, with equality when x_j − x_i is orthogonal
// to the tangent space at x_i (§4.1), so the embedding is spread wider than
// the data — the "scale problem" of §4.1 and §5.
//
// New points are placed by the landmark-MDS triangulation (as MDS.Transform
// does from Euclidean distances) from their symmetrized tangent distances
// to the training points: TD(j, x) from the stored tangent spaces of the
// training points, TD(x, j) from the tangent space at x, the local PCA of
// its K nearest training points (one training point identical to x
// excluded, as a training point's own tangent space excludes it, so
// transforming the training points gives their embedding).
//
// The §4.3 pipeline (TDPM to h dimensions, then Isomap to 2 on the TDPM
// coordinates) is two fits: TDPM{Dim: h} then Isomap{Dim: 2} on its
// Embedding (cmd/manifold shows the commands).
//
// Two kernels compute the same TD. The products path forms, per block of
// tangent spaces, Y·[P_s … P_e] (n²·D·t flam in all). When K < D the Gram
// path is cheaper: with the local PCA's coefficients A_i = Σ⁻¹Vᵀ (t×K,
// P_i = C_iᵀVΣ⁻¹), P_iᵀx_j = A_i·(x_l·x_j)_{l∈N(i)}, so one Gram matrix XXᵀ
// (n²D/2) and n²·t·K flam give every TD (tangent.DistancesGramFlam); it
// holds a second N×N matrix while the distances are formed, and is used
// only when Options.MaxBytes leaves room for it.
//
// Memory: the N×N tangent distances (then B in place), the Gram matrix on
// the Gram path, the tangent spaces (N·D·TangentDim) and O(N·D) else.
// Time: on the 2-core reference machine (AMD EPYC, shared; BenchmarkTDPM*,
// three runs) a 2000-point swiss roll (k = 12) takes 0.15–0.22 s (pure Go)
// and 0.11–0.16 s (OpenBLAS); the usps9298 training half (4649 × 256, k =
// 12, TangentDim 5) 2.6–2.9 s and 2.2–2.4 s, of which the neighbour search
// and the Gram matrix take 0.8 s each and the distances 0.9 s.
type TDPM struct {
	Dim int // output dimension; default 2
	// TangentDim is the dimension of the tangent spaces (the d of §2 and
	// §3, which the paper takes equal to the output dimension); default
	// Dim. It must be below the number of features and at most K − 1.
	TangentDim int `setting:"tangent-dim"`
	// K nearest neighbours of the local PCA; default 12 (§4.1).
	K           int `setting:"k"`
	Eigensolver Eigensolver
	Seed        uint64 // Lanczos start vector
	Options
}

// TDPMModel is a fitted TDPM.
type TDPMModel struct {
	base[tdpmParams]
	train   blas64.General // the centred training points, n×D
	mean    []float64      // their mean (subtracted from new points)
	tangent blas64.General // D×(n·t): columns i·t … i·t+t−1 are P_i
	anchor  blas64.General // n×t: P_iᵀx_i
	tri     triangulation
	eig     []float64
	exact   exactQueries // answers Transform's neighbour queries
}

// tdpmParams are TDPM's parameters.
type tdpmParams struct {
	TangentDim  int         `param:"tangent_dim,min=1"`
	K           int         `param:"k,min=1"`
	Eigensolver Eigensolver `param:"eigensolver,report"`
	Distances   string      `param:"distances,report"` // the kernel: "gram" or "products"
}

const methodTDPM = "tdpm"

func (s TDPM) resolved() TDPM {
	s.Dim, s.K = cmp.Or(s.Dim, 2), cmp.Or(s.K, 12)
	s.TangentDim = cmp.Or(s.TangentDim, s.Dim)
	return s
}

// Fit embeds the rows of x.
func (s TDPM) Fit(ctx context.Context, x mat.Matrix) (*TDPMModel, error) {
	const method = methodTDPM
	s = s.resolved()
	var solver Eigensolver
	return fitter[*TDPMModel]{method: method, opts: s.Options, input: denseRows,
		plan: func(in samples) (fitPlan, error) {
			g := in.dense
			n, d := g.Rows, g.Cols
			if err := checkDim(method, s.Dim, n-1, "samples−1"); err != nil {
				return fitPlan{}, err
			}
			switch {
			case s.K < 1 || s.TangentDim < 1:
				return fitPlan{}, fmt.Errorf("%s: %w: k = %d, tangent dimension %d (both must be ≥ 1)", method, ErrBadSetting, s.K, s.TangentDim)
			case s.K >= n:
				return fitPlan{}, fmt.Errorf("%s: %w: k = %d neighbours need more than %d samples", method, ErrTooFewSamples, s.K, n)
			case s.TangentDim >= d:
				return fitPlan{}, fmt.Errorf("%s: %w: tangent dimension %d must be below the %d features (tangent distances would all be 0)", method, ErrBadSetting, s.TangentDim, d)
			case s.TangentDim > s.K-1:
				return fitPlan{}, fmt.Errorf("%s: %w: tangent dimension %d exceeds k−1 = %d (k centred neighbours span at most k−1 directions)", method, ErrBadSetting, s.TangentDim, s.K-1)
			}
			var err error
			solver, err = chooseEigensolver(method, s.Eigensolver, eigenproblem{n: n, dim: s.Dim})
			if err != nil {
				return fitPlan{}, err
			}
			t := s.TangentDim
			est := 8*(int64(n)*int64(n)+int64(n)*int64(d)*int64(t+2)+int64(n)*int64(s.K+t+s.Dim)*2+int64(n)*int64(tangent.Block(t))*int64(t)) + graphBytes(s.Neighbors, in, s.K)
			return fitPlan{dim: s.Dim, bytes: est, what: fmt.Sprintf("TDPM on %d points (one %d×%d matrix of tangent distances)", n, n, n), cheaper: "fewer points"}, nil
		},
		stages: func(r *run, in samples) (*TDPMModel, error) {
			g := in.dense
			n, d := g.Rows, g.Cols
			var err error
			t := s.TangentDim
			m := &TDPMModel{base: newBase(method, tdpmParams{TangentDim: t, K: s.K, Eigensolver: solver, Distances: "products"})}
			m.mean, m.train, _ = centre(g)
			var nb *neighbors.Result
			err = r.stage("neighbors", neighbors.Options{}.Flam(n, n, d, s.K), func(ctx context.Context, st *stageCtx) error {
				var err error
				nb, err = selfKNN(ctx, st, samples{dense: m.train}, s.K)
				return err
			})
			if err != nil {
				return nil, mapGraphErr(err)
			}
			// The Gram path (k < D) needs a second N×N matrix and saves
			// n²(D·t − D/2 − t·k) flam; without room for it (MaxBytes), the
			// products path.
			gramPath := s.K < d && (s.Options.MaxBytes <= 0 || r.rep.EstimatedBytes+8*int64(n)*int64(n) <= s.Options.MaxBytes)
			var coef blas64.General
			if gramPath {
				coef = dense.New(n, t*s.K)
			}
			err = r.stage("tangents", tangent.SpacesFlam(n, d, s.K, t), func(ctx context.Context, st *stageCtx) error {
				st.detail = fmt.Sprintf("local PCA of %d neighbours, %d directions", s.K, t)
				var err error
				m.tangent, err = tangent.Spaces(ctx, m.train, nb, t, coef, st.progress)
				return err
			})
			if err != nil {
				return nil, err
			}
			m.anchor = tangent.Anchors(m.train, m.tangent, t)
			td := dense.New(n, n)
			if gramPath {
				m.p.Distances = "gram"
				gm := dense.New(n, n)
				err = r.stage("gram", flam.Syrk(n, d), func(ctx context.Context, st *stageCtx) error {
					return dense.GramUpper(ctx, m.train, gm)
				})
				if err == nil {
					err = r.stage("tangent-distances", tangent.DistancesGramFlam(n, s.K, t), func(ctx context.Context, st *stageCtx) error {
						st.detail = "rows of A_i·(XXᵀ)[N(i), :]"
						return tangent.DistancesGram(ctx, td, gm, nb, coef, t, st.progress)
					})
				}
			} else {
				err = r.stage("tangent-distances", tangent.DistancesFlam(n, d, t), func(ctx context.Context, st *stageCtx) error {
					st.detail = fmt.Sprintf("blocks of %d tangent spaces: X·[P_i …]", tangent.Block(t))
					return tangent.Distances(ctx, td, m.train, m.train, m.tangent, m.anchor, t, st.progress)
				})
			}
			if err != nil {
				return nil, err
			}
			var largest float64
			err = r.stage("symmetrize", float64(n)*float64(n), func(ctx context.Context, st *stageCtx) error {
				st.detail = "(TD + TDᵀ)/2, squared"
				var err error
				largest, err = tangent.SymmetrizeSquared(ctx, td)
				return err
			})
			if err != nil {
				return nil, err
			}
			// Rounding leaves tangent distances of about √ε·‖x‖ where they are 0.
			if scale := tangent.Radius(m.train); math.Sqrt(largest) <= 1e-6*scale {
				return nil, fmt.Errorf("%s: %w: every tangent distance is 0 to rounding (largest %.3g, data radius %.3g): the points lie in their %d-dimensional tangent spaces (a flat manifold); use a smaller tangent dimension, PCA or MDS",
					method, ErrDimension, math.Sqrt(largest), scale, t)
			}
			vals, vecs, means, err := centreAndEig(r, td, s.Dim, solver, s.Seed)
			if err != nil {
				return nil, err
			}
			m.embedding, m.tri, err = embedFromEig(method, vals, vecs, means)
			if err != nil {
				return nil, err
			}
			m.eig = vals
			return m, nil
		},
	}.fit(ctx, x)
}

// Eigenvalues returns the Dim eigenvalues of B used, descending.
func (m *TDPMModel) Eigenvalues() []float64 { return append([]float64(nil), m.eig...) }

// TangentDistances returns the n×n matrix of tangent distances
// TD(i,j) = ‖(I − P_iP_iᵀ)(x_j − x_i)‖ between the training points, before
// symmetrization (row i uses the tangent space at x_i).
func (m *TDPMModel) TangentDistances(ctx context.Context) (*mat.Dense, error) {
	n := m.train.Rows
	td := dense.New(n, n)
	if err := tangent.Distances(ctx, td, m.train, m.train, m.tangent, m.anchor, m.p.TangentDim, nil); err != nil {
		return nil, err
	}
	return toDense(td), nil
}

// Transform places new points by triangulation from their symmetrized
// tangent distances to the training points (see TDPM).
func (m *TDPMModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	n, d := m.train.Rows, m.train.Cols
	g, err := denseTransformInput("tdpm transform", x, d)
	if err != nil {
		return nil, err
	}
	if err := checkTransformRange(methodTDPM, samples{dense: g}, n); err != nil {
		return nil, err
	}
	out := dense.New(g.Rows, m.Dim())
	const chunk = 256
	for lo := 0; lo < g.Rows; lo += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(g.Rows, lo+chunk)
		q := dense.New(hi-lo, d)
		for i := range q.Rows {
			src := g.Data[(lo+i)*g.Stride : (lo+i)*g.Stride+d]
			for a, v := range src {
				q.Data[i*d+a] = v - m.mean[a]
			}
		}
		// Tangent spaces at the new points from their K nearest training
		// points, one identical training point left out.
		s, err := exactSearcher(ctx, &m.exact, m.train)
		if err != nil {
			return nil, fmt.Errorf("tdpm transform: %w", err)
		}
		nb, err := s.KNN(ctx, toDense(q), min(m.p.K+1, n))
		if err != nil {
			return nil, fmt.Errorf("tdpm transform: %w", err)
		}
		own := dropSelf(nb, m.p.K)
		pq, err := tangent.Spaces(ctx, m.train, own, m.p.TangentDim, blas64.General{}, nil)
		if err != nil {
			return nil, err
		}
		aq := tangent.Anchors(q, pq, m.p.TangentDim)
		fromNew := dense.New(q.Rows, n) // TD(x, j), tangent space at x
		if err := tangent.Distances(ctx, fromNew, q, m.train, pq, aq, m.p.TangentDim, nil); err != nil {
			return nil, err
		}
		toNew := dense.New(n, q.Rows) // TD(j, x), tangent space at x_j
		if err := tangent.Distances(ctx, toNew, m.train, q, m.tangent, m.anchor, m.p.TangentDim, nil); err != nil {
			return nil, err
		}
		for i := 0; i < q.Rows; i++ {
			row := fromNew.Data[i*fromNew.Stride : i*fromNew.Stride+n]
			for j := range row {
				v := 0.5 * (row[j] + toNew.Data[j*toNew.Stride+i])
				row[j] = v * v
			}
		}
		y := m.tri.apply(fromNew)
		for i := 0; i < y.Rows; i++ {
			copy(out.Data[(lo+i)*out.Stride:(lo+i)*out.Stride+y.Cols], y.Data[i*y.Stride:i*y.Stride+y.Cols])
		}
	}
	return transformResult(methodTDPM, out)
}

// dropSelf turns k+1 nearest training points per query into k: the first
// one when it is at distance 0 (the query is a training point), else the
// last.
func dropSelf(nb *neighbors.Result, k int) *neighbors.Result {
	out := &neighbors.Result{Ptr: make([]int, 1, nb.Len()+1)}
	for i := 0; i < nb.Len(); i++ {
		ind, dist := nb.Row(i)
		if len(ind) > k {
			if dist[0] == 0 {
				ind, dist = ind[1:], dist[1:]
			} else {
				ind, dist = ind[:k], dist[:k]
			}
		}
		out.Ind = append(out.Ind, ind...)
		out.Dist = append(out.Dist, dist...)
		out.Ptr = append(out.Ptr, len(out.Ind))
	}
	return out
}

// Save writes the model (see Load for the format).
func (m *TDPMModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *TDPMModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	c.triangulated(&m.embedding, &m.tri, &m.eig, dim, -1)
	n := m.embedding.Rows
	c.matrix("train", &m.train, n, -1)
	feat := m.train.Cols
	c.vector("mean", &m.mean, feat)
	c.matrix("tangent", &m.tangent, feat, n*m.p.TangentDim)
	c.matrix("anchor", &m.anchor, n, m.p.TangentDim)
	c.check(m.p.K < n, "k = %d for %d training points", m.p.K, n)
}
