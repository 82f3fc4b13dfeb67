package engine_test

import (
	"context"
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// LSI against scikit-learn's TruncatedSVD(algorithm='arpack'): singular
// values, components (scikit-learn 1.2 signs its vectors by U, the engine
// by V: compared up to sign), fit_transform = U·Σ and transform = X·V.
func TestLSIAgainstSklearn(t *testing.T) {
	ctx := context.Background()
	f := loadBaseFixture(t, "lsi_random")
	a := f.A.csr()
	var comp mat.Dense
	comp.CloneFrom(rowsToDense(f.Components).T())
	for _, in := range []mat.Matrix{a, a.ToDense()} {
		for _, solver := range []engine.Eigensolver{engine.EigenDense, engine.EigenLanczos} {
			m := engine.MustFit(t, ctx, engine.LSI{Dim: f.Dim, Eigensolver: solver}.Fit, in)
			if e := relErr(f.SingularValues, m.SingularValues()); e > 1e-10 {
				t.Errorf("%s: singular values %v, scikit-learn %v", solver, m.SingularValues(), f.SingularValues)
			}
			if e := colsUpToSign(t, &comp, m.Components()); e > 1e-8 {
				t.Errorf("%s: components differ by %g", solver, e)
			}
			if e := colsUpToSign(t, rowsToDense(f.Embedding), m.Embedding()); e > 1e-8 {
				t.Errorf("%s: embedding differs by %g", solver, e)
			}
			y, err := m.Transform(ctx, f.ANew.csr())
			if err != nil {
				t.Fatal(err)
			}
			if e := colsUpToSign(t, rowsToDense(f.Transform), y); e > 1e-8 {
				t.Errorf("%s: transform differs by %g", solver, e)
			}
			yt, err := m.Transform(ctx, in)
			if err != nil || !mat.Equal(yt, m.Embedding()) {
				t.Errorf("%s: Transform of the training rows differs from the embedding (%v)", solver, err)
			}
		}
	}
	t.Run("reuters", func(t *testing.T) {
		testmode.Skip(t, "Reuters-21578")
		f := loadBaseFixture(t, "reuters_lsi")
		a := loadReuters(t)
		m := engine.MustFit(t, ctx, engine.LSI{Dim: f.Dim}.Fit, a)
		rep := m.Report()
		t.Logf("\n%s", rep.Table())
		if e := relErr(f.SingularValues, m.SingularValues()); e > 1e-9 {
			t.Errorf("singular values %v, scikit-learn %v", m.SingularValues(), f.SingularValues)
		}
		if e := colsUpToSign(t, rowsToDense(f.Embedding), m.Embedding().Slice(0, len(f.Embedding), 0, f.Dim)); e > 1e-6 {
			t.Errorf("embedding differs by %g", e)
		}
	})
}

func TestLSISaveAndErrors(t *testing.T) {
	ctx := context.Background()
	a := loadBaseFixture(t, "lsi_random").A.csr()
	m := engine.MustFit(t, ctx, engine.LSI{Dim: 3}.Fit, a)
	l := reloaded(t, m)
	y1, _ := m.Transform(ctx, a)
	y2, err := l.Transform(ctx, a.ToDense())
	if err != nil || !mat.EqualApprox(y1, y2, 1e-12) {
		t.Errorf("loaded model maps dense rows differently (%v)", err)
	}
	if _, err := l.Transform(ctx, mat.NewDense(2, 3, nil)); !errors.Is(err, engine.ErrShape) {
		t.Errorf("3 features: %v", err)
	}
	for _, c := range []struct {
		s    engine.LSI
		x    mat.Matrix
		want error
	}{
		{engine.LSI{Dim: 301}, a, engine.ErrDimension},
		{engine.LSI{Dim: -1}, a, engine.ErrBadSetting},
		{engine.LSI{Eigensolver: "qr"}, a, engine.ErrBadSetting},
		{engine.LSI{Dim: 3}, sparse.Zero(4, 5), engine.ErrDimension},
		{engine.LSI{}, sparse.Zero(0, 5), engine.ErrEmpty},
	} {
		if _, err := c.s.Fit(ctx, c.x); !errors.Is(err, c.want) {
			t.Errorf("%+v: error %v, want %v", c.s, err, c.want)
		}
	}
}
