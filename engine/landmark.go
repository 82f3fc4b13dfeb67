package engine

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/cluster"
	"github.com/manifoldlab/manifold/engine/internal/geodesic"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// LandmarkChoice says how landmarks are chosen among the data points.
type LandmarkChoice string

const (
	// LandmarksMaxMin picks landmarks one at a time, each the point farthest
	// (Euclidean) from those chosen so far, from a random first one: the
	// MaxMin rule de Silva & Tenenbaum (2003) recommend. Landmark Isomap's
	// default (its zero Choice); Landmark LLE's is LandmarksRandom.
	LandmarksMaxMin LandmarkChoice = "maxmin"
	// LandmarksRandom picks them uniformly without replacement.
	LandmarksRandom LandmarkChoice = "random"
	// LandmarksKMeansPP picks them by greedy k-means++ seeding.
	LandmarksKMeansPP LandmarkChoice = "kmeans++"
	// LandmarksKMeans runs k-means (k-means++ start) and takes the data
	// point nearest each centroid (Mehrbani & Kahaei, Low-Rank Isomap §2, eq. 3; Manazhy &
	// Sankaran 2019): Dijkstra needs graph vertices as sources.
	LandmarksKMeans LandmarkChoice = "kmeans"
)

// LandmarkIsomap is Landmark Isomap (de Silva & Tenenbaum 2003;
// Mehrbani & Kahaei, Low-Rank Isomap §2): geodesics from L landmarks only (Dijkstra from
// each landmark, an L×N matrix instead of N×N), classical MDS of the L×L
// landmark geodesics, and landmark-MDS triangulation of every point from
// its squared geodesic distances to the landmarks:
// y = −½·L#·(δ − δ̄). Time O(L·(N + E)·log N + L³), memory O(L·N).
type LandmarkIsomap struct {
	Dim       int            // default 2
	K         int            `setting:"k"`               // neighbours; default 10
	Eps       float64        `setting:"eps"`             // > 0: ε-graph
	Landmarks int            `setting:"landmarks"`       // number of landmarks L; default min(N, 300)
	Choice    LandmarkChoice `setting:"landmark-choice"` // default (zero) LandmarksMaxMin
	Labels    []int          `setting:"labels"`          // supervised graph
	// Disconnected: the policy for a disconnected graph.
	Disconnected Disconnected `setting:"disconnected"`
	Seed         uint64
	Options
}

// LandmarkIsomapModel is a fitted Landmark Isomap.
type LandmarkIsomapModel struct {
	base[landmarkParams]
	train     blas64.General
	graph     *sparse.CSR
	kept      []int
	landmarks []int // rows of train
	tri       triangulation
	eig       []float64
	geo       *lazyGeo // the request path's index (transform_geodesic.go, engine/internal/geodesic)
	// near, when the fit's graph came from an approximate search, answers
	// Transform's neighbour queries from the graph's lists (graphLists).
	near *trainingLists
}

// landmarkParams are Landmark Isomap's parameters.
type landmarkParams struct {
	graphParams
	Landmarks int            `param:"landmarks,report"` // asked for (fewer when points coincide)
	Choice    LandmarkChoice `param:"choice,report"`
}

const methodLandmarkIsomap = "landmark-isomap"

func (s LandmarkIsomap) resolved(n int) LandmarkIsomap {
	s.Dim, s.K, s.Landmarks = cmp.Or(s.Dim, 2), defaultK(s.K, s.Eps, s.Labels), cmp.Or(s.Landmarks, min(n, 300))
	s.Choice = cmp.Or(s.Choice, LandmarksMaxMin)
	return s
}

func (s LandmarkIsomap) spec() graphSpec {
	return graphSpec{k: s.K, eps: s.Eps, labels: s.Labels, policy: s.Disconnected}
}

// Fit embeds the rows of x.
func (s LandmarkIsomap) Fit(ctx context.Context, x mat.Matrix) (*LandmarkIsomapModel, error) {
	const method = methodLandmarkIsomap
	return fitter[*LandmarkIsomapModel]{method: method, opts: s.Options, input: sparseRows,
		plan: func(in samples) (fitPlan, error) {
			n, d := in.dims()
			s = s.resolved(n)
			if err := s.spec().validate(method, n); err != nil {
				return fitPlan{}, err
			}
			if s.Landmarks < 2 || s.Landmarks > n {
				return fitPlan{}, fmt.Errorf("%s: %w: %d landmarks for %d samples (need 2 ≤ L ≤ N)", method, ErrBadSetting, s.Landmarks, n)
			}
			if err := checkDim(method, s.Dim, s.Landmarks-1, "landmarks−1"); err != nil {
				return fitPlan{}, err
			}
			switch s.Choice {
			case LandmarksMaxMin, LandmarksRandom, LandmarksKMeansPP, LandmarksKMeans:
			default:
				return fitPlan{}, fmt.Errorf("%s: %w: landmark choice %q (want maxmin, random, kmeans++ or kmeans)", method, ErrBadSetting, s.Choice)
			}
			bytes := 4*int64(s.Landmarks)*int64(n) + 8*int64(n)*int64(d+3*max(s.K, 10)) + graphBytes(s.Neighbors, in, s.K)
			if s.Choice == LandmarksMaxMin && !in.isSparse() { // sparse rows: no bound (neighbors.MaxMin)
				bytes += neighbors.MaxMinBytes(n, d, s.Landmarks)
			}
			return fitPlan{dim: s.Dim, bytes: bytes,
				what: fmt.Sprintf("landmark Isomap with %d landmarks", s.Landmarks), cheaper: "fewer landmarks"}, nil
		},
		stages: func(r *run, in samples) (*LandmarkIsomapModel, error) { return s.stages(r, in) },
	}.fit(ctx, x)
}

// stages fits the landmark Isomap of the rows of in with the resolved
// settings s. Sparse rows (text) are searched as they are, as Isomap
// does; the training rows the model keeps, which the landmarks are chosen
// from, are written out dense.
func (s LandmarkIsomap) stages(r *run, in samples) (*LandmarkIsomapModel, error) {
	const method = methodLandmarkIsomap
	fixed, err := neighbourGraphOf(r, in, s.spec())
	if err != nil {
		return nil, err
	}
	p := landmarkParams{graphParams: s.spec().params(), Landmarks: s.Landmarks, Choice: s.Choice}
	p.Dropped = len(fixed.Dropped)
	m := &LandmarkIsomapModel{base: newBase(method, p), graph: fixed.Graph, kept: fixed.Kept}
	if m.train, err = trainSamples(r.ctx, in, keptRows(fixed)); err != nil {
		return nil, err
	}
	nk := m.train.Rows
	nl := min(s.Landmarks, nk)
	if s.Dim > nl-1 {
		return nil, fmt.Errorf("%s: %w: dim = %d but only %d landmarks remain", method, ErrDimension, s.Dim, nl)
	}
	// The max-min choice reads sparse rows as they are (the same choices,
	// a row's entries read instead of its D values); the others read the
	// dense training rows.
	rows := samples{dense: m.train}
	if in.isSparse() && s.Choice == LandmarksMaxMin {
		rows.csr = in.subset(keptRows(fixed)).csr
	}
	err = r.stage("landmarks", landmarkFlam(s.Choice, rows, nl), func(ctx context.Context, st *stageCtx) error {
		var err error
		m.landmarks, err = chooseLandmarks(ctx, rows, nl, s.Choice, s.Seed)
		st.detail = fmt.Sprintf("%d landmarks, %s", len(m.landmarks), s.Choice)
		return err
	})
	if err != nil {
		return nil, err
	}
	nl = len(m.landmarks)
	if s.Dim > nl-1 { // fewer distinct landmarks than asked (duplicate points)
		return nil, fmt.Errorf("%s: %w: dim = %d but the data have only %d distinct landmarks", method, ErrDimension, s.Dim, nl)
	}
	// Squared geodesics landmark → point, in float32: half the memory of
	// the L×N matrix, the one large allocation of the method.
	delta := make([]float32, nl*nk)
	pathGraph, e, err := float32Scaled(fixed.Graph)
	if err != nil {
		return nil, err
	}
	err = r.stage("geodesics", flam.AllPairsDijkstra(nl, nk, fixed.Graph.NNZ()), func(ctx context.Context, st *stageCtx) error {
		st.detail = fmt.Sprintf("shortest paths (distance buckets) from %d landmarks, float32", nl)
		if e != 0 {
			st.detail += fmt.Sprintf(", lengths scaled by 2^%d", -e)
		}
		var done atomic.Int64 // landmarks finished: the progress
		return st.watch(&done, int64(nl), func() error {
			return sparse.MultiSourceShortestPaths32(ctx, pathGraph, m.landmarks, delta, nk, sparse.PathOptions{Squared: true, Done: &done})
		})
	})
	if err != nil {
		return nil, err
	}
	// Classical MDS of the landmarks' own squared geodesics.
	sub := dense.New(nl, nl)
	for a := 0; a < nl; a++ {
		for b, j := range m.landmarks {
			sub.Data[a*nl+b] = 0.5 * (float64(delta[a*nk+j]) + float64(delta[b*nk+m.landmarks[a]]))
		}
	}
	vals, vecs, means, err := centreAndEig(r, sub, s.Dim, EigenAuto, s.Seed)
	if err != nil {
		return nil, err
	}
	_, m.tri, err = embedFromEig(method, vals, vecs, means)
	if err != nil {
		return nil, err
	}
	m.eig = vals
	err = r.stage("triangulation", flam.Gemm(nk, s.Dim, nl), func(ctx context.Context, st *stageCtx) error {
		// y_i = −½·Σ_a L#[a]·(Δ[a, i] − δ̄_a) for all points, the landmarks'
		// rows of Δ read contiguously, in parallel over chunks of points.
		dim := s.Dim
		m.embedding = dense.New(nk, dim)
		pinv, mu := m.tri.pinv, m.tri.meanSq
		return backend.ParallelForCtx(ctx, nk, 4096, func(lo, hi int) {
			y := m.embedding.Data[lo*dim : hi*dim]
			for a := 0; a < nl; a++ {
				row := delta[a*nk+lo : a*nk+hi]
				p := pinv.Data[a*pinv.Stride : a*pinv.Stride+dim]
				for i, v := range row {
					c := -0.5 * (float64(v) - mu[a])
					yi := y[i*dim : (i+1)*dim]
					for t, pv := range p {
						yi[t] += c * pv
					}
				}
			}
		})
	})
	if err != nil {
		return nil, err
	}
	if e != 0 {
		// Undo the scale of the lengths (exact: a power of two): the
		// embedding and Δ's means and eigenvalues were made from the
		// scaled Δ.
		scaleGeneral(m.embedding, e)
		scaleGeneral(m.tri.pinv, -e)
		for i := range m.tri.meanSq {
			m.tri.meanSq[i] = math.Ldexp(m.tri.meanSq[i], 2*e)
		}
		for i := range m.eig {
			m.eig[i] = math.Ldexp(m.eig[i], 2*e)
		}
	}
	m.near = graphLists(r.rep, m.p.Eps, m.graph, r.opts.Neighbors.Width)
	m.prepareGeo()
	return m, nil
}

// scaleGeneral multiplies every element of a by 2^e.
func scaleGeneral(a blas64.General, e int) {
	for i := 0; i < a.Rows; i++ {
		row := a.Data[i*a.Stride : i*a.Stride+a.Cols]
		for j := range row {
			row[j] = math.Ldexp(row[j], e)
		}
	}
}

func (m *LandmarkIsomapModel) prepareGeo() {
	m.geo = newLazyGeo(func(ctx context.Context) (*geodesic.Index, error) {
		return newGeoIndex(ctx, methodLandmarkIsomap, m.train, m.graph, m.p.K, m.p.Eps, m.landmarks, true, 0, m.near, m.tri)
	})
}

func (m *LandmarkIsomapModel) prepare(ctx context.Context) error { return m.geo.prepare(ctx) }

func (m *LandmarkIsomapModel) transformRow(ctx context.Context, dst, x []float64) error {
	return m.geo.transformRow(ctx, methodLandmarkIsomap, dst, x)
}

// landmarkFlam predicts the choice of l landmarks among rows: l passes
// over the rows for max-min (sparse rows: about 2·nnz a pass, the merge of
// each row's entries with the landmark's), 20 Lloyd iterations for k-means.
func landmarkFlam(choice LandmarkChoice, rows samples, l int) float64 {
	n, d := rows.dense.Rows, rows.dense.Cols
	switch choice {
	case LandmarksRandom:
		return float64(l)
	case LandmarksKMeans:
		return 20 * flam.KNNBrute(n, l, d) // ~20 Lloyd iterations
	case LandmarksKMeansPP:
		return flam.KNNBrute(n, l, d)
	}
	if rows.isSparse() {
		return 2 * float64(l) * float64(rows.nnz())
	}
	return flam.KNNBrute(n, l, d)
}

// chooseLandmarks returns l distinct row indices of x, sorted.
func chooseLandmarks(ctx context.Context, rows samples, l int, choice LandmarkChoice, seed uint64) ([]int, error) {
	n := rows.rows()
	x := rows.dense // the choices but max-min read the dense rows, which rows always holds
	rng := rand.New(rand.NewPCG(seed, 0x6c616e646d61726b))
	var idx []int
	switch choice {
	case LandmarksRandom:
		idx = rng.Perm(n)[:l]
	case LandmarksKMeansPP:
		var err error
		if idx, err = cluster.PlusPlusIndices(ctx, x, nil, l, rng); err != nil {
			return nil, err
		}
	case LandmarksKMeans:
		res, err := cluster.KMeans{K: l, Seed: seed}.Fit(ctx, x)
		if err != nil {
			return nil, err
		}
		// The member of each cluster nearest its centroid.
		best := make([]float64, l)
		idx = make([]int, l)
		for c := range best {
			best[c], idx[c] = math.Inf(1), -1
		}
		d := x.Cols
		for i, c := range res.Labels {
			ctr := res.Centers.Data[c*res.Centers.Stride : c*res.Centers.Stride+d]
			s := 0.0
			for j, v := range x.Data[i*x.Stride : i*x.Stride+d] {
				t := v - ctr[j]
				s += t * t
			}
			if s < best[c] {
				best[c], idx[c] = s, i
			}
		}
		out := idx[:0]
		for _, i := range idx {
			if i >= 0 {
				out = append(out, i)
			}
		}
		idx = out
	default: // MaxMin
		var err error
		if idx, err = neighbors.MaxMin(ctx, rows.dense, rows.csr, l, rng.IntN(n)); err != nil {
			return nil, err
		}
	}
	sort.Ints(idx)
	// Distinct (k-means centroids may share a nearest point).
	out := idx[:0]
	for i, v := range idx {
		if i == 0 || v != idx[i-1] {
			out = append(out, v)
		}
	}
	return out, nil
}

// Landmarks returns the landmarks' indices among the kept training points.
func (m *LandmarkIsomapModel) Landmarks() []int { return append([]int(nil), m.landmarks...) }

// Eigenvalues returns the Dim eigenvalues of the landmarks' τ(D_G).
func (m *LandmarkIsomapModel) Eigenvalues() []float64 { return append([]float64(nil), m.eig...) }

// Kept returns the indices of the training points in the embedding.
func (m *LandmarkIsomapModel) Kept() []int { return append([]int(nil), m.kept...) }

// Transform maps new points by their geodesics to the landmarks (through
// their nearest training points) and triangulation.
func (m *LandmarkIsomapModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	return transformRows(ctx, m, x, m.train.Cols)
}

// Save writes the model (see Load for the format).
func (m *LandmarkIsomapModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *LandmarkIsomapModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	c.ints("landmarks", &m.landmarks, -1)
	c.triangulated(&m.embedding, &m.tri, &m.eig, dim, len(m.landmarks))
	n := m.embedding.Rows
	if c.loaded() {
		for _, l := range m.landmarks {
			c.check(l >= 0 && l < n, "landmark %d out of range", l)
		}
	}
	c.matrix("train", &m.train, n, -1)
	c.graph(&m.graph, n)
	c.kept(&m.kept, n)
	if c.loaded() {
		m.near = graphLists(&m.report, m.p.Eps, m.graph, searchWidth(&m.report))
	}
	c.widenedLists(&m.near, n)
	c.indexTree(m.near, m.train)
	if c.loaded() {
		m.prepareGeo()
	}
}

// nearLists gives the training lists of an approximate fit (nearLister).
func (m *LandmarkIsomapModel) nearLists() (*trainingLists, blas64.General) { return m.near, m.train }
