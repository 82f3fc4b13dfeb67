package engine

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/internal/geodesic"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/lanczos"
	"github.com/manifoldlab/manifold/sparse"
)

// Eigensolver chooses how the top eigenpairs of a dense N×N matrix are
// found.
type Eigensolver string

const (
	// EigenAuto picks by predicted cost: the dense index-range solver for
	// small N or many dimensions, Lanczos otherwise.
	EigenAuto Eigensolver = ""
	// EigenDense is the dense solver by index range (backend Syevr):
	// a tridiagonal reduction, 2/3·N³ flam.
	EigenDense Eigensolver = "dense"
	// EigenLanczos is thick-restart block Lanczos on the matrix as an
	// operator: a few dozen products with it, O(N²) each.
	EigenLanczos Eigensolver = "lanczos"
	// EigenUncertified is, for the bottom eigenvectors of LLE, LTSA and
	// Laplacian eigenmaps only, Lanczos on the matrix itself: no LDLᵀ
	// factor and no inertia certificate. It is for the neighbour graphs of
	// high-dimensional data, whose factors fill in beyond what can be
	// afforded, where the default returns ErrNumerical. Residuals are
	// checked (≤ 1e-9·‖B‖); that no eigenvalue below the last one returned
	// was missed is not, and the stage detail says "not certified". It
	// converges where the bottom of the spectrum is well separated (the
	// normalized Laplacian of such graphs), not on LLE's or LTSA's matrix
	// of a low-dimensional manifold, whose bottom eigenvalues lie about
	// 1e-13·‖B‖ apart (the fit then returns Lanczos's error).
	EigenUncertified Eigensolver = "uncertified"
	// EigenLOBPCG is, for LLE and LTSA on dense rows only, LOBPCG on M
	// (LTSA: B) started from and preconditioned by locally linear
	// landmarks (lobpcg.go): no factor, no certificate, residuals
	// ≤ 1e-9·‖M‖. It converges where EigenUncertified does not — M of 10⁵
	// deformed digits, whose bottom eigenvalues lie 2.5e-7·‖M‖ apart — in
	// some hundreds of iterations.
	EigenLOBPCG Eigensolver = "lobpcg"
)

// Isomap is the isometric feature mapping of Tenenbaum, de Silva &
// Langford (2000; Gering 2002 §5):
// a neighbour graph (kNN by the OR rule, ε, or supervised), geodesic
// distances D_G as shortest paths in it, and classical MDS of D_G: the top
// Dim eigenpairs of τ(D_G) = −½·H·S·H, S = D_G² (Cai, He & Han, AAAI 2007
// eq. 3), coordinates √λ·v. On the same inputs it equals scikit-learn's
// Isomap (same graph rule, shortest paths, kernel centring and sign
// convention).
//
// Memory: one N×N matrix (float64, or float32 with Float32, plus a ring
// of at most max(N/32, 256) + 4·GOMAXPROCS float64 rows the searches
// start from) — the squared geodesics are written into it by the parallel
// shortest paths and double centred in place — and O(N·(k + Dim)) else.
// New points are mapped as scikit-learn does (geodesics through their k
// nearest training points, then the kernel-PCA projection, which is the
// landmark-MDS triangulation), with one Dijkstra per new point on the
// stored graph instead of keeping the N×N geodesic matrix.
type Isomap struct {
	Dim int // output dimension; default 2
	// K neighbours per point (default 10), or, with Labels, within the
	// class (0: every point of the class).
	K int `setting:"k"`
	// Eps > 0 uses the ε-graph instead of kNN.
	Eps float64 `setting:"eps"`
	// Labels make the supervised graph of Cai, He & Han, AAAI 2007 Table 2.
	Labels []int `setting:"labels"`
	// Between sets the geodesic between classes of a supervised fit
	// (default SupervisedConstant, see there).
	Between      SupervisedGeodesic `setting:"supervised-geodesic"`
	Disconnected Disconnected       `setting:"disconnected"` // default DisconnectedError
	// Float32 stores the geodesics in float32: half the memory, for large N.
	// The eigensolver is then Lanczos on the float32 matrix (products
	// accumulated in float64).
	Float32     bool        `setting:"float32"`
	Eigensolver Eigensolver `setting:"eigensolver"`
	Seed        uint64      // Lanczos start vector
	Options
}

// IsomapModel is a fitted Isomap.
type IsomapModel struct {
	base[isomapParams]
	train   blas64.General // training points kept in the graph
	graph   *sparse.CSR    // the connected neighbour graph on them
	kept    []int          // original indices of the rows of train
	dropped []int
	tri     triangulation
	eig     []float64
	geo     *lazyGeo // the request path's index (transform_geodesic.go, engine/internal/geodesic)
	// near, when the fit's graph came from an approximate search, answers
	// Transform's neighbour queries from the graph's lists (graphLists).
	near *trainingLists
}

// isomapParams are Isomap's parameters.
type isomapParams struct {
	graphParams
	Float32     bool        `param:"float32"` // geodesics stored in float32 (absent in older files: float64)
	Eigensolver Eigensolver `param:"eigensolver,report"`
	// Between is the geodesic between points of different classes
	// (SupervisedConstant), 0 when the graph joins every pair (absent in
	// older files: classes joined).
	Between float64 `param:"between_geodesic,file,optional"`
}

const methodIsomap = "isomap"

func (s Isomap) resolved() Isomap {
	s.Dim, s.K = cmp.Or(s.Dim, 2), defaultK(s.K, s.Eps, s.Labels)
	return s
}

func (s Isomap) spec() graphSpec {
	return graphSpec{k: s.K, eps: s.Eps, labels: s.Labels, policy: s.Disconnected, between: s.Between}
}

// Fit embeds the rows of x.
func (s Isomap) Fit(ctx context.Context, x mat.Matrix) (*IsomapModel, error) {
	s = s.resolved()
	var solver Eigensolver
	layout := tauSearchOrder
	return fitter[*IsomapModel]{method: methodIsomap, opts: s.Options, input: sparseRows,
		plan: func(in samples) (fitPlan, error) {
			n, d := in.dims()
			if err := s.spec().validate(methodIsomap, n); err != nil {
				return fitPlan{}, err
			}
			if err := checkDim(methodIsomap, s.Dim, n-1, "samples−1"); err != nil {
				return fitPlan{}, err
			}
			var err error
			if solver, err = chooseEigensolver(methodIsomap, s.Eigensolver, eigenproblem{n: n, dim: s.Dim, f32: s.Float32}); err != nil {
				return fitPlan{}, err
			}
			rest := 8*int64(n)*int64(d+2*s.Dim) + graphBytes(s.Neighbors, in, s.K)
			if solver == EigenLanczos {
				rest += lanczos.WorkBytes(n, lanczos.Settings{K: s.Dim})
			}
			var geodesics int64
			geodesics, layout = tauBytes(n, s.Float32, rest, s.MaxBytes, layout)
			return fitPlan{dim: s.Dim,
				bytes:   geodesics + rest,
				what:    fmt.Sprintf("exact Isomap on %d points (one %d×%d matrix)", n, n, n),
				cheaper: "float32 geodesics (Float32, halves the N×N matrix) or landmark-isomap (O(L·N))"}, nil
		},
		stages: func(r *run, in samples) (*IsomapModel, error) { return s.stages(r, in, solver, layout) },
	}.fit(ctx, x)
}

// stages fits the Isomap embedding of the rows of in: the graph, the
// geodesics (laid out as layout says) and their eigenproblem by solver,
// the triangulation of new points. Sparse rows (text) are searched as
// they are — the search costs their stored entries, not N·D a pair — and
// only the training rows the model keeps are written out dense.
func (s Isomap) stages(r *run, in samples, solver Eigensolver, layout tauLayout) (*IsomapModel, error) {
	fixed, err := neighbourGraphOf(r, in, s.spec())
	if err != nil {
		return nil, err
	}
	p := isomapParams{graphParams: s.spec().params(), Float32: s.Float32, Eigensolver: solver}
	p.Dropped = len(fixed.Dropped)
	m := &IsomapModel{base: newBase(methodIsomap, p), graph: fixed.Graph, kept: fixed.Kept, dropped: fixed.Dropped}
	if m.train, err = trainSamples(r.ctx, in, keptRows(fixed)); err != nil {
		return nil, err
	}
	nk := m.train.Rows
	if s.Dim > nk-1 {
		return nil, fmt.Errorf("%s: %w: dim = %d but the graph keeps %d points", methodIsomap, ErrDimension, s.Dim, nk)
	}
	vals, vecs, means, between, err := geodesicMDS(r, fixed.Graph, s.Dim, s.Float32, s.spec().constantBetween(), layout, solver, s.Seed)
	if err != nil {
		return nil, err
	}
	m.p.Between = between
	m.embedding, m.tri, err = embedFromEig(methodIsomap, vals, vecs, means)
	if err != nil {
		return nil, err
	}
	m.eig = vals
	m.near = graphLists(r.rep, m.p.Eps, m.graph, r.opts.Neighbors.Width)
	m.prepareGeo()
	return m, nil
}

func (m *IsomapModel) prepareGeo() {
	m.geo = newLazyGeo(func(ctx context.Context) (*geodesic.Index, error) {
		return newGeoIndex(ctx, methodIsomap, m.train, m.graph, m.p.K, m.p.Eps, nil, m.p.Float32, m.p.Between, m.near, m.tri)
	})
}

func (m *IsomapModel) prepare(ctx context.Context) error { return m.geo.prepare(ctx) }

func (m *IsomapModel) transformRow(ctx context.Context, dst, x []float64) error {
	return m.geo.transformRow(ctx, methodIsomap, dst, x)
}

// eigenproblem is what chooseEigensolver needs to know of a method's
// eigenproblem.
type eigenproblem struct {
	n, dim int
	// f32: the matrix is held in float32, which only Lanczos reads.
	f32 bool
	// sparse: the bottom of a sparse matrix's spectrum (LLE, LTSA,
	// Laplacian eigenmaps), by the certified shift-invert Lanczos.
	sparse bool
	// gram: LSI's Gram operator, whose dense path stays cheap up to
	// 1000 and whose Lanczos path needs dim < n − 1.
	gram bool
}

// denseEigenMax is the order up to which the dense solvers are the default:
// below it the dense reduction costs less than Lanczos' restarts (measured
// on swiss rolls and USPS for Isomap, LLE, LTSA and Laplacian eigenmaps).
const denseEigenMax = 500

// sparseBottomCheaper names, for a budget refusal of a sparse bottom
// eigenproblem (LLE, LTSA, Laplacian eigenmaps) solved by solver, what
// needs less memory: the dense solver's N×N matrix goes with any other;
// the others' estimates grow with the neighbours and the samples.
func sparseBottomCheaper(solver Eigensolver) string {
	if solver == EigenDense {
		return "the Lanczos eigensolver (no N×N matrix)"
	}
	return "fewer neighbours (K) or fewer samples"
}

// chooseEigensolver is the one place the engine chooses an eigensolver:
// it resolves EigenAuto for the problem and checks an explicit choice.
// Dense top eigenpairs (Isomap, MDS, TDPM, Isometric Projection's τ):
// Lanczos beats the dense reduction when few eigenpairs of a large matrix
// are wanted (n > denseEigenMax, dim ≤ n/10), and is the only solver of a
// float32 matrix. Sparse bottom eigenpairs: the certified shift-invert
// Lanczos above denseEigenMax (EigenLanczos), or, asked for, Lanczos on
// the matrix alone (EigenUncertified). LSI's Gram operator: Lanczos above 1000
// when dim < n − 1.
func chooseEigensolver(method string, e Eigensolver, p eigenproblem) (Eigensolver, error) {
	switch e {
	case EigenAuto:
		switch {
		case p.gram:
			if p.n > 1000 && p.dim < p.n-1 {
				return EigenLanczos, nil
			}
		case p.sparse:
			if p.n > denseEigenMax {
				return EigenLanczos, nil
			}
		case p.f32 || (p.n > denseEigenMax && p.dim <= p.n/10):
			return EigenLanczos, nil
		}
		return EigenDense, nil
	case EigenDense:
		if p.f32 {
			return e, fmt.Errorf("%s: %w: the dense eigensolver needs float64 geodesics", method, ErrBadSetting)
		}
		return e, nil
	case EigenLOBPCG:
		if method != methodLLE && method != methodLTSA {
			return e, fmt.Errorf("%s: %w: eigensolver %q is for LLE and LTSA only", method, ErrBadSetting, e)
		}
		return e, nil
	case EigenUncertified:
		if !p.sparse {
			return e, fmt.Errorf("%s: %w: eigensolver %q is for LLE, LTSA and Laplacian eigenmaps (want dense or lanczos)", method, ErrBadSetting, e)
		}
		return e, nil
	case EigenLanczos:
		if p.gram && p.dim >= p.n-1 {
			return e, fmt.Errorf("%s: %w: the Lanczos solver needs dim < min(documents, terms) − 1 (dim = %d)", method, ErrDimension, p.dim)
		}
		return e, nil
	}
	want := "dense or lanczos"
	if p.sparse {
		want = "dense, lanczos or uncertified"
		if method == methodLLE || method == methodLTSA {
			want = "dense, lanczos, uncertified or lobpcg"
		}
	}
	return e, fmt.Errorf("%s: %w: eigensolver %q (want %s)", method, ErrBadSetting, e, want)
}

// geodesicMDS is the heart of exact Isomap: τ(D_G) (geodesicTau) and its
// top dim eigenpairs ("eigensolve"). τ is built in the searches' vertex
// order (layout: tauSearchOrder or tauSearchOrderLean) and its
// eigenvectors and row means put back in the points' order.
func geodesicMDS(r *run, graph *sparse.CSR, dim int, f32, constant bool, layout tauLayout, solver Eigensolver, seed uint64) ([]float64, blas64.General, []float64, float64, error) {
	tau, err := geodesicTau(r, graph, f32, constant, layout)
	if err != nil {
		return nil, blas64.General{}, nil, 0, err
	}
	vals, vecs, err := tau.top(r, dim, solver, seed)
	if err != nil {
		return nil, blas64.General{}, nil, 0, err
	}
	vecs = tau.pointOrder(vecs)
	return vals, vecs, tau.means, tau.between, nil
}

// pointOrder returns vecs, whose rows follow τ's layout, with its rows in
// the points' order, and puts t.means in that order too (for a layout in
// the searches' order; vecs itself otherwise).
func (t *tauMatrix) pointOrder(vecs blas64.General) blas64.General {
	if t.order == nil {
		return vecs
	}
	means := make([]float64, t.n)
	back := dense.New(t.n, vecs.Cols)
	for k, i := range t.order {
		means[i] = t.means[k]
		copy(back.Data[i*back.Stride:i*back.Stride+back.Cols], vecs.Data[k*vecs.Stride:k*vecs.Stride+vecs.Cols])
	}
	t.means, t.order = means, nil
	backend.FixSigns(back) // the convention's tie-break is by position
	return back
}

// tauLayout is how geodesicTau lays out τ(D_G).
type tauLayout int

const (
	// tauPointOrder: row and column i for point i.
	tauPointOrder tauLayout = iota
	// tauSearchOrder: in the shortest-path searches' vertex order
	// (sparse.PathOptions.Order): the searches write each row in sequence.
	tauSearchOrder
	// tauSearchOrderLean: as tauSearchOrder, and a float32 matrix holds the
	// searches' float64 rows in its own last rows until it writes them
	// (sparse.PathOptions.RingInOutput): no memory besides the matrix, 5 %
	// more time at 10,000 points. Chosen when the budget asks for it.
	tauSearchOrderLean
)

// tauBytes is the memory of τ(D_G) on n points, float64 or float32 with
// the searches' ring of float64 rows, and its layout: the ring inside τ
// (tauSearchOrderLean) when the budget maxBytes (0: none) would refuse
// rest and a ring of its own, the given layout otherwise.
func tauBytes(n int, f32 bool, rest, maxBytes int64, layout tauLayout) (int64, tauLayout) {
	if !f32 {
		return 8 * int64(n) * int64(n), layout
	}
	own := 4*int64(n)*int64(n) + sparse.AllPairs32ScratchBytes(n, false)
	if maxBytes > 0 && own+rest > maxBytes {
		return 4*int64(n)*int64(n) + sparse.AllPairs32ScratchBytes(n, true), tauSearchOrderLean
	}
	return own, layout
}

// tauMatrix is τ(D_G) = −½·H·D_G²·H (Cai, He & Han, AAAI 2007 eq. 3) of
// an n-vertex graph, stored in full in s64 (or in s32 when float32), with
// the row means of D_G² it was centred with; with order, row and column k
// (and means[k]) belong to vertex order[k].
type tauMatrix struct {
	n     int
	s64   blas64.General
	s32   []float32
	means []float64
	order []int
	// between is the geodesic set between unreachable pairs
	// (SupervisedConstant), 0 when every pair was reachable.
	between float64
	// exp: s32 holds τ·2^(−2·exp), its lengths scaled by float32Scaled;
	// means, between and the eigenvalues of top are in the geodesics'
	// own scale.
	exp int
}

// operator returns τ(D_G) as a symmetric operator for the iterative
// solvers.
func (t tauMatrix) operator() lanczos.Operator {
	if t.s32 != nil {
		return backend.FullSymOp32{A: t.s32, N: t.n, Stride: t.n}
	}
	return backend.FullSymOp{A: t.s64}
}

// float32Scaled returns the graph whose squared geodesics fit float32's
// normal range, and e: g itself and 0, or a copy with every length scaled
// by 2^−e (a power of two: exact) — down when the longest path possible
// (the longest edge times n − 1 edges) could pass √(MaxFloat32/4) ≈ 9.2e18,
// so that it lies near 9.2e18; up when the shortest edge is below
// 2^−50 ≈ 8.9e−16 (its square 1e−31, near float32's smallest normal number
// 1.2e−38), so that the longest edge lies in [½, 1). Squared geodesics of
// data scaled to 1e20 would otherwise be +Inf in float32, and of data
// scaled to 1e−20 subnormal or 0.
func float32Scaled(g *sparse.CSR) (*sparse.CSR, int, error) {
	e := float32Exp(g)
	if e == 0 {
		return g, 0, nil
	}
	vals := make([]float64, len(g.Values()))
	for i, w := range g.Values() {
		vals[i] = math.Ldexp(w, -e)
	}
	rows, cols := g.Dims()
	sg, err := sparse.NewCSR(rows, cols, g.RowPtr(), g.ColIdx(), vals)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", ErrNumerical, err)
	}
	return sg, e, nil
}

// float32Exp is the e of float32Scaled: the same for the graph a model
// keeps, so that Transform rounds as the fit did.
func float32Exp(g *sparse.CSR) int {
	n, _ := g.Dims()
	maxEdge, minEdge := 0.0, math.Inf(1)
	for _, w := range g.Values() {
		maxEdge = max(maxEdge, w)
		if w > 0 {
			minEdge = min(minEdge, w)
		}
	}
	bound := maxEdge * float64(max(n-1, 1))
	limit := math.Sqrt(math.MaxFloat32 / 4)
	switch {
	case bound > limit:
		return int(math.Ceil(math.Log2(bound / limit)))
	case minEdge < 0x1p-50:
		_, e := math.Frexp(maxEdge)
		return e
	}
	return 0
}

// geodesicTau computes τ(D_G) in one N×N matrix: squared geodesics written
// by the parallel shortest paths with the row means accumulated in the
// same pass (stage "geodesics"), then double centring in place
// ("centering"). With constant (SupervisedConstant) the pairs the graph
// does not join — points of different classes — are set to
// supervisedFactor × the largest finite geodesic before the row means are
// taken. The matrix is laid out as layout says (the searches' vertex
// order in t.order).
func geodesicTau(r *run, graph *sparse.CSR, f32, constant bool, layout tauLayout) (tauMatrix, error) {
	n, _ := graph.Dims()
	t := tauMatrix{n: n, means: make([]float64, n)}
	if layout != tauPointOrder {
		t.order = make([]int, n)
	}
	err := r.stage("geodesics", flam.AllPairsDijkstra(n, n, graph.NNZ()), func(ctx context.Context, st *stageCtx) error {
		var done atomic.Int64 // sources finished: the progress
		opt := sparse.PathOptions{Squared: true, RowMeans: t.means, Done: &done, Order: t.order, RingInOutput: layout == tauSearchOrderLean}
		if constant {
			opt.RowMeans = nil
		}
		st.detail = "parallel shortest paths (distance buckets, each source from its earlier neighbours' rows), float64"
		var err error
		if f32 {
			st.detail = "parallel shortest paths (distance buckets, each source from its earlier neighbours' rows), float32"
			if opt.RingInOutput {
				st.detail += ", those rows kept in the output's last rows (the memory budget)"
			}
			g32, e, err := float32Scaled(graph)
			if err != nil {
				return err
			}
			if t.exp = e; e != 0 {
				st.detail += fmt.Sprintf(", lengths scaled by 2^%d", -e)
			}
			t.s32 = make([]float32, n*n)
			err = st.watch(&done, int64(n), func() error { return sparse.AllPairsShortestPaths32(ctx, g32, t.s32, n, opt) })
			if err != nil {
				return err
			}
		} else {
			t.s64 = dense.New(n, n)
			err = st.watch(&done, int64(n), func() error { return sparse.AllPairsShortestPaths(ctx, graph, t.s64, opt) })
		}
		if err != nil || !constant {
			return err
		}
		t.between = math.Ldexp(t.fillUnreachable(), t.exp)
		st.detail += fmt.Sprintf(", between classes %g (%d × the largest within-class geodesic)", t.between, supervisedFactor)
		return nil
	})
	if err != nil {
		return t, err
	}
	err = r.stage("centering", flam.DoubleCenter(n), func(ctx context.Context, st *stageCtx) error {
		if f32 {
			err := backend.DoubleCenter32Ctx(ctx, t.s32, n, n, t.means)
			for i := range t.means {
				t.means[i] = math.Ldexp(t.means[i], 2*t.exp)
			}
			return err
		}
		return backend.DoubleCenterCtx(ctx, t.s64, t.means)
	})
	return t, err
}

// fillUnreachable sets the +Inf squared geodesics of t to (supervisedFactor
// × the largest finite geodesic)², fills t.means with the row means and
// returns that between-class geodesic (0 when no pair was unreachable).
func (t *tauMatrix) fillUnreachable() float64 {
	n := t.n
	maxSq := 0.0
	unreachable := false
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var v float64
			if t.s32 != nil {
				v = float64(t.s32[i*n+j])
			} else {
				v = t.s64.Data[i*t.s64.Stride+j]
			}
			if math.IsInf(v, 1) {
				unreachable = true
			} else {
				maxSq = math.Max(maxSq, v)
			}
		}
	}
	between := 0.0
	if unreachable {
		between = supervisedFactor * math.Sqrt(maxSq)
	}
	fill := between * between
	for i := 0; i < n; i++ {
		sum := 0.0
		for j := 0; j < n; j++ {
			if t.s32 != nil {
				if math.IsInf(float64(t.s32[i*n+j]), 1) {
					t.s32[i*n+j] = float32(fill)
				}
				sum += float64(t.s32[i*n+j])
			} else {
				p := &t.s64.Data[i*t.s64.Stride+j]
				if math.IsInf(*p, 1) {
					*p = fill
				}
				sum += *p
			}
		}
		t.means[i] = sum / float64(n)
	}
	return between
}

// top returns the top dim eigenpairs of τ (topEigen), the eigenvalues in
// the geodesics' own scale (see exp).
func (t tauMatrix) top(r *run, dim int, solver Eigensolver, seed uint64) ([]float64, blas64.General, error) {
	vals, vecs, err := topEigen(r, t.s64, t.s32, t.n, dim, solver, seed)
	for i := range vals {
		vals[i] = math.Ldexp(vals[i], 2*t.exp)
	}
	return vals, vecs, err
}

// topEigen finds the top dim eigenpairs of the double-centred n×n matrix
// (s64, or s32 when stored in float32) as the stage "eigensolve": by the
// dense index-range solver or by Lanczos on the matrix as an operator.
// Only Lanczos checks ctx during the stage (per iteration); the auto choice
// keeps dense calls to sizes that finish within ~100 ms.
func topEigen(r *run, s64 blas64.General, s32 []float32, n, dim int, solver Eigensolver, seed uint64) ([]float64, blas64.General, error) {
	var vals []float64
	var vecs blas64.General
	var err error
	if solver == EigenDense {
		err = r.stage("eigensolve", flam.Syevr(n, dim), func(ctx context.Context, st *stageCtx) error {
			st.detail = "dense syevr"
			var err error
			vals, vecs, err = backend.EigTopCtx(ctx, backend.Active(), blas64.Symmetric{N: n, Stride: s64.Stride, Data: s64.Data, Uplo: blas.Upper}, dim)
			return wrapNumerical(err)
		})
		return vals, vecs, err
	}
	err = r.stage("eigensolve", flam.Lanczos(n, dim, 20), func(ctx context.Context, st *stageCtx) error {
		res, err := st.lanczos(ctx, tauMatrix{n: n, s64: s64, s32: s32}.operator(), lanczos.Settings{K: dim, Seed: seed})
		if err != nil {
			return err
		}
		st.detail = fmt.Sprintf("lanczos: block %d, %d products, %d restarts, %.3g flam done", res.Stats.BlockSize, res.Stats.MatVecs, res.Stats.Restarts, res.Stats.Flam)
		vals, vecs = res.Values, res.Vectors
		return nil
	})
	return vals, vecs, err
}

// Eigenvalues returns the Dim eigenvalues of τ(D_G) used, descending.
func (m *IsomapModel) Eigenvalues() []float64 { return append([]float64(nil), m.eig...) }

// Kept returns the indices of the training points in the embedding (all of
// them unless the disconnected policy was DisconnectedLargest).
func (m *IsomapModel) Kept() []int { return append([]int(nil), m.kept...) }

// Dropped returns the training points left out by DisconnectedLargest.
func (m *IsomapModel) Dropped() []int { return append([]int(nil), m.dropped...) }

// Transform maps new points: their geodesic distances to the training
// points through their k nearest training points (or those within ε), one
// Dijkstra each on the stored graph, then the triangulation — equal to
// scikit-learn's Isomap.transform. Transforming the training points gives
// their embedding when the graph's neighbours were exact (see the package
// doc for approximate ones). The graph, prepared for the searches, and the
// neighbour index are built on the first call and reused (see TransformRow
// for one point at a time).
func (m *IsomapModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	return transformRows(ctx, m, x, m.train.Cols)
}

// Save writes the model (see Load for the format).
func (m *IsomapModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *IsomapModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	c.check(m.p.Between >= 0, "between_geodesic %g < 0", m.p.Between)
	c.triangulated(&m.embedding, &m.tri, &m.eig, dim, -1)
	n := m.embedding.Rows
	c.matrix("train", &m.train, n, -1)
	c.graph(&m.graph, n)
	c.keptDropped(&m.kept, &m.dropped, n)
	if c.loaded() {
		m.near = graphLists(&m.report, m.p.Eps, m.graph, searchWidth(&m.report))
	}
	c.widenedLists(&m.near, n)
	c.indexTree(m.near, m.train)
	if c.loaded() {
		m.prepareGeo()
	}
}

// graph carries the neighbour graph of n points as "graph_ptr",
// "graph_ind" and "graph_val", its edge lengths ≥ 0 (the shortest paths
// of Transform need them so).
func (c *codec) graph(g **sparse.CSR, n int) {
	var ptr, ind []int
	var val []float64
	if !c.load {
		ptr, ind, val = (*g).RowPtr(), (*g).ColIdx(), (*g).Values()
	}
	c.ints("graph_ptr", &ptr, n+1)
	c.ints("graph_ind", &ind, -1)
	c.vector("graph_val", &val, len(ind))
	if !c.loaded() {
		return
	}
	for _, w := range val {
		if w < 0 {
			c.failf("graph: negative edge length %g", w)
			return
		}
	}
	a, err := sparse.NewCSR(n, n, ptr, ind, val)
	if err != nil {
		c.failf("graph: %v", err)
		return
	}
	*g = a
}

// nearLists gives the training lists of an approximate fit (nearLister).
func (m *IsomapModel) nearLists() (*trainingLists, blas64.General) { return m.near, m.train }
