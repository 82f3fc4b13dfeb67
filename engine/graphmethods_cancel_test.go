package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/sparse"
)

// Every baseline stops with an error wrapping context.Canceled when the
// context is cancelled as one of its long stages starts, and returns soon
// after; its report names the stages with their predicted flam.
func TestGraphMethodsCancelAndStages(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 600 // -race; still above LTSA's dense limit
	}
	x, _ := datasets.SwissRoll(n, 0.05, 2)
	xs := sparse.FromDense(x)
	docs := loadBaseFixture(t, "lsi_random").A.csr()
	type fitFunc func(ctx context.Context, opt Options) (Model, error)
	cases := []struct {
		name   string
		stage  string // cancelled when it starts
		stages []string
		fit    fitFunc
	}{
		{"lpp", "svd", []string{"neighbors", "components", "weights", "center", "svd", "reduce", "eigensolve", "project", "embed"},
			func(ctx context.Context, o Options) (Model, error) { return asModelT(LPP{Options: o}.Fit(ctx, xs)) }},
		{"npe", "weights", []string{"neighbors", "weights", "center", "svd", "reduce", "eigensolve", "project", "embed"},
			func(ctx context.Context, o Options) (Model, error) { return asModelT(NPE{Options: o}.Fit(ctx, x)) }},
		{"lsi", "eigensolve", []string{"eigensolve", "project"},
			func(ctx context.Context, o Options) (Model, error) {
				return asModelT(LSI{Options: o, Eigensolver: EigenLanczos}.Fit(ctx, docs))
			}},
		{"ltsa", "eigensolve", []string{"neighbors", "tangents", "eigensolve"},
			func(ctx context.Context, o Options) (Model, error) { return asModelT(LTSA{Options: o}.Fit(ctx, x)) }},
		{"laplacian", "eigensolve", []string{"neighbors", "components", "laplacian", "eigensolve"},
			func(ctx context.Context, o Options) (Model, error) {
				return asModelT(LaplacianEigenmaps{Options: o}.Fit(ctx, x))
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := c.fit(context.Background(), Options{})
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
			_, err = c.fit(ctx, Options{Progress: func(p Progress) {
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
	o := Options{MaxBytes: 1 << 10}
	for name, fit := range map[string]func() error{
		"lpp":       func() error { _, err := LPP{Options: o}.Fit(ctx, x); return err },
		"npe":       func() error { _, err := NPE{Options: o}.Fit(ctx, x); return err },
		"lsi":       func() error { _, err := LSI{Options: o}.Fit(ctx, x); return err },
		"ltsa":      func() error { _, err := LTSA{Options: o}.Fit(ctx, x); return err },
		"laplacian": func() error { _, err := LaplacianEigenmaps{Options: o}.Fit(ctx, x); return err },
	} {
		if err := fit(); !errors.Is(err, ErrMemoryBudget) {
			t.Errorf("%s: %v, want ErrMemoryBudget", name, err)
		}
	}
}
