package engine_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/sparse"
)

// Equal to scikit-learn's SpectralEmbedding: its nearest_neighbors affinity
// (WeightConnectivity, K = n_neighbors − 1) and a precomputed heat-kernel
// kNN graph (WeightHeat, the same t). The eigenvectors are compared column
// by column — same D^{-1/2} scaling, same sign convention — and by
// Procrustes.
func TestLaplacianAgainstSklearn(t *testing.T) {
	cases := []struct {
		name   string
		weight engine.GraphWeight
	}{
		{"swiss_spectral", engine.WeightConnectivity},
		{"swiss_spectral_heat", engine.WeightHeat},
		{"yale_spectral", engine.WeightConnectivity},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := loadBaseFixture(t, c.name)
			x := f.input(t)
			want := rowsToDense(f.Embedding)
			for _, solver := range []engine.Eigensolver{engine.EigenDense, engine.EigenLanczos} {
				m := engine.MustFit(t, context.Background(), engine.LaplacianEigenmaps{Dim: f.Dim, K: f.K, Weight: c.weight, Eigensolver: solver}.Fit, x)
				if c.weight == engine.WeightHeat {
					if got := m.Report().Params["t"].(float64); math.Abs(got-f.T) > 1e-12*f.T {
						t.Errorf("heat kernel t = %v, scikit-learn fixture %v", got, f.T)
					}
				}
				d := procrustes(t, want, m.Embedding())
				e := colsUpToSign(t, want, m.Embedding())
				t.Logf("%s: disparity %.3g, largest column difference %.3g; %s", solver, d, e, stageDetail(m.Report(), "eigensolve"))
				if d > 1e-9 || e > 1e-7 {
					t.Errorf("%s: Procrustes disparity %g (> 1e-9) or column difference %g (> 1e-7) to scikit-learn", solver, d, e)
				}
			}
		})
	}
}

func stageDetail(r engine.Report, name string) string {
	s, _ := r.Stage(name)
	return s.Detail
}

// heldOut fits on all points and on all but every tenth, maps the held-out
// points with Transform and compares them, after an affine alignment of the
// two fits on the shared points, with the full fit: the out-of-sample rule
// must land the points where a fit that saw them puts them.
func heldOut(t *testing.T, fit func(x *mat.Dense) (engine.Model, error), x *mat.Dense, tol float64) {
	t.Helper()
	ctx := context.Background()
	n, d := x.Dims()
	var trainIdx, testIdx []int
	for i := 0; i < n; i++ {
		if i%10 == 5 {
			testIdx = append(testIdx, i)
		} else {
			trainIdx = append(trainIdx, i)
		}
	}
	pick := func(idx []int) *mat.Dense {
		m := mat.NewDense(len(idx), d, nil)
		for r, i := range idx {
			m.SetRow(r, x.RawRowView(i))
		}
		return m
	}
	full, err := fit(x)
	if err != nil {
		t.Fatal(err)
	}
	part, err := fit(pick(trainIdx))
	if err != nil {
		t.Fatal(err)
	}
	yt, err := part.Transform(ctx, pick(testIdx))
	if err != nil {
		t.Fatal(err)
	}
	fe := full.Embedding()
	_, dim := fe.Dims()
	// Affine map from the partial fit's coordinates to the full fit's, by
	// least squares on the training points.
	src := mat.NewDense(len(trainIdx), dim+1, nil)
	dst := mat.NewDense(len(trainIdx), dim, nil)
	pe := part.Embedding()
	for r, i := range trainIdx {
		for j := 0; j < dim; j++ {
			src.Set(r, j, pe.At(r, j))
			dst.Set(r, j, fe.At(i, j))
		}
		src.Set(r, dim, 1)
	}
	var a mat.Dense
	if err := a.Solve(src, dst); err != nil {
		t.Fatal(err)
	}
	spread := 0.0
	for j := 0; j < dim; j++ {
		col := mat.Col(nil, j, fe)
		lo, hi := col[0], col[0]
		for _, v := range col {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		spread = math.Max(spread, hi-lo)
	}
	worst, mean := 0.0, 0.0
	for r, i := range testIdx {
		for j := 0; j < dim; j++ {
			v := a.At(dim, j)
			for c := 0; c < dim; c++ {
				v += yt.At(r, c) * a.At(c, j)
			}
			e := math.Abs(v-fe.At(i, j)) / spread
			worst = math.Max(worst, e)
			mean += e
		}
	}
	mean /= float64(len(testIdx) * dim)
	t.Logf("held-out points: mean error %.3g, worst %.3g of the embedding's extent", mean, worst)
	if mean > tol {
		t.Errorf("held-out points land %.3g (mean, relative to the extent) away from the full fit's coordinates, > %g", mean, tol)
	}
}

func TestLaplacianTransform(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(800, 0.02, 9)
	for _, w := range []engine.GraphWeight{engine.WeightHeat, engine.WeightBinary} {
		heldOut(t, func(x *mat.Dense) (engine.Model, error) {
			return asModel(engine.LaplacianEigenmaps{Dim: 2, K: 10, Weight: w}.Fit(ctx, x))
		}, x, 0.03)
	}
	m := engine.MustFit(t, ctx, engine.LaplacianEigenmaps{Dim: 2, K: 10}.Fit, x)
	// Copies of training points map onto their embedding.
	checkMapsTraining(t, m, x, 0)
	checkReloaded(t, m, mat.NewDense(3, 3, []float64{1, 2, 3, -4, 5, 6, 7, 8, 0.5}))
}

func TestLaplacianBadInput(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(20, 0, 1)
	checkRefusals(t, engine.LaplacianEigenmaps.Fit, x, []refusal[engine.LaplacianEigenmaps]{
		{engine.LaplacianEigenmaps{K: 20}, engine.ErrTooFewSamples},
		{engine.LaplacianEigenmaps{K: -1}, engine.ErrBadSetting},
		{engine.LaplacianEigenmaps{Dim: 19}, engine.ErrDimension},
		{engine.LaplacianEigenmaps{Weight: "gaussian"}, engine.ErrBadSetting},
		{engine.LaplacianEigenmaps{T: -1}, engine.ErrBadSetting},
		{engine.LaplacianEigenmaps{Labels: []int{1}}, engine.ErrLabels},
		{engine.LaplacianEigenmaps{Eigensolver: "qr"}, engine.ErrBadSetting},
	})
	xx := twoRolls() // the policy applies
	if _, err := (engine.LaplacianEigenmaps{K: 5}).Fit(ctx, xx); !errors.Is(err, engine.ErrDisconnected) {
		t.Errorf("disconnected graph: %v, want ErrDisconnected", err)
	}
	m, err := engine.LaplacianEigenmaps{K: 5, Disconnected: engine.DisconnectedLargest}.Fit(ctx, xx)
	if err != nil || len(m.Kept()) != 30 || len(m.Dropped()) != 30 {
		t.Errorf("largest: %v", err)
	}
	if _, err := (engine.LaplacianEigenmaps{K: 5, Disconnected: engine.DisconnectedConnect, Weight: engine.WeightConnectivity}).Fit(ctx, xx); err != nil {
		t.Errorf("connect: %v", err)
	}
	if _, err := m.Transform(ctx, mat.NewDense(2, 2, nil)); !errors.Is(err, engine.ErrShape) {
		t.Errorf("transform with 2 features: %v", err)
	}
}

// ε-graphs, supervised graphs and sparse rows through every baseline that
// takes them: the fits run, the models map the training rows onto the
// embedding (exact copies) and other rows to finite points, in both
// storages.
func TestBaselineGraphVariants(t *testing.T) {
	ctx := context.Background()
	x, tt := datasets.SwissRoll(300, 0.02, 6)
	labels := make([]int, 300)
	for i, v := range tt {
		labels[i] = int(v) % 3
	}
	q := mat.NewDense(2, 3, []float64{1, 2, 3, 0.5, 12, -3})
	xs := sparse.FromDense(x)
	fits := map[string]func(in mat.Matrix) (engine.Model, error){
		"lpp eps": func(in mat.Matrix) (engine.Model, error) {
			return asModel(engine.LPP{Eps: 6, Weight: engine.WeightConnectivity}.Fit(ctx, in))
		},
		"npe eps": func(in mat.Matrix) (engine.Model, error) { return asModel(engine.NPE{Eps: 6}.Fit(ctx, in)) },
		"npe supervised": func(in mat.Matrix) (engine.Model, error) {
			return asModel(engine.NPE{K: 5, Labels: labels}.Fit(ctx, in))
		},
		"laplacian eps": func(in mat.Matrix) (engine.Model, error) {
			return asModel(engine.LaplacianEigenmaps{Eps: 6, Weight: engine.WeightCosine}.Fit(ctx, in))
		},
		"laplacian supervised connect": func(in mat.Matrix) (engine.Model, error) {
			return asModel(engine.LaplacianEigenmaps{K: 6, Labels: labels, Disconnected: engine.DisconnectedConnect}.Fit(ctx, in))
		},
	}
	for name, fit := range fits {
		for _, in := range []mat.Matrix{x, xs} {
			m, err := fit(in)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			y, err := m.Transform(ctx, in)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !mat.EqualApprox(y, m.Embedding(), 1e-10) {
				t.Errorf("%s: Transform of the training rows differs from the embedding", name)
			}
			if _, ok := in.(*sparse.CSR); ok {
				y, err = m.Transform(ctx, sparse.FromDense(q))
			} else {
				y, err = m.Transform(ctx, q)
			}
			if err != nil && !errors.Is(err, engine.ErrNoTransform) {
				t.Fatalf("%s: %v", name, err)
			}
			for i := 0; err == nil && i < 2; i++ {
				for j := 0; j < 2; j++ {
					if v := y.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
						t.Errorf("%s: new point %d maps to %v", name, i, mat.Formatted(y))
					}
				}
			}
		}
	}
}
