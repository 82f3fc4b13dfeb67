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
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/lanczos"
)

// OIPWeight says what the edges of OIP's neighbour graph weigh before the
// shortest paths are taken.
type OIPWeight string

const (
	// OIPDistance weighs an edge by its Euclidean length ‖x_i − x_j‖, so
	// that shortest paths are geodesic distances as in Isomap and
	// Isometric Projection. The default.
	OIPDistance OIPWeight = ""
	// OIPHeat weighs an edge by the heat kernel exp(−‖x_i − x_j‖²/t), the
	// weight Zheng, Tang, Fang & Zhang, ICPR 2012 §3.2 names. Shortest
	// paths over these weights are not geodesic distances (a long edge
	// weighs less than a short one, so paths prefer long edges); the option
	// is there to compare with the paper.
	OIPHeat OIPWeight = "heat"
)

// OIPSolver chooses how OIP finds the smallest eigenvectors of M.
type OIPSolver string

const (
	// OIPAuto forms M when the features are few enough (D ≤ 2048) unless
	// Lanczos on the operator is predicted ten times cheaper.
	OIPAuto OIPSolver = ""
	// OIPDense forms the D×D matrix M (oipFormFlam: n²D/2 + 1.5·nD² + D³)
	// and takes its Dim smallest eigenpairs by the dense index-range
	// solver (2/3·D³).
	OIPDense OIPSolver = "dense"
	// OIPOperator never forms M: Lanczos (Which: Smallest) applies
	// with A the n×D data (X = Aᵀ), u = A·v and M·v = Aᵀ(A(Aᵀu) − 2τu),
	// 4nD + n² flam per product. Lanczos resolves eigenvalues to a
	// tolerance relative to ‖M‖: when the smallest eigenvalues of M are
	// tiny against ‖M‖ and close together (heat weights make M ≈ (XXᵀ)²,
	// whose smallest eigenvalues are the data's σ⁴) it may return the wrong
	// ones; the dense path has no such limit.
	OIPOperator OIPSolver = "operator"
)

// OIP is Orthogonal Isometric Projection (Zheng, Tang, Fang & Zhang, ICPR
// 2012; Zheng, Tang, Fang & Zhang, ICPR 2012): the orthogonal linear map
// y = Vᵀx (VᵀV = I) that best preserves the geodesic structure,
//
//	min_V ‖τ(D_G) − XᵀVVᵀX‖²  s.t.  VᵀV = I          (eq. 5)
//
// which §3.1 reduces to the Dim smallest eigenvectors of the D×D matrix
//
//	M = X(XᵀX − 2τ(D_G)ᵀ)Xᵀ,  M·V = λ·V               (eq. 6, Alg. 1)
//
// with X = [x_1 … x_N] the D×N training data as the paper writes it (no
// centring beyond τ), τ(D_G) = −½·H·S·H (Alg. 1 step 2), S the squared
// shortest-path distances of the neighbour graph. Alg. 1 writes the
// matrix of step 1 as W(i,j) = d_G(i,j); τ is the MDS operator of
// Isometric Projection and Isomap (eq. 2–3), which squares the distances,
// and that is what is used here. The embedding of a point is Vᵀx; new points
// are mapped the same way.
//
// Which weights reproduce Table 1: OIPDistance, the default. §3.2 of the
// paper mentions heat-kernel edge weights, but on USPS the Euclidean edge
// lengths give the 1-NN accuracies of Table 1 and the heat kernel does not:
// on one random split, k = 10, 40 projections, 1-NN on the projections,
// Euclidean 94.6 % (20 % training; Table 1: 95.10 ± 0.20) and 95.9 % (50 %;
// 96.65 ± 0.26), heat kernel (t = mean squared edge length) 34.8 % and
// 39.6 % (TestOIPUSPSWeights).
//
// Cost (oipFormFlam): the graph and τ(D_G) as in Isomap, then n²D/2 +
// 1.5·nD² + D³ to form M and 2/3·D³ for its eigenvectors; memory one N×N
// matrix. On usps9298 with 50 % training (4649 × 256, k = 10, Dim = 40) a fit
// takes 2.0–2.2 s with the pure-Go backend and 1.1–1.6 s with OpenBLAS on
// the 2-core reference machine (AMD EPYC, shared; BenchmarkOIPUSPS, three
// runs each): neighbours 0.7–1.0 s, geodesics 0.9–1.6 s, forming M 0.6 s.
type OIP struct {
	Dim int // p, the number of projections; default 2
	// K neighbours per point (default 10), or with Labels within the
	// class (0: all of the class).
	K      int     `setting:"k"`
	Eps    float64 `setting:"eps"`    // > 0: ε-graph
	Labels []int   `setting:"labels"` // supervised graph (Cai, He & Han, AAAI 2007 Table 2)
	// Between sets the geodesic between classes of a supervised fit
	// (default SupervisedConstant, see there).
	Between      SupervisedGeodesic `setting:"supervised-geodesic"`
	Disconnected Disconnected       `setting:"disconnected"`
	Weight       OIPWeight
	// T is the heat kernel's t (OIPHeat); 0 means the mean squared edge
	// length.
	T      float64
	Solver OIPSolver
	Seed   uint64 // Lanczos start vector
	Options
}

// OIPModel is a fitted OIP: the D×Dim orthonormal projection V.
type OIPModel struct {
	base[oipParams]
	proj blas64.General // D×Dim, orthonormal columns
	eig  []float64      // the Dim smallest eigenvalues of M, ascending
	kept []int
}

// oipParams are OIP's parameters (the model keeps only the projection).
type oipParams struct {
	graphParams `param:",report"`
	Solver      OIPSolver `param:"solver,report"` // "dense" after a dense fallback
	Weight      string    `param:"weight,report"` // "distance" or "heat"
	T           *float64  `param:"t,report,omitempty"`
	// AngleBound bounds, in degrees, the subspace found by the operator
	// path (oipAngleBound); DenseFallback: the bound was too loose and the
	// dense path finished.
	AngleBound    *float64 `param:"angle_bound_deg,report,omitempty"`
	DenseFallback bool     `param:"dense_fallback,report,omitempty"`
}

const methodOIP = "oip"

func (s OIP) resolved() OIP {
	s.Dim, s.K = cmp.Or(s.Dim, 2), defaultK(s.K, s.Eps, s.Labels)
	return s
}

func (s OIP) spec() graphSpec {
	g := graphSpec{k: s.K, eps: s.Eps, labels: s.Labels, policy: s.Disconnected, between: s.Between}
	if s.Weight == OIPHeat {
		g.weight, g.t = neighbors.Heat, s.T
	}
	return g
}

// check validates the settings that do not depend on the graph.
func (s OIP) check(method string, n, d int) error {
	if err := s.spec().validate(method, n); err != nil {
		return err
	}
	switch s.Weight {
	case OIPDistance, OIPHeat:
	default:
		return fmt.Errorf("%s: %w: weight %q (want distance or heat)", method, ErrBadSetting, s.Weight)
	}
	if s.T < 0 || math.IsNaN(s.T) || math.IsInf(s.T, 0) {
		return fmt.Errorf("%s: %w: heat kernel t = %v", method, ErrBadSetting, s.T)
	}
	switch s.Solver {
	case OIPAuto, OIPDense, OIPOperator:
	default:
		return fmt.Errorf("%s: %w: solver %q (want dense or operator)", method, ErrBadSetting, s.Solver)
	}
	return checkDim(method, s.Dim, min(d, n-1), "min(features, samples−1)")
}

// solver resolves OIPAuto for n samples of d features.
func (s OIP) solver(n, d int) OIPSolver {
	if s.Solver != OIPAuto {
		return s.Solver
	}
	if d > 2048 {
		return OIPOperator
	}
	// The operator's products are bound by memory (τ is read once per
	// product) where the dense path runs at matrix–matrix speed, and the
	// dense path is exact where Lanczos resolves eigenvalues only to a
	// tolerance relative to ‖M‖ (the smallest eigenvalues of M can be
	// tiny against ‖M‖, as with heat weights): the operator must be
	// predicted 10 times cheaper.
	if oipFormFlam(n, d)+flam.Syevr(d, s.Dim) <= 10*oipOperatorFlam(n, d, s.Dim) {
		return OIPDense
	}
	return OIPOperator
}

// oipOperatorFlam predicts Lanczos on M as an operator: about 20 products
// per eigenpair (the p of Cai, He & Han, AAAI 2007 eq. 12).
func oipOperatorFlam(n, d, dim int) float64 {
	return float64(20*max(dim, 3)) * (oipProductFlam(n, d) + flam.LanczosStep(d, 2*dim+20, 1))
}

// params returns the parameters of a fit by solver.
func (s OIP) params(solver OIPSolver) oipParams {
	p := oipParams{graphParams: s.spec().params(), Solver: solver, Weight: "distance"}
	if s.Weight == OIPHeat {
		p.Weight, p.T = "heat", &s.T
	}
	return p
}

// Fit learns the projection from the rows of x.
func (s OIP) Fit(ctx context.Context, x mat.Matrix) (*OIPModel, error) {
	const method = methodOIP
	s = s.resolved()
	var solver OIPSolver
	return fitter[*OIPModel]{method: method, opts: s.Options, input: denseRows, degree: 4,
		plan: func(in samples) (fitPlan, error) {
			n, d := in.dims()
			if err := s.check(method, n, d); err != nil {
				return fitPlan{}, err
			}
			solver = s.solver(n, d)
			return s.plan(method, in), nil
		},
		stages: func(r *run, in samples) (*OIPModel, error) { return s.stages(r, in.dense, solver) },
	}.fit(ctx, x)
}

// plan is the fit plan of OIP and SOIP on the samples in.
func (s OIP) plan(method string, in samples) fitPlan {
	n, d := in.dims()
	return fitPlan{dim: s.Dim,
		bytes:   8*(int64(n)*int64(n)+2*int64(n)*int64(d)+3*int64(d)*int64(d)+int64(n)*int64(10+s.Dim)) + graphBytes(s.Neighbors, in, s.K),
		what:    fmt.Sprintf("%s on %d samples (one %d×%d τ(D_G))", method, n, n, n),
		cheaper: "fewer training samples (the projection maps the rest)"}
}

// stages fits the projection of g.
func (s OIP) stages(r *run, g blas64.General, solver OIPSolver) (*OIPModel, error) {
	const method = methodOIP
	d := g.Cols
	m := &OIPModel{base: newBase(method, s.params(solver))}
	tr, kept, tau, err := oipGeodesics(r, g, s.spec(), s.Dim, &m.p.graphParams)
	if err != nil {
		return nil, err
	}
	m.kept = kept
	m.proj, m.eig, err = oipSolve(r, tr, tau, s.Dim, s.Seed, &m.p)
	if err != nil {
		return nil, err
	}
	if m.embedding, err = r.project("project", flam.Gemm(tr.Rows, s.Dim, d), samples{dense: tr}, m.proj); err != nil {
		return nil, err
	}
	if err := checkSpan(method, m.embedding); err != nil {
		return nil, err
	}
	return m, nil
}

// checkSpan rejects projections that map every training point to 0: with
// more features than samples, M = X(XᵀX − 2τ)Xᵀ vanishes on the
// orthogonal complement of the data's span, and when it has fewer than
// Dim negative eigenvalues its smallest ones are those zeros.
func checkSpan(method string, emb blas64.General) error {
	norms := make([]float64, emb.Cols)
	top := 0.0
	for i := 0; i < emb.Rows; i++ {
		for j, v := range emb.Data[i*emb.Stride : i*emb.Stride+emb.Cols] {
			norms[j] += v * v
		}
	}
	for _, v := range norms {
		top = math.Max(top, v)
	}
	for j, v := range norms {
		if v <= 1e-20*top || top == 0 {
			return fmt.Errorf("%s: %w: projection %d maps every training point to 0 (it lies outside the span of the data); only %d projections are available",
				method, ErrDimension, j, j)
		}
	}
	return nil
}

// oipGeodesics builds the graph and τ(D_G) of the training points it
// keeps, which it returns (with their indices; p counts those dropped).
func oipGeodesics(r *run, g blas64.General, spec graphSpec, dim int, p *graphParams) (blas64.General, []int, tauMatrix, error) {
	fixed, err := neighbourGraph(r, g, spec)
	if err != nil {
		return blas64.General{}, nil, tauMatrix{}, err
	}
	tr := g
	if p.Dropped = len(fixed.Dropped); p.Dropped > 0 {
		tr = subsetRows(g, fixed.Kept)
	}
	if dim > tr.Rows-1 {
		return blas64.General{}, nil, tauMatrix{}, fmt.Errorf("%s: %w: dim = %d but the graph keeps %d points", r.method, ErrDimension, dim, tr.Rows)
	}
	tau, err := geodesicTau(r, fixed.Graph, false, spec.constantBetween(), tauPointOrder)
	return tr, fixed.Kept, tau, err
}

// oipSolve returns the dim smallest eigenpairs of M = A(…) for the n×d
// training data a (rows = samples, X = aᵀ) and τ(D_G): by forming M
// (stages "form-m", "eigensolve") or by Lanczos on the operator
// ("eigensolve"), as p.Solver says; p notes the operator's angle bound and
// a dense fallback.
func oipSolve(r *run, a blas64.General, tau tauMatrix, dim int, seed uint64, p *oipParams) (blas64.General, []float64, error) {
	n, d := a.Rows, a.Cols
	impl := backend.Active()
	var vals []float64
	var vecs blas64.General
	if p.Solver == OIPDense {
		mm := blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: make([]float64, d*d)}
		err := r.stage("form-m", oipFormFlam(n, d), func(ctx context.Context, st *stageCtx) error {
			st.detail = "M = G² − 2·AᵀτA (τ by its lower triangle), G = AᵀA"
			gram := dense.New(d, d)
			if err := backend.SyrkCtx(ctx, impl, blas.Trans, 1, a, 0, blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: gram.Data}); err != nil {
				return err
			}
			dense.MirrorUpper(gram)
			if err := ctx.Err(); err != nil {
				return err
			}
			full := blas64.General{Rows: d, Cols: d, Stride: d, Data: mm.Data}
			if err := dense.SymQuadForm(ctx, -2, tau.s64, a, full); err != nil {
				return err
			}
			if err := backend.GemmCtx(ctx, impl, blas.NoTrans, blas.NoTrans, 1, gram, gram, 1, full); err != nil {
				return err
			}
			dense.Symmetrize(full)
			return nil
		})
		if err != nil {
			return blas64.General{}, nil, err
		}
		err = r.stage("eigensolve", flam.Syevr(d, dim), func(ctx context.Context, st *stageCtx) error {
			st.detail = "dense syevr, smallest"
			var err error
			vals, vecs, err = backend.EigBottomCtx(ctx, impl, mm, dim)
			return wrapNumerical(err)
		})
		if err != nil {
			return blas64.General{}, nil, err
		}
		backend.FixSigns(vecs)
		return vecs, vals, nil
	}
	op := oipOperator{a: a, tau: tau.operator(), u: make([]float64, n), w: make([]float64, n), t: make([]float64, n), v: make([]float64, d)}
	bound := 0.0
	err := r.stage("eigensolve", oipOperatorFlam(n, d, dim), func(ctx context.Context, st *stageCtx) error {
		// One pair more than asked: its Ritz value bounds the gap.
		k := min(dim+1, d-1)
		var res *lanczos.Result
		err := st.watchCount(lanczosBudget(k), func(done *atomic.Int64) error {
			var err error
			res, err = lanczos.Solve(ctx, op, lanczos.Settings{K: k, Which: lanczos.Smallest, Seed: seed, Progress: done})
			return err
		})
		if err != nil {
			return wrapNumerical(err)
		}
		st.iterations = res.Stats.Iterations
		vals = res.Values[:dim]
		vecs = blas64.General{Rows: d, Cols: dim, Stride: res.Vectors.Stride, Data: res.Vectors.Data}
		vecs = dense.Copy(vecs)
		bound = oipAngleBound(res.Values, res.Residuals, dim)
		st.detail = fmt.Sprintf("lanczos on M as an operator, smallest: %d products, %d restarts, subspace angle ≤ %.2g°", res.Stats.MatVecs, res.Stats.Restarts, bound)
		return nil
	})
	if err != nil {
		return vecs, vals, err
	}
	p.AngleBound = &bound
	if bound <= oipMaxAngleDeg || d > oipDenseFallbackMax {
		return vecs, vals, nil
	}
	// Lanczos cannot vouch for the subspace (the smallest eigenvalues of M
	// are too close together against ‖M‖, as with heat weights): the dense
	// path, whose error is ε·‖M‖/gap instead of TolFloor·‖M‖/gap.
	p.Solver, p.DenseFallback = OIPDense, true
	return oipSolve(r, a, tau, dim, seed, p)
}

// oipMaxAngleDeg is the largest principal angle (degrees) between OIP's
// subspace and the exact one that the operator path may leave; beyond it
// (by oipAngleBound) OIP finishes with the dense path. A variable so that
// a test can force the fallback.
var oipMaxAngleDeg = 1e-4

// oipDenseFallbackMax is the largest D for which that dense fallback runs
// (a D×D M; above it the bound is only reported).
const oipDenseFallbackMax = 2048

// oipAngleBound bounds the largest principal angle (degrees) between the
// span of the dim smallest Ritz vectors and the exact invariant subspace by
// the sin Θ theorem of Davis & Kahan (SIAM J. Numer. Anal. 7(1), 1970):
// sin θ ≤ ‖R‖_F / gap, R the residuals of the dim Ritz pairs and gap the
// distance from their largest Ritz value to the next one (vals has dim + 1
// values, ascending). 90 (no bound) when there is no next value or no gap.
func oipAngleBound(vals, residuals []float64, dim int) float64 {
	if len(vals) <= dim {
		return 90
	}
	gap := vals[dim] - vals[dim-1]
	rr := 0.0
	for _, v := range residuals[:dim] {
		rr += v * v
	}
	if !(gap > 0) {
		return 90
	}
	s := math.Sqrt(rr) / gap
	if s >= 1 {
		return 90
	}
	return math.Asin(s) * 180 / math.Pi
}

// oipOperator is M = Aᵀ(A·Aᵀ − 2τ)A as a D×D operator (A the n×D data):
// M·v = Aᵀ(A(Aᵀu) − 2τu), u = A·v. Not safe for concurrent use (it holds
// its work vectors); Lanczos calls it from one goroutine.
type oipOperator struct {
	a          blas64.General
	tau        lanczos.Operator
	u, w, t, v []float64
}

func (o oipOperator) Dims() (int, int) { return o.a.Cols, o.a.Cols }

func (o oipOperator) MulVecTo(dst, x []float64) {
	impl := backend.Active()
	vec := func(s []float64) blas64.Vector { return blas64.Vector{N: len(s), Inc: 1, Data: s} }
	impl.Gemv(blas.NoTrans, 1, o.a, vec(x), 0, vec(o.u))   // u = Av
	impl.Gemv(blas.Trans, 1, o.a, vec(o.u), 0, vec(o.v))   // Aᵀu
	impl.Gemv(blas.NoTrans, 1, o.a, vec(o.v), 0, vec(o.w)) // A(Aᵀu)
	o.tau.MulVecTo(o.t, o.u)                               // τu
	for i, ti := range o.t {
		o.w[i] -= 2 * ti
	}
	impl.Gemv(blas.Trans, 1, o.a, vec(o.w), 0, vec(dst))
}

// Projection returns V, the D×Dim orthonormal projection.
func (m *OIPModel) Projection() *mat.Dense { return copyDense(m.proj) }

// Eigenvalues returns the Dim smallest eigenvalues of M, ascending.
func (m *OIPModel) Eigenvalues() []float64 { return append([]float64(nil), m.eig...) }

// Kept returns the indices of the training points in the embedding (all of
// them unless the disconnected policy was DisconnectedLargest).
func (m *OIPModel) Kept() []int { return append([]int(nil), m.kept...) }

// Transform maps new points: y = Vᵀx.
func (m *OIPModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	return projectRows(ctx, m.method, x, m.proj)
}

// projectRows maps the rows of x by the D×dim projection: Y = X·proj.
func projectRows(ctx context.Context, method string, x mat.Matrix, proj blas64.General) (*mat.Dense, error) {
	g, err := denseTransformInput(method+" transform", x, proj.Rows)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	y := dense.New(g.Rows, proj.Cols)
	backend.Active().Gemm(blas.NoTrans, blas.NoTrans, 1, g, proj, 0, y)
	return transformResult(method, y)
}

// projectSamples is projectRows for dense rows or a *sparse.CSR, kept
// sparse.
func projectSamples(ctx context.Context, method string, x mat.Matrix, proj blas64.General) (*mat.Dense, error) {
	in, err := transformInput(method+" transform", x, proj.Rows)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	y := dense.New(in.rows(), proj.Cols)
	if err := in.mulBlock(ctx, y, proj); err != nil {
		return nil, err
	}
	return transformResult(method, y)
}

// Save writes the model (see Load for the format).
func (m *OIPModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *OIPModel) fields(c *codec) {
	c.projection(&m.proj, &m.embedding, &m.eig, &m.kept, c.dim(m.Dim()))
}

// projection carries the arrays of a model that maps by a projection
// only: the projection, the embedding, the eigenvalues and the kept
// training rows.
func (c *codec) projection(proj, emb *blas64.General, eig *[]float64, kept *[]int, dim int) {
	c.matrix("projection", proj, -1, dim)
	c.matrix("embedding", emb, -1, dim)
	c.vector("eigenvalues", eig, dim)
	c.kept(kept, emb.Rows)
}

// oipFormFlam is forming M = X(XᵀX − 2τ)Xᵀ = G² − 2·XτXᵀ (Zheng, Tang, Fang & Zhang, ICPR 2012
// eq. 6) for n samples of d features, X = Aᵀ with A the n×d
// data: G = AᵀA (Syrk, d²n/2), XτXᵀ = P + Pᵀ with P = Aᵀ(LA), L the lower
// triangle of the symmetric τ (n²d/2 for LA, d²n for P), and G² (d³).
func oipFormFlam(n, d int) float64 {
	fn, fd := float64(n), float64(d)
	return flam.Syrk(d, n) + fn*fn*fd/2 + flam.Gemm(d, d, n) + flam.Gemm(d, d, d)
}

// oipProductFlam is one product M·v with M applied as an operator without
// forming it: u = Av (nd), Aᵀu (nd), A(Aᵀu) (nd), τu (n²) and the final Aᵀ
// (nd): 4nd + n².
func oipProductFlam(n, d int) float64 {
	fn, fd := float64(n), float64(d)
	return 4*fn*fd + fn*fn
}
