package engine_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/enginetest"
)

// TestFarAwayPoints: every method's Transform of points far from the
// training data, up to 1e300, returns finite coordinates or an error of
// the engine's kinds (ErrNotFinite for points past the range), never NaN
// or Inf, and never an untyped error.
func TestFarAwayPoints(t *testing.T) {
	ctx := context.Background()
	x, labels := engine.RelData(60, 3, 5)
	_, d := x.Dims()
	for _, m := range enginetest.Methods {
		mod, err := relFit(ctx, m, x, enginetest.Settings{}, labels)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		for _, scale := range []float64{1e3, 1e19, 1e20, 1e40, 1e100, 1e152, 1e155, 1e200, 1e300} {
			q := mat.NewDense(3, d, nil)
			for j := 0; j < d; j++ {
				q.Set(0, j, scale)
				q.Set(1, j, -scale*float64(j+1)/float64(d))
				q.Set(2, j, x.At(0, j))
			}
			q.Set(2, 0, scale)
			y, err := mod.Transform(ctx, q)
			switch {
			case errors.Is(err, engine.ErrNoTransform):
			case err != nil:
				if engineKind(err) == nil {
					t.Errorf("%s at %g: untyped error %v", m.Name, scale, err)
				}
			case !allFinite(y):
				t.Errorf("%s at %g: output not finite: %v", m.Name, scale, mat.Formatted(y))
			}
		}
	}
}

// TestLandmarkIsomapHugeScale: data scaled to 1e20 (squared geodesics past
// the float32 range) embed as the unscaled data do, scaled; new points of
// that scale map finitely.
func TestLandmarkIsomapHugeScale(t *testing.T) {
	ctx := context.Background()
	x, _ := engine.RelData(200, 3, 7)
	fit := func(x mat.Matrix) *engine.LandmarkIsomapModel {
		m := engine.MustFit(t, ctx, engine.LandmarkIsomap{Dim: 2, K: 8, Landmarks: 40}.Fit, x)
		return m
	}
	base := fit(x)
	for _, s := range []float64{1e20, 1e100, 1e140} {
		var xs mat.Dense
		xs.Scale(s, x)
		m := fit(&xs)
		y, yb := m.Embedding(), base.Embedding()
		r, c := y.Dims()
		worst := 0.0
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				worst = max(worst, math.Abs(math.Abs(y.At(i, j)/s)-math.Abs(yb.At(i, j))))
			}
		}
		if !(worst <= 1e-4*mat.Norm(yb, math.Inf(1))) {
			t.Errorf("scale %g: embedding/scale differs from the unscaled one by %g", s, worst)
		}
		out, err := m.Transform(ctx, &xs)
		if err != nil || !allFinite(out) {
			t.Fatalf("scale %g: Transform of the training data: %v", s, err)
		}
		if diff := maxAbsDiff(out, y); diff > 1e-4*mat.Norm(y, math.Inf(1)) {
			t.Errorf("scale %g: training points map %g away from their embedding", s, diff)
		}
	}
}
