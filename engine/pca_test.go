package engine_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/internal/testmode"
)

func TestPCAAgainstSklearn(t *testing.T) {
	testmode.Skip(t, "three solvers against scikit-learn's fixtures (Yale faces)")
	eachFixture(t, loadFixture, []string{"swiss_pca", "yale_pca"}, func(t *testing.T, f fixture, x *mat.Dense) {
		want := rowsToDense(f.Embedding)
		for _, solver := range []engine.PCASolver{engine.PCAAuto, engine.PCACovariance, engine.PCAGram} {
			m := engine.MustFit(t, context.Background(), engine.PCA{Dim: f.Dim, Solver: solver}.Fit, x)
			if d := procrustes(t, want, m.Embedding()); d > 1e-8 {
				t.Errorf("solver %q: Procrustes disparity to scikit-learn %g > 1e-8", solver, d)
			}
			// Per component, up to sign: PCA is unique when the variances are distinct.
			emb := m.Embedding()
			n, _ := emb.Dims()
			for j := 0; j < f.Dim; j++ {
				dot, na, nb := 0.0, 0.0, 0.0
				for i := 0; i < n; i++ {
					dot += emb.At(i, j) * want.At(i, j)
					na += emb.At(i, j) * emb.At(i, j)
					nb += want.At(i, j) * want.At(i, j)
				}
				if c := math.Abs(dot) / math.Sqrt(na*nb); 1-c > 1e-9 {
					t.Errorf("solver %q: component %d: |cos| with scikit-learn = %v", solver, j, c)
				}
			}
			for j, r := range m.ExplainedVarianceRatio() {
				if math.Abs(r-f.EVR[j]) > 1e-9*f.EVR[j] {
					t.Errorf("solver %q: explained variance ratio %d = %v, scikit-learn %v", solver, j, r, f.EVR[j])
				}
			}
		}
	})
}

// Transforming the training data reproduces the embedding; reconstructing a
// full-rank projection returns the data; Save/Load round trips.
func TestPCATransformReconstructSave(t *testing.T) {
	f := loadFixture(t, "swiss_pca")
	x := f.input(t)
	m := engine.MustFit(t, context.Background(), engine.PCA{Dim: 3}.Fit, x)
	y := checkMapsTraining(t, m, x, 1e-10)
	back, err := m.Reconstruct(y)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(back, x, 1e-9) {
		t.Error("Reconstruct(Transform(x)) ≠ x with all 3 components")
	}
	checkReloaded(t, m, x)
	loaded := reloaded(t, m)
	if loaded.Method() != "pca" || loaded.Report().Method != "pca" {
		t.Errorf("loaded model: method %q, report %q", loaded.Method(), loaded.Report().Method)
	}
}

func TestPCABadInput(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		x    mat.Matrix
		s    engine.PCA
		want error
	}{
		{"one sample", mat.NewDense(1, 3, []float64{1, 2, 3}), engine.PCA{Dim: 1}, engine.ErrTooFewSamples},
		{"NaN", mat.NewDense(3, 2, []float64{1, 2, math.NaN(), 4, 5, 6}), engine.PCA{Dim: 1}, engine.ErrNotFinite},
		{"dim > features", mat.NewDense(5, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 1}), engine.PCA{Dim: 3}, engine.ErrDimension},
		{"dim < 0", mat.NewDense(5, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 1}), engine.PCA{Dim: -1}, engine.ErrBadSetting},
		{"constant rows", mat.NewDense(4, 2, []float64{1, 1, 1, 1, 1, 1, 1, 1}), engine.PCA{Dim: 1}, engine.ErrDimension},
		{"rank 1 asked 2", mat.NewDense(4, 2, []float64{1, 2, 2, 4, 3, 6, 4, 8}), engine.PCA{Dim: 2}, engine.ErrDimension},
		{"bad solver", mat.NewDense(4, 2, []float64{1, 2, 2, 5, 3, 6, 4, 8}), engine.PCA{Dim: 1, Solver: "qr"}, engine.ErrBadSetting},
		// 99 equal rows and one apart, 10 features: before, the dense
		// eigensolver failed on the covariance's null directions
		// ("inverse iteration … did not converge", ErrNumerical).
		{"duplicates, rank 1", duplicateRows(100, 10), engine.PCA{Dim: 2}, engine.ErrDimension},
	}
	for _, c := range cases {
		_, err := c.s.Fit(ctx, c.x)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
	m, err := engine.PCA{Dim: 1}.Fit(ctx, mat.NewDense(4, 2, []float64{1, 2, 2, 5, 3, 6, 4, 8}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Transform(ctx, mat.NewDense(1, 3, nil)); !errors.Is(err, engine.ErrShape) {
		t.Errorf("Transform with 3 features: error %v, want ErrShape", err)
	}
}

// duplicateRows is n rows of d zeros but the last, of ones.
func duplicateRows(n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for j := 0; j < d; j++ {
		x.Set(n-1, j, 1)
	}
	return x
}
