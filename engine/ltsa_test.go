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

// Equal to scikit-learn's LocallyLinearEmbedding(method='ltsa') (dense
// eigensolver): unit eigenvectors, compared up to sign column by column and
// by Procrustes.
func TestLTSAAgainstSklearn(t *testing.T) {
	eachFixture(t, loadBaseFixture, []string{"swiss_ltsa", "yale_ltsa"}, func(t *testing.T, f fixture, x *mat.Dense) {
		want := rowsToDense(f.Embedding)
		for _, solver := range []engine.Eigensolver{engine.EigenDense, engine.EigenLanczos} {
			m := engine.MustFit(t, context.Background(), engine.LTSA{Dim: f.Dim, K: f.K, Eigensolver: solver}.Fit, x)
			d := procrustes(t, want, m.Embedding())
			e := colsUpToSign(t, want, m.Embedding())
			t.Logf("%s: disparity %.3g, largest column difference %.3g; %s", solver, d, e, stageDetail(m.Report(), "eigensolve"))
			if d > 1e-9 || e > 1e-6 {
				t.Errorf("%s: Procrustes disparity %g (> 1e-9) or column difference %g (> 1e-6) to scikit-learn", solver, d, e)
			}
		}
	})
}

func TestLTSATransformAndSave(t *testing.T) {
	ctx := context.Background()
	n := 800
	if testmode.Quick() {
		n = 600 // -race
	}
	x, _ := datasets.SwissRoll(n, 0.02, 9)
	heldOut(t, func(x *mat.Dense) (engine.Model, error) {
		return asModel(engine.LTSA{Dim: 2, K: 10}.Fit(ctx, x))
	}, x, 0.02)
	m := engine.MustFit(t, ctx, engine.LTSA{Dim: 2, K: 10}.Fit, x)
	checkMapsTraining(t, m, x, 0)
	// Sparse rows: the same embedding and the same mapping.
	ms, err := engine.LTSA{Dim: 2, K: 10}.Fit(ctx, sparse.FromDense(x))
	if err != nil {
		t.Fatal(err)
	}
	if e := colsUpToSign(t, m.Embedding(), ms.Embedding()); e > 1e-8 {
		t.Errorf("sparse rows: embedding differs by %g", e)
	}
	q := mat.NewDense(2, 3, []float64{1, 2, 3, -4, 5, 6})
	yd, _ := m.Transform(ctx, q)
	ys, err := ms.Transform(ctx, sparse.FromDense(q))
	if err != nil {
		t.Fatal(err)
	}
	if e := colsUpToSign(t, yd, ys); e > 1e-6 {
		t.Errorf("sparse model maps new points differently: %g", e)
	}
	l := reloaded(t, ms)
	yl, err := l.Transform(ctx, q)
	if err != nil || !mat.Equal(yl, ys) {
		t.Errorf("loaded model maps differently (%v)", err)
	}
}

func TestLTSABadInput(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(20, 0, 1)
	checkRefusals(t, engine.LTSA.Fit, x, []refusal[engine.LTSA]{
		{engine.LTSA{K: 20}, engine.ErrTooFewSamples},
		{engine.LTSA{K: -1}, engine.ErrBadSetting},
		{engine.LTSA{Dim: 5, K: 5}, engine.ErrBadSetting},
		{engine.LTSA{Dim: 19, K: 19}, engine.ErrDimension},
		{engine.LTSA{Eigensolver: "qr"}, engine.ErrBadSetting},
	})
	bad := mat.NewDense(20, 3, nil)
	bad.Copy(x)
	bad.Set(3, 1, math.NaN())
	if _, err := (engine.LTSA{}).Fit(ctx, bad); !errors.Is(err, engine.ErrNotFinite) {
		t.Errorf("NaN input: %v", err)
	}
}
