package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/internal/barycentric"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// LandmarkLLE is LLE by locally linear landmarks (Vladymyrov &
// Carreira-Perpiñán, "Locally Linear Landmarks for Large-Scale Manifold
// Learning", ECML PKDD 2013): LLE's objective tr(Yᵀ·M·Y), M = (I − W)ᵀ(I − W)
// as in LLE, minimised over the embeddings Y = Z·Ỹ that reconstruct every
// point's coordinates from those of its LandmarkK nearest landmarks by
// LLE's weights Z (N×L, rows summing to one; a point that is a landmark
// has its own coordinates). Ỹ solves the L×L generalized eigenproblem
// (Zᵀ·M·Z)·ỹ = λ·(Zᵀ·Z)·ỹ, found densely (by Zᵀ·Z's Cholesky factor);
// the constant vector (λ = 0) is dropped. The sparse eigenproblem of M,
// whose bottom eigenvalues on high-dimensional data lie too close for an
// iterative solver at 10⁶ points, is never solved: time
// O(N·K·(D + K²) + N·L·D + N·K²·LandmarkK² + L³), memory
// O(N·K·LandmarkK + L²) besides the rows.
//
// The neighbour graph need not be connected (LLE refuses a disconnected
// one, whose components M cannot place against each other): points of a
// small component are reconstructed from landmarks of the others, so its
// null vectors are not in the range of Z; the reduced problem's null space
// is counted and reported as LLE's is (Nullity).
//
// It is an approximation of LLE, not LLE: the embedding is LLE's only
// when every point is a landmark (L = N gives LLE's eigenvectors); on
// 20,000 deformed digits with 1000 landmarks its trustworthiness@10 is
// 0.809 against LLE's 0.830, its Procrustes disparity to LLE's embedding
// 0.19 (bench/RESULTS.md). The landmarks are rows of the data (by
// default a seeded uniform sample; see Choice), duplicates dropped.
// Coordinates are scaled as LLE's
// (eq. 70 of Gering 2002), and Transform maps a new point by the same
// formula as the training points: its weights from its LandmarkK nearest
// landmarks times Ỹ, so the model keeps the landmarks only.
type LandmarkLLE struct {
	Dim       int     // default 2
	K         int     `setting:"k"`         // neighbours of M's weights; default 10
	Reg       float64 `setting:"alpha"`     // regularisation of both weights; default 1e-3
	Landmarks int     `setting:"landmarks"` // L; default min(N, 1000)
	// LandmarkK is the number of landmarks each point is reconstructed
	// from; default Dim + 1 (a simplex of the embedding's dimension), at
	// most L. More make the embeddings Z·Ỹ kinked where LLE's M, which
	// penalises departures from local linearity, charges most: on a
	// 3000-point swiss roll (K = 12, 300 landmarks) Dim + 1 unrolls it,
	// 10 does not.
	LandmarkK int `setting:"landmark-k"`
	// Choice is how the landmarks are chosen: the zero value means
	// LandmarksRandom here (not MaxMin as for Landmark Isomap: the
	// reconstructions want landmarks where the points are, and MaxMin's
	// outliers put them elsewhere), or LandmarksKMeansPP, LandmarksKMeans
	// (closer to LLE at the cost of k-means), or LandmarksMaxMin. On 20,000
	// deformed digits with 1000 landmarks: trustworthiness@10 0.809
	// (random), 0.816 (k-means++), 0.825 (k-means), 0.785 (MaxMin) against
	// LLE's 0.830; fits of 1.8, 12.6, 34.8 and 2.4 s.
	Choice LandmarkChoice `setting:"landmark-choice"`
	Seed   uint64
	Options
}

// LandmarkLLEModel is a fitted LandmarkLLE.
type LandmarkLLEModel struct {
	base[landmarkLLEParams]
	landmarks []int          // rows of the training data
	rows      blas64.General // the landmarks' rows (L×D)
	coords    blas64.General // Ỹ: the landmarks' coordinates (L×Dim)
	eig       []float64      // the Dim generalized eigenvalues used, ascending
	exact     exactQueries   // the landmarks' searcher
}

// landmarkLLEParams are LandmarkLLE's parameters.
type landmarkLLEParams struct {
	K         int            `param:"k,min=1,report"`
	LandmarkK int            `param:"landmark_k,min=1"`
	Reg       float64        `param:"reg"`
	Landmarks int            `param:"landmarks,report"` // used: fewer than asked when points coincide
	Choice    LandmarkChoice `param:"choice,report"`
	nullSpace                // of the reduced problem
}

const methodLandmarkLLE = "landmark-lle"

func (s LandmarkLLE) resolved(n int) LandmarkLLE {
	s.Dim, s.K, s.Reg = cmp.Or(s.Dim, 2), cmp.Or(s.K, 10), cmp.Or(s.Reg, 1e-3)
	s.Landmarks = cmp.Or(s.Landmarks, min(n, 1000))
	s.LandmarkK = cmp.Or(s.LandmarkK, min(s.Dim+1, s.Landmarks))
	s.Choice = cmp.Or(s.Choice, LandmarksRandom)
	return s
}

// Fit embeds the rows of x.
func (s LandmarkLLE) Fit(ctx context.Context, x mat.Matrix) (*LandmarkLLEModel, error) {
	const method = methodLandmarkLLE
	return fitter[*LandmarkLLEModel]{method: method, opts: s.Options, input: denseRows,
		plan: func(in samples) (fitPlan, error) {
			n, _ := in.dims()
			s = s.resolved(n)
			if s.K < 1 || s.LandmarkK < 1 || s.Reg < 0 || math.IsNaN(s.Reg) || math.IsInf(s.Reg, 0) {
				return fitPlan{}, fmt.Errorf("%s: %w: k = %d, landmark k = %d, reg = %v", method, ErrBadSetting, s.K, s.LandmarkK, s.Reg)
			}
			if s.K >= n {
				return fitPlan{}, fmt.Errorf("%s: %w: k = %d neighbours need more than %d samples", method, ErrTooFewSamples, s.K, n)
			}
			if s.Landmarks < 2 || s.Landmarks > n || s.LandmarkK > s.Landmarks {
				return fitPlan{}, fmt.Errorf("%s: %w: %d landmarks, each point from %d of them, for %d samples (need 2 ≤ L ≤ N and landmark k ≤ L)",
					method, ErrBadSetting, s.Landmarks, s.LandmarkK, n)
			}
			if err := checkDim(method, s.Dim, s.Landmarks-1, "landmarks−1"); err != nil {
				return fitPlan{}, err
			}
			switch s.Choice {
			case LandmarksRandom, LandmarksKMeansPP, LandmarksKMeans, LandmarksMaxMin:
			default:
				return fitPlan{}, fmt.Errorf("%s: %w: landmark choice %q (want random, kmeans++, kmeans or maxmin)", method, ErrBadSetting, s.Choice)
			}
			return fitPlan{dim: s.Dim, bytes: s.bytes(in),
				what: fmt.Sprintf("landmark LLE with %d landmarks", s.Landmarks), cheaper: "fewer landmarks"}, nil
		},
		stages: func(r *run, in samples) (*LandmarkLLEModel, error) { return s.stages(r, in) }, // s as plan resolved it
	}.fit(ctx, x)
}

// bytes is the memory a fit of the resolved s to in holds at its peak:
// the rows; W and the lists it came from; (I − W)·Z; the neighbour
// graph; and what landmarkBytes counts.
func (s LandmarkLLE) bytes(in samples) int64 {
	n, d := in.dims()
	c := int64((s.K + 1) * s.LandmarkK)
	return 8*int64(n)*int64(d) + 32*int64(n)*int64(s.K) + 12*int64(n)*c + s.landmarkBytes(n, d) + graphBytes(s.Neighbors, in, s.K)
}

// landmarkBytes is what the landmarks of a fit to n rows of d features
// hold, whatever the matrix they reduce (LLE's M, LTSA's B): the
// landmarks' lists, Z as a CSR and as a sparse.Reduction's rows, the
// embedding, the landmarks' rows, four L×L matrices, and the max-min
// choice's bound.
func (s LandmarkLLE) landmarkBytes(n, d int) int64 {
	l, kz := int64(s.Landmarks), int64(s.LandmarkK)
	bytes := int64(n)*(44*kz+24+8*int64(s.Dim)) + 8*l*int64(d) + 4*8*l*l
	if s.Choice == LandmarksMaxMin {
		bytes += neighbors.MaxMinBytes(n, d, s.Landmarks)
	}
	return bytes
}

// stages fits the resolved s to the rows of in.
func (s LandmarkLLE) stages(r *run, in samples) (*LandmarkLLEModel, error) {
	const method = methodLandmarkLLE
	g := in.dense
	n, d := g.Rows, g.Cols
	var nb *neighbors.Result
	err := r.stage("neighbors", neighbors.Options{}.Flam(n, n, d, s.K), func(ctx context.Context, st *stageCtx) error {
		var err error
		nb, err = selfKNN(ctx, st, samples{dense: g}, s.K)
		return err
	})
	if err != nil {
		return nil, mapGraphErr(err)
	}
	var w *sparse.CSR
	err = r.stage("weights", float64(n)*(float64(s.K*s.K*d)+flam.Potrf(s.K)), func(ctx context.Context, _ *stageCtx) error {
		var err error
		w, err = barycentric.Weights(ctx, g, g, nb, s.Reg, n)
		return err
	})
	if err != nil {
		return nil, err
	}
	nb = nil
	m := &LandmarkLLEModel{base: newBase(method, landmarkLLEParams{K: s.K, LandmarkK: s.LandmarkK, Reg: s.Reg, Choice: s.Choice})}
	zc, am, bm, err := s.reduced(r, g, lleCoarse(w, s.K, s.LandmarkK), m)
	if err != nil {
		return nil, err
	}
	w = nil
	l := len(m.landmarks)
	err = r.stage("eigensolve", flam.Potrf(l)+flam.Gemm(l, l, l)+flam.Syevr(l, s.Dim+1), func(ctx context.Context, st *stageCtx) error {
		res, err := generalizedBottom(ctx, am, bm, s.Dim)
		if err != nil {
			return err
		}
		m.coords, m.eig = res.Vectors, res.Values
		m.p.nullSpace = nullSpaceOf(res, s.Dim)
		st.detail = fmt.Sprintf("dense syevr on the %d×%d reduced problem (Zᵀ·M·Z, Zᵀ·Z)", l, l) + nullNote(res, s.Dim)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Scale to eq. 70 of Gering 2002, as LLE: (1/(N−1))·YᵀY = I.
	scale := math.Sqrt(float64(n - 1))
	for i := range m.coords.Data {
		m.coords.Data[i] *= scale
	}
	err = r.stage("embed", 2*float64(n)*float64(s.LandmarkK*s.Dim), func(ctx context.Context, _ *stageCtx) error {
		m.embedding = dense.New(n, s.Dim)
		return zc.MulBlockCtx(ctx, m.embedding, m.coords) // as Transform does
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// coarseSpace forms the reduced matrix Zᵀ·M·Z of locally linear
// landmarks for an N×N matrix M that is not formed (LLE's, lleCoarse) or
// is (explicitCoarse).
type coarseSpace struct {
	// upper returns the upper triangle of Zᵀ·M·Z (L×L, dense; the formed
	// matrix's both triangles) from Z's reduction.
	upper func(ctx context.Context, z *sparse.Reduction) (blas64.General, error)
	flam  float64 // upper's cost
}

// lleCoarse is Zᵀ·M·Z for LLE's M = (I − W)ᵀ(I − W): the Gram matrix of
// (I − W)·Z, whose rows have at most (k + 1)·kz entries.
func lleCoarse(w *sparse.CSR, k, kz int) coarseSpace {
	n, _ := w.Dims()
	c := float64((k + 1) * kz)
	return coarseSpace{flam: float64(n) * c * c / 2, upper: func(ctx context.Context, z *sparse.Reduction) (blas64.General, error) {
		return z.LLE(ctx, w)
	}}
}

// explicitCoarse is Zᵀ·B·Z for a formed symmetric B (LTSA's alignment
// matrix), both triangles.
func explicitCoarse(b *sparse.CSR, kz int) coarseSpace {
	return coarseSpace{flam: float64(b.NNZ()) * float64(kz*kz), upper: func(ctx context.Context, z *sparse.Reduction) (blas64.General, error) {
		return z.Of(ctx, b)
	}}
}

// reduced runs the stages "landmarks" and "reduce" of locally linear
// landmarks on the rows g: it sets m's landmarks and their rows, and
// returns Z (N×L, each row the weights that rebuild the point from its
// LandmarkK nearest landmarks) and the upper triangles of Zᵀ·M·Z (by
// coarse) and Zᵀ·Z (L×L). The LOBPCG eigensolver (EigenLOBPCG) of LLE
// and LTSA uses the same reduced problem as its start and its coarse
// space.
func (s LandmarkLLE) reduced(r *run, g blas64.General, coarse coarseSpace, m *LandmarkLLEModel) (*sparse.CSR, blas64.General, blas64.General, error) {
	n, d := g.Rows, g.Cols
	var zc *sparse.CSR
	var z *sparse.Reduction
	var err error
	kz := s.LandmarkK
	err = r.stage("landmarks", landmarkFlam(s.Choice, samples{dense: g}, s.Landmarks)+flam.KNNBrute(n, s.Landmarks, d)+float64(n)*float64(kz*kz*d), func(ctx context.Context, st *stageCtx) error {
		idx, err := chooseLandmarks(ctx, samples{dense: g}, s.Landmarks, s.Choice, s.Seed)
		if err != nil {
			return err
		}
		m.landmarks = distinctRows(g, idx, len(idx))
		if len(m.landmarks) <= s.Dim || len(m.landmarks) < kz {
			return fmt.Errorf("%w: %d distinct landmarks among %d asked for (points coincide): too few for dim %d and landmark k %d",
				ErrTooFewSamples, len(m.landmarks), s.Landmarks, s.Dim, kz)
		}
		m.p.Landmarks = len(m.landmarks)
		m.rows = dense.New(len(m.landmarks), d)
		for a, i := range m.landmarks {
			copy(m.rows.Data[a*d:(a+1)*d], g.Data[i*g.Stride:i*g.Stride+d])
		}
		if zc, err = m.weights(ctx, g); err != nil {
			return err
		}
		z = sparse.NewReduction(zc)
		st.detail = fmt.Sprintf("%d landmarks (%s), each point from its %d nearest", len(m.landmarks), s.Choice, kz)
		return nil
	})
	if err != nil {
		return nil, blas64.General{}, blas64.General{}, err
	}
	var am, bm blas64.General
	err = r.stage("reduce", coarse.flam+float64(n)*float64(kz*kz)/2, func(ctx context.Context, _ *stageCtx) error {
		var err error
		if am, err = coarse.upper(ctx, z); err != nil {
			return err
		}
		bm, err = z.Gram(ctx)
		return err
	})
	if err != nil {
		return nil, blas64.General{}, blas64.General{}, err
	}
	return zc, am, bm, nil
}

// distinctRows returns those of the rows idx of g (nil: every row) that
// equal no earlier one (as values: −0 = 0), in idx's order, stopping at
// limit of them.
func distinctRows(g blas64.General, idx []int, limit int) []int {
	seen := make(map[string]bool)
	key := make([]byte, 8*g.Cols)
	var out []int
	for a := 0; len(out) < limit && (a < len(idx) || idx == nil && a < g.Rows); a++ {
		i := a
		if idx != nil {
			i = idx[a]
		}
		for t, v := range g.Data[i*g.Stride : i*g.Stride+g.Cols] {
			if v == 0 {
				v = 0 // −0 and 0 are the same point
			}
			binary.LittleEndian.PutUint64(key[8*t:], math.Float64bits(v))
		}
		if !seen[string(key)] {
			seen[string(key)] = true
			out = append(out, i)
		}
	}
	return out
}

// weights returns Z for the rows of q: LLE's reconstruction weights from
// each row's LandmarkK nearest landmarks (exact search), and weight 1 on
// the landmark a row equals (the nearest, at distance 0).
func (m *LandmarkLLEModel) weights(ctx context.Context, q blas64.General) (*sparse.CSR, error) {
	s, err := exactSearcher(ctx, &m.exact, m.rows)
	if err != nil {
		return nil, err
	}
	nb, err := s.KNN(ctx, toDense(q), m.p.LandmarkK)
	if err != nil {
		return nil, err
	}
	z, err := barycentric.Weights(ctx, m.rows, q, nb, m.p.Reg, m.rows.Rows)
	if err != nil {
		return nil, err
	}
	ptr, ind, val := z.RowPtr(), z.ColIdx(), z.Values()
	for i := 0; i < q.Rows; i++ {
		js, ds := nb.Row(i)
		if len(ds) == 0 || ds[0] != 0 {
			continue
		}
		for p := ptr[i]; p < ptr[i+1]; p++ {
			val[p] = 0
			if ind[p] == js[0] {
				val[p] = 1
			}
		}
	}
	return z, nil
}

// Eigenvalues returns the Dim generalized eigenvalues of the reduced
// problem belonging to the embedding (the constant's 0 dropped),
// ascending: yᵀ·M·y / yᵀ·y of the embedding's columns.
func (m *LandmarkLLEModel) Eigenvalues() []float64 { return append([]float64(nil), m.eig...) }

// Landmarks returns the landmarks' rows of the training data, ascending.
func (m *LandmarkLLEModel) Landmarks() []int { return append([]int(nil), m.landmarks...) }

// Nullity returns the dimension of the reduced problem's null space at the
// fit, the constant vector included (see LLE.Nullity).
func (m *LandmarkLLEModel) Nullity() int { return m.p.Nullity }

// Transform maps new points as the fit mapped the training points: their
// reconstruction weights from their LandmarkK nearest landmarks times the
// landmarks' coordinates; a new point equal to a landmark gets its
// coordinates. Transforming the training data reproduces the embedding.
func (m *LandmarkLLEModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	const what = methodLandmarkLLE + " transform"
	g, err := denseTransformInput(what, x, m.rows.Cols)
	if err != nil {
		return nil, err
	}
	if err := checkTransformRange(methodLandmarkLLE, samples{dense: g}, m.rows.Rows); err != nil {
		return nil, err
	}
	z, err := m.weights(ctx, g)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	y := dense.New(g.Rows, m.Dim())
	if err := z.MulBlockCtx(ctx, y, m.coords); err != nil {
		return nil, err
	}
	return transformResult(methodLandmarkLLE, y)
}

// Save writes the model (see Load for the format).
func (m *LandmarkLLEModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *LandmarkLLEModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	c.matrix("embedding", &m.embedding, -1, dim)
	n := m.embedding.Rows
	c.ints("landmarks", &m.landmarks, -1)
	l := len(m.landmarks)
	c.increasing("landmarks", m.landmarks, n)
	c.check(l > dim && m.p.LandmarkK <= l, "%d landmarks for dim %d and landmark k %d", l, dim, m.p.LandmarkK)
	c.matrix("landmark_rows", &m.rows, l, -1)
	c.matrix("landmark_coords", &m.coords, l, dim)
	c.vector("eigenvalues", &m.eig, dim)
}
