package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/sparse"
)

// randomData returns n points in d dimensions (n ≤ d: rank n), on a curved
// sheet so that the kNN graph is connected.
func randomData(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 5))
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		t := float64(i) / float64(n)
		for j := 0; j < d; j++ {
			x.Set(i, j, math.Sin(3*t*float64(j%7+1))+0.3*rng.NormFloat64())
		}
	}
	return x
}

// columnsAgree reports the largest relative difference between the columns
// of a and b, each compared up to its sign.
func columnsAgree(a, b *mat.Dense) float64 {
	r, c := a.Dims()
	worst := 0.0
	for j := 0; j < c; j++ {
		dp, dm, nb := 0.0, 0.0, 0.0
		for i := 0; i < r; i++ {
			dp += (a.At(i, j) - b.At(i, j)) * (a.At(i, j) - b.At(i, j))
			dm += (a.At(i, j) + b.At(i, j)) * (a.At(i, j) + b.At(i, j))
			nb += b.At(i, j) * b.At(i, j)
		}
		worst = max(worst, math.Sqrt(min(dp, dm)/nb))
	}
	return worst
}

// Theorem 2 of Cai, He & Han, AAAI 2007: with rank(X) = N (more features
// than samples) the regression solution tends to the eigenvector of eq. 6
// as α → 0: both solvers give the same projections.
func TestIsoProjectionTheorem2(t *testing.T) {
	ctx := context.Background()
	x := randomData(60, 90, 1)
	direct := mustFit(t, ctx, IsoProjection{Dim: 3, K: 8, Solver: IsoProjectionDirect}.Fit, x)
	for _, alpha := range []float64{1e-4, 1e-8, 1e-12} {
		sr := mustFit(t, ctx, IsoProjection{Dim: 3, K: 8, Alpha: alpha, RegressionTol: 1e-15, RegressionIter: 2000}.Fit, x)
		diff := columnsAgree(sr.Projection(), direct.Projection())
		t.Logf("α = %g: largest relative difference of the projections %.3g", alpha, diff)
		if alpha == 1e-12 && diff > 1e-6 {
			t.Errorf("α = %g: regression and direct projections differ by %g", alpha, diff)
		}
		if alpha == 1e-4 && diff < 1e-9 {
			t.Errorf("α = %g: no visible ridge effect (%g): the test cannot tell the solvers apart", alpha, diff)
		}
	}
	// The direct solver satisfies eq. 6: aᵀXXᵀa = 1 for each projection.
	y := direct.Embedding()
	for j := 0; j < 3; j++ {
		col := mat.Col(nil, j, y)
		if n := mat.Norm(mat.NewVecDense(len(col), col), 2); math.Abs(n-1) > 1e-10 {
			t.Errorf("‖Xᵀa_%d‖ = %v, want 1", j, n)
		}
	}
}

// Transform is the linear map X·A, for dense and sparse input alike; the
// regression solver gives the same projection from a *sparse.CSR as from
// the dense matrix; Save/Load round trips.
func TestIsoProjectionTransformSparseSave(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(300, 0.05, 9)
	m := mustFit(t, ctx, IsoProjection{Dim: 2, K: 8}.Fit, x)
	y, err := m.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	var want mat.Dense
	want.Mul(x, m.Projection())
	if !mat.EqualApprox(y, &want, 1e-10) || !mat.EqualApprox(m.Embedding(), &want, 1e-10) {
		t.Error("Transform or the embedding differs from X·A")
	}
	ms, err := IsoProjection{Dim: 2, K: 8}.Fit(ctx, sparse.FromDense(x))
	if err != nil {
		t.Fatal(err)
	}
	if d := columnsAgree(ms.Projection(), m.Projection()); d > 1e-6 {
		t.Errorf("sparse and dense input give projections %g apart", d)
	}
	l := reloaded(t, m)
	y2, err := l.Transform(ctx, sparse.FromDense(x))
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(y, y2, 1e-12) {
		t.Error("loaded model maps differently")
	}
}

// The supervised graph of Table 2, with either between-class geodesic: the
// constant of IsoP.m (the default) or the classes joined by their closest
// pairs.
func TestIsoProjectionSupervised(t *testing.T) {
	for _, between := range []SupervisedGeodesic{SupervisedConstant, SupervisedJoin} {
		t.Run(between.String(), func(t *testing.T) { testIsoProjectionSupervised(t, between) })
	}
}

func testIsoProjectionSupervised(t *testing.T, between SupervisedGeodesic) {
	ctx := context.Background()
	x := loadShared(t, "yale32")
	n, _ := x.Dims()
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i / 11 // 15 people × 11 images, in order
	}
	m := mustFit(t, ctx, IsoProjection{Dim: 14, K: 0, Labels: labels, Between: between}.Fit, x)
	rep := m.Report()
	want := map[SupervisedGeodesic]string{SupervisedConstant: "constant", SupervisedJoin: "connect"}[between]
	if rep.Params["disconnected"] != want || rep.Params["supervised_geodesic"] != between.String() {
		t.Errorf("supervised graph: policy %v, geodesic %v; want %s, %s", rep.Params["disconnected"], rep.Params["supervised_geodesic"], want, between)
	}
	// Points of one class project closer to their class mean than to others':
	// the training accuracy of the nearest class mean is high.
	y := m.Embedding()
	means := mat.NewDense(15, 14, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 14; j++ {
			means.Set(labels[i], j, means.At(labels[i], j)+y.At(i, j)/11)
		}
	}
	right := 0
	for i := 0; i < n; i++ {
		best, bd := -1, math.Inf(1)
		for c := 0; c < 15; c++ {
			d := 0.0
			for j := 0; j < 14; j++ {
				v := y.At(i, j) - means.At(c, j)
				d += v * v
			}
			if d < bd {
				best, bd = c, d
			}
		}
		if best == labels[i] {
			right++
		}
	}
	if acc := float64(right) / float64(n); acc < 0.95 {
		t.Errorf("nearest-class-mean training accuracy %.3f < 0.95", acc)
	}
}

func TestIsoProjectionBadInput(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(30, 0, 1)
	checkRefusals(t, IsoProjection.Fit, x, []refusal[IsoProjection]{
		{IsoProjection{Alpha: -1}, ErrBadSetting},
		{IsoProjection{Dim: 4}, ErrDimension},
		{IsoProjection{Solver: "qr"}, ErrBadSetting},
		{IsoProjection{K: 30}, ErrTooFewSamples},
	})
	if _, err := (IsoProjection{Solver: IsoProjectionDirect}).Fit(ctx, sparse.FromDense(x)); !errors.Is(err, ErrBadSetting) {
		t.Errorf("direct solver on sparse input: %v", err)
	}
}

// The default stops LSQR at DefaultRegressionIter iterations (the papers'
// spectral regression); RegressionToTolerance runs it further, to its
// tolerance; a cap below −1 is refused.
func TestIsoProjectionRegressionIter(t *testing.T) {
	ctx := context.Background()
	x := loadShared(t, "yale32")
	iters := func(m *IsoProjectionModel) int {
		for _, st := range m.Report().Stages {
			if st.Name == "regression" {
				return st.Iterations
			}
		}
		t.Fatal("no regression stage")
		return 0
	}
	def := mustFit(t, ctx, IsoProjection{Dim: 5, K: 5}.Fit, x)
	tol := mustFit(t, ctx, IsoProjection{Dim: 5, K: 5, RegressionIter: RegressionToTolerance}.Fit, x)
	if got := iters(def); got != DefaultRegressionIter || def.Report().Params["regression_iter"] != DefaultRegressionIter {
		t.Errorf("default: %d LSQR iterations (params %v), want the cap %d", got, def.Report().Params["regression_iter"], DefaultRegressionIter)
	}
	if got := iters(tol); got <= DefaultRegressionIter {
		t.Errorf("to tolerance: %d LSQR iterations, want more than the default cap %d on yale32", got, DefaultRegressionIter)
	}
	if _, err := (IsoProjection{Dim: 5, K: 5, RegressionIter: -2}).Fit(ctx, x); !errors.Is(err, ErrBadSetting) {
		t.Errorf("RegressionIter −2: %v, want ErrBadSetting", err)
	}
}

// IsoProjectionEigen, the default of supervised fits, against an
// independent formulation of IsoP.m's problem: τ(D_G) of the supervised
// graph built here as IsoP.m does (Euclidean distances within a class,
// 1000 × the largest of them between classes), the rows centred, and the
// generalized eigenproblem Xᵀτ X·a = λ·(XᵀX + αI)·a solved in feature space
// through the Cholesky factor L of XᵀX + αI (top eigenvectors z of
// L⁻¹·XᵀτX·L⁻ᵀ, a = L⁻ᵀz) — where the engine works in sample space through
// the Gram matrix's eigenvectors. More samples than features and fewer;
// classes of unequal sizes; dense and sparse rows.
func TestIsoProjectionEigenAgainstFeatureSpace(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ n, d, c, dim int }{{45, 12, 5, 4}, {30, 50, 6, 5}} {
		x := randomData(tc.n, tc.d, uint64(tc.n))
		labels := make([]int, tc.n)
		for i := range labels {
			labels[i] = (i * i) % tc.c // unequal class sizes
		}
		const alpha = 0.05
		m := mustFit(t, ctx, IsoProjection{Dim: tc.dim, K: 0, Labels: labels, Alpha: alpha}.Fit, x)
		if got := m.Report().Params["solver"]; got != "eigen" {
			t.Fatalf("supervised dense fit: solver %v, want eigen", got)
		}
		want := isoPFeatureSpace(t, x, labels, alpha, tc.dim)
		// The feature-space route goes through L⁻¹ with cond(XᵀX + αI) up to
		// (σ₁² + α)/α ≈ 10⁴ here: 1e-6 leaves it room (measured: 3.0e-8
		// at d > n, 3.1e-9 at d < n); 2α differs by 0.03–0.1, uncentred
		// rows (before the solver went through solveLGE) by 0.2–0.3.
		if diff := columnsAgree(m.Projection(), want); diff > 1e-6 {
			t.Errorf("n = %d, d = %d: projections differ from the feature-space solution by %.3g", tc.n, tc.d, diff)
		}
		// Unsupervised fits and explicit choices keep their solver.
		if got := mustFit(t, ctx, IsoProjection{Dim: 2, K: 8}.Fit, x).Report().Params["solver"]; got != "regression" {
			t.Errorf("unsupervised fit: solver %v, want regression", got)
		}
		if got := mustFit(t, ctx, IsoProjection{Dim: 2, K: 0, Labels: labels, Solver: IsoProjectionRegression}.Fit, x).Report().Params["solver"]; got != "regression" {
			t.Errorf("supervised fit asking for regression: solver %v", got)
		}
		// Float32 geodesics: the regression (the eigenproblem reads τ in
		// float64, and refuses float32 when asked for).
		if got := mustFit(t, ctx, IsoProjection{Dim: 2, K: 0, Labels: labels, Float32: true}.Fit, x).Report().Params["solver"]; got != "regression" {
			t.Errorf("supervised float32 fit: solver %v, want regression", got)
		}
		if _, err := (IsoProjection{Dim: 2, K: 0, Labels: labels, Float32: true, Solver: IsoProjectionEigen}).Fit(ctx, x); !errors.Is(err, ErrBadSetting) {
			t.Errorf("eigen solver with float32 geodesics: %v, want ErrBadSetting", err)
		}
	}
	// Sparse rows (centred implicitly): the same projections.
	x := randomData(40, 10, 3)
	labels := make([]int, 40)
	for i := range labels {
		labels[i] = i % 4
	}
	dense := mustFit(t, ctx, IsoProjection{Dim: 2, K: 0, Labels: labels}.Fit, x)
	sp := mustFit(t, ctx, IsoProjection{Dim: 2, K: 0, Labels: labels}.Fit, sparse.FromDense(x))
	if got := sp.Report().Params["solver"]; got != "eigen" {
		t.Errorf("supervised sparse fit: solver %v, want eigen", got)
	}
	if diff := columnsAgree(sp.Projection(), dense.Projection()); diff > 1e-8 {
		t.Errorf("sparse and dense rows: projections differ by %.3g", diff)
	}
}

// isoPFeatureSpace solves IsoP.m's regularized eigenproblem in feature
// space (see TestIsoProjectionEigenAgainstFeatureSpace) with the tests'
// reference helpers: τ = refDoubleCentre(S), then refFisher on XᵀτX and
// XᵀX + αI.
func isoPFeatureSpace(t *testing.T, x *mat.Dense, labels []int, alpha float64, dim int) *mat.Dense {
	t.Helper()
	xc := centredCols(x)
	n, d := xc.Dims()
	dist := mat.NewDense(n, n, nil)
	maxD := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if labels[i] == labels[j] {
				var diff mat.VecDense
				diff.SubVec(xc.RowView(i), xc.RowView(j))
				dist.Set(i, j, mat.Norm(&diff, 2))
				maxD = max(maxD, dist.At(i, j))
			}
		}
	}
	s := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := dist.At(i, j)
			if labels[i] != labels[j] {
				v = 1000 * maxD
			}
			s.Set(i, j, v*v)
		}
	}
	var xtx, txt mat.Dense
	xtx.Mul(xc.T(), xc)
	for i := 0; i < d; i++ {
		xtx.Set(i, i, xtx.At(i, i)+alpha)
	}
	txt.Product(xc.T(), refDoubleCentre(s), xc)
	_, c, linv := refFisher(t, &txt, symmetrized(&xtx))
	top := mat.NewDense(d, dim, nil)
	for j := 0; j < dim; j++ {
		top.SetCol(j, mat.Col(nil, d-1-j, c))
	}
	var a mat.Dense
	a.Mul(linv.T(), top)
	return &a
}
