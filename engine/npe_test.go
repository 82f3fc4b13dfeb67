package engine_test

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/sparse"
)

// NPE against X·M·Xᵀ·a = λ·X·Xᵀ·a with scikit-learn's barycenter weights,
// solved by scipy.linalg.eigh(A, B) (swiss roll) and numpy's SVD route
// (Yale faces, D > N); dense and sparse rows.
func TestNPEAgainstReference(t *testing.T) {
	ctx := context.Background()
	f := loadBaseFixture(t, "swiss_npe")
	x := rowsToDense(f.X)
	for _, in := range []mat.Matrix{x, sparse.FromDense(x)} {
		m := engine.MustFit(t, ctx, engine.NPE{Dim: f.Dim, K: f.K, Reg: f.Reg}.Fit, in)
		checkLinearReference(t, f, m, 1e-7, 1e-7, true)
	}
	t.Run("yale_npe", func(t *testing.T) {
		f := loadBaseFixture(t, "yale_npe")
		x := f.input(t)
		for _, in := range []mat.Matrix{x, sparse.FromDense(x)} {
			m := engine.MustFit(t, ctx, engine.NPE{Dim: f.Dim, K: f.K, Reg: f.Reg}.Fit, in)
			checkLinearReference(t, f, m, 1e-6, 1e-6, false)
		}
	})
}

func TestNPETransformAndSave(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(300, 0.05, 3)
	labels := make([]int, 300)
	for i := range labels {
		labels[i] = i % 3
	}
	m := engine.MustFit(t, ctx, engine.NPE{Dim: 2, K: 6, Labels: labels}.Fit, x)
	y := checkMapsTraining(t, m, x, 0)
	l := reloaded(t, m)
	if _, ok := l.(*engine.NPEModel); !ok {
		t.Fatalf("loaded %T", l)
	}
	yl, err := l.Transform(ctx, sparse.FromDense(x))
	if err != nil || !mat.EqualApprox(yl, y, 1e-12) {
		t.Errorf("loaded model maps sparse rows differently (%v)", err)
	}
}

func TestNPEBadInput(t *testing.T) {
	x, _ := datasets.SwissRoll(20, 0, 1)
	checkRefusals(t, engine.NPE.Fit, x, []refusal[engine.NPE]{
		{engine.NPE{K: 20}, engine.ErrTooFewSamples},
		{engine.NPE{K: -1}, engine.ErrBadSetting},
		{engine.NPE{Dim: 4}, engine.ErrDimension},
		{engine.NPE{Reg: -1}, engine.ErrBadSetting},
		{engine.NPE{Eps: 1e-9}, engine.ErrBadSetting}, // no neighbour within ε
		{engine.NPE{Labels: []int{1, 2}}, engine.ErrLabels},
		{engine.NPE{Labels: append([]int{7}, make([]int, 19)...)}, engine.ErrLabels}, // a class of one
	})
}
