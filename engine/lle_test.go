package engine_test

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
)

func TestLLEAgainstSklearn(t *testing.T) {
	eachFixture(t, loadFixture, []string{"swiss_lle", "yale_lle"}, func(t *testing.T, f fixture, x *mat.Dense) {
		for _, solver := range []engine.Eigensolver{engine.EigenDense, engine.EigenLanczos} {
			m := engine.MustFit(t, context.Background(), engine.LLE{Dim: f.Dim, K: f.K, Reg: f.Reg, Eigensolver: solver}.Fit, x)
			d := procrustes(t, rowsToDense(f.Embedding), m.Embedding())
			t.Logf("%s: disparity %.3g, %s", solver, d, m.Report().Stages[len(m.Report().Stages)-1].Detail)
			if d > 1e-3 {
				t.Errorf("%s: Procrustes disparity to scikit-learn %g > 1e-3", solver, d)
			}
		}
	})
}

func TestLLETransformAndSave(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(400, 0.05, 5)
	m := engine.MustFit(t, ctx, engine.LLE{Dim: 2, K: 10}.Fit, x)
	checkMapsTraining(t, m, x, 1e-12)
	// A point halfway between two neighbours lands between their images.
	q := mat.NewDense(1, 3, nil)
	for j := 0; j < 3; j++ {
		q.Set(0, j, 0.999*x.At(0, j)+0.001*x.At(1, j))
	}
	yq := transformed(t, m, q)
	e := m.Embedding()
	for j := 0; j < 2; j++ {
		if d := yq.At(0, j) - e.At(0, j); d*d > 1e-2 {
			t.Errorf("a point next to training point 0 maps %v away from it", d)
		}
	}
	checkReloaded(t, m, q)
}

func TestLLEBadInput(t *testing.T) {
	x, _ := datasets.SwissRoll(15, 0, 1)
	checkRefusals(t, engine.LLE.Fit, x, []refusal[engine.LLE]{
		{engine.LLE{K: 15}, engine.ErrTooFewSamples},
		{engine.LLE{Reg: -1}, engine.ErrBadSetting},
		{engine.LLE{Dim: 14}, engine.ErrDimension},
	})
}
