package engine_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/manifoldlab/manifold/engine"
	"gonum.org/v1/gonum/mat"
)

// LDA's default (svd) solver on rank-deficient data — constant pixels, a
// pixel that is the sum of two others, duplicated images — against
// scikit-learn's LinearDiscriminantAnalysis(solver='svd') (fixtures made by
// testdata/make_fixtures_lda_svd.py): the same transform of new points
// column by column up to sign and the fixed factor √(N/(N − c)) (ours
// normalizes Wᵀ(S_W/N)W = I, scikit-learn Wᵀ(S_W/(N − c))W = I), and the
// same predictions (balanced classes). The Fisherfaces solver refuses the
// same data (S_W singular).
func TestLDASVDAgainstSklearn(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"lda_svd_digits", "lda_svd_wide"} {
		t.Run(name, func(t *testing.T) {
			f := loadLDAFixture(t, name)
			x := rowsToDense(f.X)
			n, _ := x.Dims()
			if _, err := (engine.LDA{Labels: f.Y, Solver: engine.LDAFisherfaces}).Fit(ctx, x); !errors.Is(err, engine.ErrNumerical) {
				t.Fatalf("fisherfaces on singular S_W: %v, want ErrNumerical (the fixture must be rank-deficient)", err)
			}
			m, err := engine.LDA{Labels: f.Y}.Fit(ctx, x)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Report().Params["solver"]; got != "svd" {
				t.Errorf("default solver %v, want svd", got)
			}
			c := f.Dim + 1
			fac := math.Sqrt(float64(n) / float64(n-c))
			y, err := m.Transform(ctx, rowsToDense(f.XNew))
			if err != nil {
				t.Fatal(err)
			}
			sk := rowsToDense(f.Transform)
			for j := 0; j < f.Dim; j++ {
				sign := math.Copysign(1, mat.Dot(y.ColView(j), sk.ColView(j)))
				var dv mat.VecDense
				dv.AddScaledVec(y.ColView(j), -sign*fac, sk.ColView(j))
				if e := mat.Norm(&dv, 2) / (fac * mat.Norm(sk.ColView(j), 2)); e > 1e-7 {
					t.Errorf("transform column %d differs from ±√(N/(N−c))·scikit-learn's by %.3g (relative)", j, e)
				}
			}
			pred, err := m.Predict(ctx, rowsToDense(f.XNew))
			if err != nil {
				t.Fatal(err)
			}
			for i := range pred {
				if pred[i] != f.Predict[i] {
					t.Errorf("predict[%d] = %d, scikit-learn %d", i, pred[i], f.Predict[i])
				}
			}
		})
	}
}
