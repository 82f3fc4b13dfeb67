package engine_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

func TestIsomapAgainstSklearn(t *testing.T) {
	eachFixture(t, loadFixture, []string{"swiss_isomap", "yale_isomap"}, func(t *testing.T, f fixture, x *mat.Dense) {
		for _, solver := range []engine.Eigensolver{engine.EigenDense, engine.EigenLanczos} {
			for _, f32 := range []bool{false, true} {
				if f32 && solver == engine.EigenDense {
					continue
				}
				m := engine.MustFit(t, context.Background(), engine.Isomap{Dim: f.Dim, K: f.K, Eigensolver: solver, Float32: f32}.Fit, x)
				tol := 1e-6
				if f32 {
					tol = 1e-5 // geodesics rounded to float32
				}
				d := procrustes(t, rowsToDense(f.Embedding), m.Embedding())
				t.Logf("%s float32=%v: disparity %.3g", solver, f32, d)
				if d > tol {
					t.Errorf("%s float32=%v: Procrustes disparity to scikit-learn %g > %g", solver, f32, d, tol)
				}
				if f.XNew != nil {
					// Same coordinates as scikit-learn's transform, after aligning the
					// fits: compare the stacked embeddings.
					var a, b mat.Dense
					a.Stack(rowsToDense(f.Embedding), rowsToDense(f.Transform))
					b.Stack(m.Embedding(), transformed(t, m, rowsToDense(f.XNew)))
					if d := procrustes(t, &a, &b); d > tol {
						t.Errorf("%s float32=%v: transform disparity to scikit-learn %g > %g", solver, f32, d, tol)
					}
				}
			}
		}
		// Sparse rows: the neighbours searched from their entries, the same
		// embedding and Transform.
		m := engine.MustFit(t, context.Background(), engine.Isomap{Dim: f.Dim, K: f.K}.Fit, sparse.FromDense(x))
		if st := m.Report().Stages[0]; st.Name != "neighbors" || !strings.Contains(st.Detail, "sparse rows") {
			t.Errorf("sparse input: first stage %s %q, want the neighbours of sparse rows", st.Name, st.Detail)
		}
		if d := procrustes(t, rowsToDense(f.Embedding), m.Embedding()); d > 1e-6 {
			t.Errorf("sparse input: Procrustes disparity to scikit-learn %g > 1e-6", d)
		}
		if f.XNew != nil {
			var a, b mat.Dense
			a.Stack(rowsToDense(f.Embedding), rowsToDense(f.Transform))
			b.Stack(m.Embedding(), transformed(t, m, sparse.FromDense(rowsToDense(f.XNew))))
			if d := procrustes(t, &a, &b); d > 1e-6 {
				t.Errorf("sparse input: transform disparity to scikit-learn %g > 1e-6", d)
			}
		}
	})
}

// Transforming the training points reproduces their embedding; Save/Load
// keeps the mapping.
func TestIsomapTransformTrainingAndSave(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(500, 0.05, 3)
	m := engine.MustFit(t, ctx, engine.Isomap{Dim: 2, K: 8}.Fit, x)
	checkMapsTraining(t, m, x, 1e-8)
	m32 := engine.MustFit(t, ctx, engine.Isomap{Dim: 2, K: 8, Float32: true}.Fit, x)
	// τ(D_G) itself is rounded to float32, so the reproduction holds to
	// float32 precision only.
	if !mat.EqualApprox(transformed(t, m32, x), m32.Embedding(), 1e-5) {
		t.Error("float32 geodesics: Transform of the training points differs from the embedding by more than float32 rounding")
	}
	checkReloaded(t, m, x.Slice(0, 30, 0, 3))
}

// A memory budget below the float32 fit's estimate with a ring of its
// own, but above the matrix and the rest, is met by keeping the
// searches' rows inside the matrix (Isomap, and IsoProjection's
// regression): the fit runs, the report says so and estimates the ring's
// bytes less, and the embedding is the other fit's to float32 precision.
// One byte less is refused.
func TestFloat32RingInOutput(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "six Isomap and IsoProjection fits of 5000 points (memory budgets, not concurrency)")
	ctx := context.Background()
	x, _ := datasets.SwissRoll(5000, 0.05, 4)
	type fitted interface {
		Report() engine.Report
		Embedding() *mat.Dense
	}
	for _, c := range []struct {
		name string
		fit  func(budget int64) (fitted, error)
	}{
		{"isomap", func(budget int64) (fitted, error) {
			return engine.Isomap{Dim: 2, K: 10, Float32: true, Options: engine.Options{MaxBytes: budget}}.Fit(ctx, x)
		}},
		{"isoprojection", func(budget int64) (fitted, error) {
			return engine.IsoProjection{Dim: 2, K: 10, Float32: true, Options: engine.Options{MaxBytes: budget}}.Fit(ctx, x)
		}},
	} {
		detail := func(m fitted) string {
			for _, st := range m.Report().Stages {
				if st.Name == "geodesics" {
					return st.Detail
				}
			}
			t.Fatalf("%s: no geodesics stage", c.name)
			return ""
		}
		const lean = "kept in the output's last rows"
		free, err := c.fit(0)
		if err != nil {
			t.Fatal(err)
		}
		own := free.Report().EstimatedBytes
		ring := int64(8 * 5000 * (256 + 4*backend.Workers()))
		if strings.Contains(detail(free), lean) {
			t.Errorf("%s, no budget: %q", c.name, detail(free))
		}
		tight, err := c.fit(own - ring/2)
		if err != nil {
			t.Fatalf("%s, budget %d (estimate %d with its own ring): %v", c.name, own-ring/2, own, err)
		}
		if got := tight.Report().EstimatedBytes; got != own-ring || !strings.Contains(detail(tight), lean) {
			t.Errorf("%s, budget: estimate %d, want %d; stage detail %q", c.name, got, own-ring, detail(tight))
		}
		a, b := free.Embedding(), tight.Embedding()
		if !mat.EqualApprox(a, b, 1e-5*mat.Norm(a, math.Inf(1))) {
			t.Errorf("%s: the embedding with the ring in the output differs beyond float32 precision", c.name)
		}
		if _, err := c.fit(own - ring - 1); !errors.Is(err, engine.ErrMemoryBudget) {
			t.Errorf("%s, one byte under the lean estimate: error %v, want ErrMemoryBudget", c.name, err)
		}
	}
}

func TestIsomapDisconnected(t *testing.T) {
	ctx := context.Background()
	x := twoRolls() // the 5-NN graph is disconnected
	_, err := engine.Isomap{Dim: 2, K: 5}.Fit(ctx, x)
	if !errors.Is(err, engine.ErrDisconnected) {
		t.Fatalf("error %v, want ErrDisconnected", err)
	}
	for _, word := range []string{"connect", "largest"} {
		if !bytes.Contains([]byte(err.Error()), []byte(word)) {
			t.Errorf("the disconnected error does not name the %q choice: %v", word, err)
		}
	}
	m := engine.MustFit(t, ctx, engine.Isomap{Dim: 2, K: 5, Disconnected: engine.DisconnectedLargest}.Fit, x)
	if n, _ := m.Embedding().Dims(); n != 30 || len(m.Dropped()) != 30 {
		t.Errorf("largest: %d points embedded, %d dropped; want 30 and 30", n, len(m.Dropped()))
	}
	if _, err := (engine.Isomap{Dim: 2, K: 5, Disconnected: engine.DisconnectedConnect}).Fit(ctx, x); err != nil {
		t.Errorf("connect: %v", err)
	}
}

// classEach gives each of n samples a class of its own.
func classEach(n int) []int {
	l := make([]int, n)
	for i := range l {
		l[i] = i
	}
	return l
}

func TestIsomapBadInput(t *testing.T) {
	x, _ := datasets.SwissRoll(20, 0, 1)
	checkRefusals(t, engine.Isomap.Fit, x, []refusal[engine.Isomap]{
		{engine.Isomap{K: 20}, engine.ErrTooFewSamples},
		{engine.Isomap{K: -1}, engine.ErrBadSetting},
		{engine.Isomap{Dim: 20}, engine.ErrDimension},
		{engine.Isomap{Labels: []int{1, 2}}, engine.ErrLabels},
		{engine.Isomap{Labels: classEach(20)}, engine.ErrLabels}, // no edge (was: "no positive eigenvalue")
		{engine.Isomap{Eps: -1}, engine.ErrBadSetting},
		{engine.Isomap{Float32: true, Eigensolver: engine.EigenDense}, engine.ErrBadSetting},
	})
}
