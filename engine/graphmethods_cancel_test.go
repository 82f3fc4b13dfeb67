package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// Every baseline stops with an error wrapping context.Canceled when the
// context is cancelled as one of its long stages starts, and returns soon
// after; its report names the stages with their predicted flam.
func TestGraphMethodsCancelAndStages(t *testing.T) {
	n := 1500
	if testmode.Quick() {
		n = 600 // -race; still above LTSA's dense limit
	}
	x, _ := datasets.SwissRoll(n, 0.05, 2)
	xs := sparse.FromDense(x)
	docs := loadBaseFixture(t, "lsi_random").A.csr()
	// Each case: a method of enginetest at its defaults, on its input.
	cases := []struct {
		name   string // the method's name in its report
		method string // in enginetest
		input  mat.Matrix
		stage  string // cancelled when it starts
		stages []string
	}{
		{"lpp", "lpp", xs, "svd", []string{"neighbors", "components", "weights", "center", "svd", "reduce", "eigensolve", "project", "embed"}},
		{"npe", "npe", x, "weights", []string{"neighbors", "weights", "center", "svd", "reduce", "eigensolve", "project", "embed"}},
		{"lsi", "lsi-lanczos", docs, "eigensolve", []string{"eigensolve", "project"}},
		{"ltsa", "ltsa", x, "eigensolve", []string{"neighbors", "tangents", "eigensolve"}},
		{"laplacian", "laplacian", x, "eigensolve", []string{"neighbors", "components", "laplacian", "eigensolve"}},
	}
	for _, c := range cases {
		m, ok := enginetest.Lookup(c.method)
		if !ok {
			t.Fatalf("no method %q", c.method)
		}
		fit := func(ctx context.Context, o engine.Options) (engine.Model, error) {
			return m.Fit(ctx, c.input, enginetest.Settings{Options: o})
		}
		t.Run(c.name, func(t *testing.T) {
			m, err := fit(context.Background(), engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rep := m.Report()
			if rep.Method != c.name || len(rep.Stages) != len(c.stages) {
				t.Fatalf("report of %q with stages %v, want %v", rep.Method, rep.Stages, c.stages)
			}
			for i, st := range rep.Stages {
				if st.Name != c.stages[i] || !(st.FlamPredicted > 0) || st.Seconds < 0 {
					t.Errorf("stage %d: %+v, want %q with a positive flam prediction", i, st, c.stages[i])
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var at time.Time
			_, err = fit(ctx, engine.Options{Progress: func(p engine.Progress) {
				if p.Stage == c.stage && at.IsZero() {
					at = time.Now()
					cancel()
				}
			}})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			if d := time.Since(at); d > time.Second {
				t.Errorf("returned %v after the cancellation", d)
			}
		})
	}
}

// A memory budget below the estimate stops every baseline before it
// allocates, with ErrMemoryBudget.
func TestGraphMethodsMemoryBudget(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(300, 0.05, 2)
	o := engine.Options{MaxBytes: 1 << 10}
	for _, name := range []string{"lpp", "npe", "lsi", "ltsa", "laplacian"} {
		m, _ := enginetest.Lookup(name)
		fit := func() error { _, err := m.Fit(ctx, x, enginetest.Settings{Options: o}); return err }
		if err := fit(); !errors.Is(err, engine.ErrMemoryBudget) {
			t.Errorf("%s: %v, want ErrMemoryBudget", name, err)
		}
	}
}
