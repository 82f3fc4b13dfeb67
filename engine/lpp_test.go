package engine_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// LPP against the generalized eigenproblem X·L·Xᵀ·a = λ·X·D·Xᵀ·a solved by
// scipy.linalg.eigh(A, B) (the swiss roll, D < N) and by numpy's SVD route
// (the Yale faces, D > N; supervised; with a PCA step of 50 directions):
// eigenvalues, projections (up to sign), embedding, new points.
func TestLPPAgainstReference(t *testing.T) {
	ctx := context.Background()
	f := loadBaseFixture(t, "swiss_lpp")
	x := rowsToDense(f.X)
	for _, in := range []mat.Matrix{x, sparse.FromDense(x)} {
		m := engine.MustFit(t, ctx, engine.LPP{Dim: f.Dim, K: f.K}.Fit, in)
		if got := m.Report().Params["t"].(float64); math.Abs(got-f.T) > 1e-12*f.T {
			t.Errorf("heat kernel t = %v, reference %v", got, f.T)
		}
		if e := relErr(f.Mean, m.Mean()); e > 1e-12 {
			t.Errorf("weighted mean %v, reference %v", m.Mean(), f.Mean)
		}
		checkLinearReference(t, f, m, 1e-9, 1e-8, true)
	}
	for _, c := range []struct {
		name       string
		supervised bool
	}{{"yale_lpp", false}, {"yale_lpp_supervised", true}, {"yale_lpp_pca50", false}} {
		t.Run(c.name, func(t *testing.T) {
			f := loadBaseFixture(t, c.name)
			x := f.input(t)
			s := engine.LPP{Dim: f.Dim, K: f.K, PCADim: f.PCADim}
			if c.supervised {
				s.Labels = loadSharedLabels(t, f.Tag)
			}
			m := engine.MustFit(t, ctx, s.Fit, x)
			t.Logf("%s", stageDetail(m.Report(), "svd"))
			checkLinearReference(t, f, m, 1e-7, 1e-6, false)
		})
	}
}

// A supervised graph with D > N and every singular direction kept: the
// class indicators are linear functions of the faces, so the C − 1 = 14
// leading projections have λ = 0 and map every face to its class's point.
func TestLPPSupervisedSeparatesClasses(t *testing.T) {
	x := loadShared(t, "yale32")
	labels := loadSharedLabels(t, "yale32")
	m := engine.MustFit(t, context.Background(), engine.LPP{Dim: 14, K: 0, Labels: labels}.Fit, x)
	for _, v := range m.Eigenvalues() {
		if math.Abs(v) > 1e-9 {
			t.Fatalf("eigenvalues %v, want 14 zeros", m.Eigenvalues())
		}
	}
	y := m.Embedding()
	first := map[int]int{}
	worst, scale := 0.0, mat.Norm(y, math.Inf(1))
	for i, l := range labels {
		f, ok := first[l]
		if !ok {
			first[l] = i
			continue
		}
		for j := 0; j < 14; j++ {
			worst = math.Max(worst, math.Abs(y.At(i, j)-y.At(f, j)))
		}
	}
	if worst > 1e-7*scale {
		t.Errorf("points of one class map up to %g apart (scale %g)", worst, scale)
	}
}

// With D > N and every singular direction kept, the constraint y = Xᵀa is
// void and LPP's training embedding is the Laplacian eigenmap of the same
// graph (both normalised by yᵀDy = 1, both D-orthogonal to 1), with the
// same eigenvalues: an independent check of the SVD route.
func TestLPPEqualsLaplacianWhenDExceedsN(t *testing.T) {
	ctx := context.Background()
	x := loadShared(t, "yale32")
	lpp := engine.MustFit(t, ctx, engine.LPP{Dim: 4, K: 6}.Fit, x)
	le := engine.MustFit(t, ctx, engine.LaplacianEigenmaps{Dim: 4, K: 6, Eigensolver: engine.EigenDense}.Fit, x)
	if e := relErr(le.Eigenvalues(), lpp.Eigenvalues()); e > 1e-8 {
		t.Errorf("eigenvalues: LPP %v, Laplacian eigenmaps %v", lpp.Eigenvalues(), le.Eigenvalues())
	}
	if e := colsUpToSign(t, le.Embedding(), lpp.Embedding()); e > 1e-6 {
		t.Errorf("LPP's embedding differs from the Laplacian eigenmap by %g", e)
	}
}

// Transforming the training rows gives the embedding; sparse and dense rows
// give the same model; Save/Load keeps it; the model maps sparse rows.
func TestLPPTransformSparseAndSave(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(500, 0.05, 3)
	m := engine.MustFit(t, ctx, engine.LPP{Dim: 2, K: 8, Weight: engine.WeightBinary}.Fit, x)
	y := checkMapsTraining(t, m, x, 0)
	ys, err := m.Transform(ctx, sparse.FromDense(x))
	if err != nil || !mat.EqualApprox(ys, y, 1e-12) {
		t.Errorf("Transform of sparse rows differs (%v)", err)
	}
	l := reloaded(t, m)
	if _, ok := l.(*engine.LPPModel); !ok || l.Method() != "lpp" {
		t.Fatalf("loaded %T %q", l, l.Method())
	}
	yl, err := l.Transform(ctx, x)
	if err != nil || !mat.Equal(yl, y) {
		t.Errorf("loaded model maps differently (%v)", err)
	}
	if _, err := l.Transform(ctx, mat.NewDense(1, 2, nil)); !errors.Is(err, engine.ErrShape) {
		t.Errorf("2 features: %v, want ErrShape", err)
	}
}

// On the Reuters-21578 documents (unit length, sparse, 8293 × 18933) LPP
// and NPE run on the sparse rows with the truncated SVD step: LPP's
// eigenvalues are ascending in [0, 2], NPE's embedding is orthonormal
// (aᵀ·X·Xᵀ·a = 1 after centring).
func TestLPPNPEReuters(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "Reuters-21578 fit")
	ctx := context.Background()
	a := loadReuters(t)
	m := engine.MustFit(t, ctx, engine.LPP{Dim: 5, K: 5, PCADim: 40, Weight: engine.WeightCosine}.Fit, a)
	rep := m.Report()
	t.Logf("LPP:\n%s", rep.Table())
	for j, v := range m.Eigenvalues() {
		if v < -1e-9 || v > 2 || (j > 0 && v < m.Eigenvalues()[j-1]) {
			t.Errorf("LPP eigenvalues %v: not ascending in [0, 2]", m.Eigenvalues())
		}
	}
	n := engine.MustFit(t, ctx, engine.NPE{Dim: 5, K: 5, PCADim: 40}.Fit, a)
	rep = n.Report()
	t.Logf("NPE:\n%s", rep.Table())
	yn := n.Embedding()
	var g mat.Dense
	g.Mul(yn.T(), yn)
	if !mat.EqualApprox(&g, eye(5), 1e-8) {
		t.Errorf("NPE: YᵀY = %v, want I", mat.Formatted(&g))
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

func TestLPPBadInput(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(20, 0, 1)
	checkRefusals(t, engine.LPP.Fit, x, []refusal[engine.LPP]{
		{engine.LPP{K: 20}, engine.ErrTooFewSamples},
		{engine.LPP{K: -1}, engine.ErrBadSetting},
		{engine.LPP{Dim: 4}, engine.ErrDimension},
		{engine.LPP{Weight: "gaussian"}, engine.ErrBadSetting},
		{engine.LPP{PCADim: -1}, engine.ErrBadSetting},
		{engine.LPP{Labels: []int{1}}, engine.ErrLabels},
		{engine.LPP{Labels: classEach(20)}, engine.ErrLabels}, // no edge (was: "rank 0")
	})
	// Points on a line: the centred data have rank 1.
	line := mat.NewDense(20, 3, nil)
	for i := 0; i < 20; i++ {
		line.SetRow(i, []float64{float64(i), 2 * float64(i), -float64(i)})
	}
	if _, err := (engine.LPP{Dim: 2, K: 3}).Fit(ctx, line); !errors.Is(err, engine.ErrDimension) {
		t.Errorf("rank-1 data: %v, want ErrDimension", err)
	}
}
