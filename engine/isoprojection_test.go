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
