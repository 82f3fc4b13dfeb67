package engine_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/internal/testmode"
)

func TestMDSAgainstSklearn(t *testing.T) {
	eachFixture(t, loadFixture, []string{"swiss_mds", "yale_mds"}, func(t *testing.T, f fixture, x *mat.Dense) {
		m := engine.MustFit(t, context.Background(), engine.MDS{Dim: f.Dim}.Fit, x)
		if d := procrustes(t, rowsToDense(f.Embedding), m.Embedding()); d > 1e-8 {
			t.Errorf("Procrustes disparity to scikit-learn %g > 1e-8", d)
		}
	})
}

// Classical MDS of Euclidean distances is PCA: the same embedding up to the
// sign of each axis, and triangulation of new points equals their PCA
// projection (de Silva & Tenenbaum). Fitting the distance matrix gives the
// same model as fitting the data.
func TestMDSIsPCAAndTriangulates(t *testing.T) {
	ctx := context.Background()
	f := loadFixture(t, "swiss_mds")
	x := f.input(t)
	n, d := x.Dims()
	train := x.Slice(0, n-50, 0, d).(*mat.Dense)
	test := x.Slice(n-50, n, 0, d).(*mat.Dense)
	mds := engine.MustFit(t, ctx, engine.MDS{Dim: 2}.Fit, train)
	pca := engine.MustFit(t, ctx, engine.PCA{Dim: 2}.Fit, train)
	ym, err := mds.Transform(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	yp, err := pca.Transform(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]*mat.Dense{{mds.Embedding(), pca.Embedding()}, {ym, yp}} {
		a, b := pair[0], pair[1]
		r, c := a.Dims()
		for j := 0; j < c; j++ {
			sign := 1.0
			if a.At(0, j)*b.At(0, j) < 0 {
				sign = -1
			}
			for i := 0; i < r; i++ {
				if math.Abs(a.At(i, j)-sign*b.At(i, j)) > 1e-8 {
					t.Fatalf("MDS and PCA differ at [%d,%d]: %v vs %v", i, j, a.At(i, j), sign*b.At(i, j))
				}
			}
		}
	}
	checkMapsTraining(t, mds, train, 1e-8)
	// From the distance matrix.
	nt, _ := train.Dims()
	dist := mat.NewDense(nt, nt, nil)
	for i := 0; i < nt; i++ {
		for j := 0; j < nt; j++ {
			var diff mat.VecDense
			diff.SubVec(train.RowView(i), train.RowView(j))
			dist.Set(i, j, mat.Norm(&diff, 2))
		}
	}
	md, err := engine.MDS{Dim: 2}.FitDistances(ctx, dist)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(md.Embedding(), mds.Embedding(), 1e-8) {
		t.Error("FitDistances differs from Fit")
	}
	if _, err := md.Transform(ctx, test); !errors.Is(err, engine.ErrNoTransform) {
		t.Errorf("Transform of a distance-fitted model: error %v, want ErrNoTransform", err)
	}
	checkReloaded(t, mds, test)
}

func TestMDSBadInput(t *testing.T) {
	ctx := context.Background()
	if _, err := (engine.MDS{Dim: 1}).FitDistances(ctx, mat.NewDense(2, 3, nil)); !errors.Is(err, engine.ErrShape) {
		t.Errorf("non-square distances: %v", err)
	}
	if _, err := (engine.MDS{Dim: 1}).FitDistances(ctx, mat.NewDense(2, 2, []float64{0, -1, -1, 0})); !errors.Is(err, engine.ErrBadSetting) {
		t.Errorf("negative distances: %v", err)
	}
	if _, err := (engine.MDS{Dim: 3}).Fit(ctx, mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 1})); !errors.Is(err, engine.ErrDimension) {
		t.Errorf("dim ≥ N: %v", err)
	}
	// Three collinear points support one dimension, not two.
	if _, err := (engine.MDS{Dim: 2}).Fit(ctx, mat.NewDense(4, 2, []float64{0, 0, 1, 1, 2, 2, 3, 3})); !errors.Is(err, engine.ErrDimension) {
		t.Errorf("collinear points, dim 2: %v", err)
	}
}

// TestMDSRepeatedEigenvalues: points on a 30×30 square grid and a
// 10×10×10 cube, whose τ has its top eigenvalue twice and three times (the
// axes have equal variance). The default eigensolver at these sizes is
// Lanczos, whose single-vector Krylov space finds one copy of a repeated
// eigenvalue: before the lanczos package's copies check, both fits failed
// with "only 1 of the 2 requested dimensions have a positive eigenvalue".
// The eigenvalues equal the dense solver's, and the embedding's columns
// are orthogonal.
func TestMDSRepeatedEigenvalues(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "repeated eigenvalues at 900 and 1000 points (numerics, not concurrency)")
	ctx := context.Background()
	grid := mat.NewDense(900, 2, nil)
	for i := 0; i < 900; i++ {
		grid.Set(i, 0, float64(i/30))
		grid.Set(i, 1, float64(i%30))
	}
	cube := mat.NewDense(1000, 3, nil)
	for i := 0; i < 1000; i++ {
		cube.Set(i, 0, float64(i/100))
		cube.Set(i, 1, float64(i/10%10))
		cube.Set(i, 2, float64(i%10))
	}
	for name, x := range map[string]*mat.Dense{"grid": grid, "cube": cube} {
		for _, dim := range []int{2, 3} {
			if dim > x.RawMatrix().Cols {
				continue
			}
			m, err := engine.MDS{Dim: dim}.Fit(ctx, x)
			if err != nil {
				t.Fatalf("%s, dim %d: %v", name, dim, err)
			}
			ref, err := engine.MDS{Dim: dim, Eigensolver: engine.EigenDense}.Fit(ctx, x)
			if err != nil {
				t.Fatal(err)
			}
			got, want := m.Eigenvalues(), ref.Eigenvalues()
			for j := range want {
				if math.Abs(got[j]-want[j]) > 1e-9*want[0] {
					t.Errorf("%s, dim %d: eigenvalues %v, the dense solver's %v", name, dim, got, want)
					break
				}
			}
			var g mat.Dense
			y := m.Embedding()
			g.Mul(y.T(), y)
			for a := 0; a < dim; a++ {
				for b := 0; b < a; b++ {
					if math.Abs(g.At(a, b)) > 1e-9*g.At(0, 0) {
						t.Errorf("%s, dim %d: columns %d and %d not orthogonal (%g)", name, dim, a, b, g.At(a, b))
					}
				}
			}
		}
	}
}

// FitDistances checks the distances tile by tile in parallel and still
// names the first failing pair in row order (i ≤ j), whatever the workers:
// asymmetric, negative, a non-zero diagonal, or large enough that squared
// distances overflow (ErrNotFinite). A cancelled context stops the check.
func TestMDSDistancesChecks(t *testing.T) {
	ctx := context.Background()
	const n = 300 // several tiles a side
	base := func() *mat.Dense {
		d := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				d.Set(i, j, math.Abs(float64(i-j)))
			}
		}
		return d
	}
	for _, c := range []struct {
		name string
		set  [][3]float64 // i, j, value
		want error
		pair string
	}{
		{"asymmetric and negative", [][3]float64{{250, 70, 3}, {200, 290, -1}, {290, 200, -1}, {130, 90, 41}}, engine.ErrBadSetting, "d[70,250]"},
		{"negative below the diagonal", [][3]float64{{299, 5, -2}, {280, 281, -3}, {281, 280, -3}}, engine.ErrBadSetting, "d[5,299]"},
		{"diagonal", [][3]float64{{150, 150, 1}, {200, 299, 3}}, engine.ErrBadSetting, "d[150,150]"},
		{"overflow", [][3]float64{{100, 200, 1e300}, {200, 100, 1e300}, {270, 280, 1e300}, {280, 270, 1e300}}, engine.ErrNotFinite, "d[100,200]"},
	} {
		d := base()
		for _, s := range c.set {
			d.Set(int(s[0]), int(s[1]), s[2])
		}
		_, err := engine.MDS{Dim: 2}.FitDistances(ctx, d)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.pair) {
			t.Errorf("%s: error %v, want %v naming %s", c.name, err, c.want, c.pair)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (engine.MDS{Dim: 2}).FitDistances(cancelled, base()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
