package engine

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/bottom"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// LaplacianEigenmaps is the method of Belkin & Niyogi ("Laplacian
// eigenmaps and spectral techniques for embedding and clustering", NIPS
// 2001): a neighbour graph (kNN by the OR rule, ε, or supervised) with
// weights W (heat kernel by default, GraphWeight), D = diag(Σ_j W_ij),
// L = D − W, and the generalized eigenproblem L·y = λ·D·y; the
// embedding is the eigenvectors of the Dim smallest λ after the constant
// one (λ = 0), normalised by yᵀDy = 1.
//
// It is solved as the normalized problem (the "normalized-Laplacian trick",
// as scikit-learn's SpectralEmbedding does): with
// L_sym = I − D^{-1/2}·W·D^{-1/2}, L_sym·v = λ·v and y = D^{-1/2}·v, so
// the wanted vectors are the Dim smallest eigenvectors of the sparse
// positive semidefinite L_sym after its null vector D^{1/2}·1 (always
// projected out). L_sym is eigendecomposed densely (index range, 2/3·N³
// flam) for N ≤ 500, otherwise by shift-invert block Lanczos on a sparse
// LDLᵀ factor of L_sym + ε·I with an inertia certificate (see LTSA and
// package bottom): no eigenvalue below the last one returned is missed,
// or the fit returns ErrNumerical. When that factor would not fit
// Options.MaxBytes or would cost more than 2e12 flam — the neighbour
// graphs of high-dimensional data fill in like expanders (2·10⁹ entries
// for 200,000 deformed digits) — the fit cannot certify and returns
// ErrNumerical saying so; with Eigensolver EigenUncertified it runs
// Lanczos on L_sym itself instead, whose bottom eigenvalues are then well
// separated, without factor or certificate, and the stage detail says
// "not certified".
//
// With the same graph it equals scikit-learn's SpectralEmbedding
// (norm_laplacian, drop_first, the D^{-1/2} rescaling, the sign flip that
// makes each vector's largest-magnitude entry positive): its
// affinity='nearest_neighbors' with n_neighbors = K + 1 (scikit-learn
// counts the point itself) is WeightConnectivity here. A disconnected graph
// has one zero eigenvalue per component; the Disconnected policy applies
// (default: an error naming the components).
//
// New points are placed by the Nyström formula for Laplacian eigenmaps
// (Bengio, Paiement, Vincent, Delalleau, Le Roux & Ouimet, "Out-of-sample
// extensions for LLE, Isomap, MDS, Eigenmaps, and Spectral Clustering",
// NIPS 2003: the Nyström formula with the normalized kernel
// K̃(x, x_j) = w(x, x_j)/√(d(x)·d_j)): y_k(x) = Σ_j w(x, x_j)·y_jk /
// ((1 − λ_k)·Σ_j w(x, x_j)), the weights w(x, x_j) those of the graph
// (heat kernel with the same t, 1, or the cosine) over the K nearest
// training points (those within Eps for an ε-graph). For a training point
// with the weights of its own graph row this is its eigenvector equation,
// so it reproduces the training embedding; a new point equal to a training
// point gets that point's embedding.
type LaplacianEigenmaps struct {
	Dim int // output dimension; default 2
	// K neighbours per point (default 10), or, with Labels, within the
	// class (0: every point of the class).
	K int `setting:"k"`
	// Eps > 0 uses the ε-graph instead of kNN.
	Eps float64 `setting:"eps"`
	// Labels make a supervised graph (neighbours within the class).
	Labels []int `setting:"labels"`
	// Weight of the edges; default WeightHeat.
	Weight GraphWeight `setting:"weight"`
	// T is the heat kernel's t; 0 means the mean of d² over the edges.
	T            float64
	Disconnected Disconnected `setting:"disconnected"` // default DisconnectedError
	// Eigensolver: default dense for N ≤ 500, the certified Lanczos above;
	// EigenUncertified for graphs whose factor cannot be afforded.
	Eigensolver Eigensolver `setting:"eigensolver"`
	Seed        uint64      // Lanczos start vector
	Options
}

// LaplacianModel is a fitted Laplacian eigenmap.
type LaplacianModel struct {
	base[laplacianParams]
	train   samples // training rows kept in the graph
	kept    []int
	dropped []int
	eig     []float64 // the Dim generalized eigenvalues λ of L·y = λ·D·y, ascending
	// near, when the fit's k-nearest neighbours were approximate, answers
	// Transform's neighbour queries from the graph's lists (see
	// trainingLists); nil: exact.
	near *trainingLists
	// exact answers the exact queries (near == nil).
	exact exactQueries
}

// laplacianParams are Laplacian eigenmaps' parameters.
type laplacianParams struct {
	graphParams
	Weight      string      `param:"weight"`      // GraphWeight.String
	T           float64     `param:"t,omitempty"` // the heat kernel's t (0: other weights)
	Eigensolver Eigensolver `param:"eigensolver,report"`
	Input       string      `param:"input,report"` // "dense" or "sparse"
	nullSpace               // of the normalized Laplacian
}

const methodLaplacian = "laplacian"

func (s LaplacianEigenmaps) resolved() LaplacianEigenmaps {
	s.Dim, s.K = cmp.Or(s.Dim, 2), defaultK(s.K, s.Eps, s.Labels)
	return s
}

func (s LaplacianEigenmaps) spec() graphSpec {
	return graphSpec{k: s.K, eps: s.Eps, labels: s.Labels, policy: s.Disconnected}
}

// Fit embeds the rows of x (dense, or a *sparse.CSR).
func (s LaplacianEigenmaps) Fit(ctx context.Context, x mat.Matrix) (*LaplacianModel, error) {
	const method = methodLaplacian
	s = s.resolved()
	var solver Eigensolver
	return fitter[*LaplacianModel]{method: method, opts: s.Options, input: sparseRows,
		plan: func(in samples) (fitPlan, error) {
			n, _ := in.dims()
			if err := s.spec().validate(method, n); err != nil {
				return fitPlan{}, err
			}
			if err := s.Weight.check(method); err != nil {
				return fitPlan{}, err
			}
			if s.T < 0 || math.IsNaN(s.T) || math.IsInf(s.T, 0) {
				return fitPlan{}, fmt.Errorf("%s: %w: heat kernel t = %v", method, ErrBadSetting, s.T)
			}
			if err := checkDim(method, s.Dim, n-2, "samples−2"); err != nil {
				return fitPlan{}, err
			}
			var err error
			solver, err = chooseEigensolver(method, s.Eigensolver, eigenproblem{n: n, dim: s.Dim, sparse: true})
			if err != nil {
				return fitPlan{}, err
			}
			est := int64(8)*int64(in.nnz()+n*(4*s.K+2*s.Dim+40)) + graphBytes(s.Neighbors, in, s.K)
			if solver == EigenDense {
				est += 8 * int64(n) * int64(n)
			}
			return fitPlan{dim: s.Dim, bytes: est, what: "Laplacian eigenmaps", cheaper: sparseBottomCheaper(solver)}, nil
		},
		stages: func(r *run, in samples) (*LaplacianModel, error) {
			fixed, err := inputGraph(r, in, s.spec(), false)
			if err != nil {
				return nil, err
			}
			// The ordering of the eigensolve's factor needs only the
			// graph's pattern: it runs beside the weights.
			var early *bottom.Analysis
			if solver == EigenLanczos && !noEarlyAnalysis {
				early = startAnalysis(r, fixed.Graph)
				defer early.Stop()
			}
			p := laplacianParams{graphParams: s.spec().params(), Weight: s.Weight.String(), Eigensolver: solver, Input: in.kind()}
			p.Dropped = len(fixed.Dropped)
			m := &LaplacianModel{base: newBase(method, p), kept: fixed.Kept, dropped: fixed.Dropped}
			if len(fixed.Dropped) > 0 {
				m.train = in.subset(fixed.Kept)
			} else if m.train, err = copyInput(r.ctx, in); err != nil {
				return nil, err
			}
			if s.K > 0 && s.Eps == 0 && approxSearched(r.rep) { // (kept only then: no copy otherwise)
				g := fixed.Graph
				lists := &neighbors.Result{Ptr: slices.Clone(g.RowPtr()), Ind: slices.Clone(g.ColIdx()), Dist: slices.Clone(g.Values())}
				m.near = keepLists(r, m.train, lists)
			}
			nk := len(fixed.Kept)
			if s.Dim > nk-2 {
				return nil, fmt.Errorf("%s: %w: dim = %d but the graph keeps %d points", method, ErrDimension, s.Dim, nk)
			}
			// The bottom of the normalized Laplacian I − D^-½·W·D^-½, whose
			// null vector is D^{1/2}·1.
			var lsym *sparse.CSR
			var invSqrtD []float64
			err = r.stage("laplacian", float64(3*fixed.Graph.NNZ()), func(ctx context.Context, st *stageCtx) error {
				var w *sparse.CSR
				w, m.p.T = weighGraph(st, fixed.Graph, m.train, s.Weight, s.T, s.spec())
				lsym, invSqrtD = sparse.NormalizedLaplacian(w)
				for i, v := range invSqrtD {
					if v == 0 {
						return fmt.Errorf("%w: point %d has no edge of positive weight (its degree is 0)", ErrNumerical, fixed.Kept[i])
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			u := make([]float64, nk)
			un := 0.0
			for i, v := range invSqrtD {
				u[i] = 1 / v
				un += u[i] * u[i]
			}
			for i := range u {
				u[i] /= math.Sqrt(un)
			}
			eig, err := bottomSparse(r, lsym, u, s.Dim, solver, s.Seed, early, "normalized Laplacian I − D^-1/2·W·D^-1/2")
			if err != nil {
				return nil, err
			}
			m.p.nullSpace = nullSpaceOf(eig, s.Dim)
			// y = D^{-1/2}·v.
			m.embedding = eig.Vectors
			for i := 0; i < nk; i++ {
				for j := 0; j < s.Dim; j++ {
					m.embedding.Data[i*s.Dim+j] *= invSqrtD[i]
				}
			}
			backend.FixSigns(m.embedding)
			m.eig = eig.Values
			return m, nil
		},
	}.fit(ctx, x)
}

// copyInput returns a copy of the rows (a CSR is immutable and shared),
// or ctx's error (trainRows).
func copyInput(ctx context.Context, in samples) (samples, error) {
	if in.csr != nil {
		return in, nil
	}
	g, err := trainRows(ctx, in.dense, nil)
	return samples{dense: g}, err
}

// Eigenvalues returns the Dim generalized eigenvalues λ of L·y = λ·D·y of
// the embedding (the trivial 0 dropped), ascending.
func (m *LaplacianModel) Eigenvalues() []float64 { return append([]float64(nil), m.eig...) }

// Kept returns the indices of the training points in the embedding.
func (m *LaplacianModel) Kept() []int { return append([]int(nil), m.kept...) }

// Nullity returns the dimension of the Laplacian's null space at the fit
// (one per connected component of the graph the embedding used): above 1
// the embedding is not unique. 0 for a loaded model whose report does not
// say.
func (m *LaplacianModel) Nullity() int { return m.p.Nullity }

// Dropped returns the training points left out by DisconnectedLargest.
func (m *LaplacianModel) Dropped() []int { return append([]int(nil), m.dropped...) }

// Transform maps new points by the Nyström formula (see LaplacianEigenmaps).
// When the fit's k nearest neighbours were approximate (NN-descent) on
// dense rows, so are the new points': a best-first search of the graph's
// neighbour lists, which the model (and its file) keeps.
func (m *LaplacianModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	const what = "laplacian transform"
	k, eps, weight := m.p.K, m.p.Eps, weightNamed(m.p.Weight)
	if k == 0 && eps == 0 {
		k = 10 // supervised, whole class: new points have no class
	}
	q, nb, err := transformNeighbours(ctx, methodLaplacian, x, m.train, m.near, &m.exact, k, eps)
	if err != nil {
		return nil, err
	}
	nq, _ := q.dims()
	dim := m.Dim()
	for t, lam := range m.eig {
		// The Nyström formula divides by μ = 1 − λ: at μ = 0 (to rounding)
		// it has no value.
		if math.Abs(1-lam) <= 1e-12 {
			return nil, fmt.Errorf("%s: %w: coordinate %d has eigenvalue λ = %.17g, so the Nyström formula divides by 1 − λ = 0", what, ErrNoTransform, t, lam)
		}
	}
	y := dense.New(nq, dim)
	var norms []float64
	if weight == WeightCosine {
		ntr, _ := m.train.dims()
		norms = make([]float64, ntr)
		for j := range norms {
			norms[j] = math.Sqrt(m.train.dot(j, j))
		}
	}
	err = backend.ParallelForCtx(ctx, nq, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			js, ds := nb.Row(i)
			row := y.Data[i*dim : (i+1)*dim]
			if exactMatch(row, js, ds, m.embedding) {
				continue
			}
			var qn float64
			if norms != nil {
				qn = math.Sqrt(q.dot(i, i))
			}
			sw := 0.0
			for c, j := range js {
				var w float64
				switch weight {
				case WeightHeat:
					w = math.Exp(-ds[c] * ds[c] / m.p.T)
				case WeightCosine:
					if qn > 0 && norms[j] > 0 {
						w = crossDot(m.train, q, j, i) / (qn * norms[j])
					}
				default:
					w = 1
				}
				sw += w
				e := m.embedding.Data[j*dim : (j+1)*dim]
				for t := range row {
					row[t] += w * e[t]
				}
			}
			for t := range row {
				if sw > 0 {
					row[t] /= sw * (1 - m.eig[t])
				} else {
					row[t] = math.NaN()
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for i := 0; i < nq; i++ {
		if v := y.Data[i*dim]; math.IsNaN(v) {
			return nil, fmt.Errorf("%s: %w: new point %d has no neighbour of positive weight", what, ErrNoTransform, i)
		}
	}
	return transformResult(methodLaplacian, y)
}

// exactMatch handles a new point at distance 0 from training points (the
// neighbour lists are sorted by distance): it writes their embedding (the
// mean over duplicates) into row and reports true.
func exactMatch(row []float64, js []int, ds []float64, emb blas64.General) bool {
	cnt := 0
	for c, j := range js {
		if ds[c] != 0 {
			break
		}
		if cnt == 0 {
			clear(row)
		}
		e := emb.Data[j*emb.Stride : j*emb.Stride+len(row)]
		for t := range row {
			row[t] += e[t]
		}
		cnt++
	}
	for t := 0; cnt > 1 && t < len(row); t++ {
		row[t] /= float64(cnt)
	}
	return cnt > 0
}

// convertInput returns the rows in the other storage.
func convertInput(in samples, toSparse bool) samples {
	if toSparse && in.csr == nil {
		return samples{csr: sparse.FromDense(toDense(in.dense))}
	}
	if !toSparse && in.csr != nil {
		return samples{dense: in.csr.ToDense().RawMatrix()}
	}
	return in
}

// Save writes the model (see Load for the format).
func (m *LaplacianModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *LaplacianModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	if w := weightNamed(m.p.Weight); c.loaded() {
		if err := w.check("model"); err != nil {
			c.failf("%v", err)
		}
		m.p.Weight = w.String()
	}
	c.check(weightNamed(m.p.Weight) != WeightHeat || m.p.T > 0, "heat kernel t = %v", m.p.T)
	c.matrix("embedding", &m.embedding, -1, dim)
	n := m.embedding.Rows
	c.vector("eigenvalues", &m.eig, dim)
	c.input("train", &m.train, n)
	c.keptDropped(&m.kept, &m.dropped, n)
	if !m.train.isSparse() {
		c.lists(&m.near, m.train.dense, n)
	}
}

// nearLists gives the training lists of an approximate fit (nearLister).
func (m *LaplacianModel) nearLists() (*trainingLists, blas64.General) { return m.near, m.train.dense }
