package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/enginetest"
)

// Cancelling from the progress callback at the start of each stage of OIP,
// TDPM, Low-Rank Isomap and LDA stops the fit in that stage with an error wrapping
// context.Canceled, and no later stage starts. (The last stage is short
// and has no boundary after it: a fit cancelled there may complete.)
func TestSupervisedMethodsCancellation(t *testing.T) {
	x := engine.CurvedData(300, 20, 9)
	labels := make([]int, 300)
	for i := range labels {
		labels[i] = i % 4
	}
	// The settings of each method (enginetest.Methods and Variants).
	fits := map[string]enginetest.Settings{
		"oip":          {Dim: 3, K: 8},
		"oip-operator": {Dim: 3, K: 8},
		"soip":         {Dim: 3, K: 8},
		"tdpm":         {Dim: 2, K: 10},
		"lda":          {Labels: labels},
		"lowrank-isomap": {Dim: 2, Tune: func(p any) {
			p.(*engine.LowRankIsomap).Landmarks = 5
		}},
	}
	for name, s := range fits {
		m, ok := enginetest.Lookup(name)
		if !ok {
			t.Fatalf("no method %q", name)
		}
		fit := func(ctx context.Context, o engine.Options) error {
			s := s
			s.Options = o
			_, err := m.Fit(ctx, x, s)
			return err
		}
		// The stages of an uncancelled fit.
		var stages []string
		err := fit(context.Background(), engine.Options{Progress: func(p engine.Progress) {
			if p.Done == 0 && p.Total == 0 && (len(stages) == 0 || stages[len(stages)-1] != p.Stage) {
				stages = append(stages, p.Stage)
			}
		}})
		if err != nil && !errors.Is(err, engine.ErrDimension) {
			t.Fatalf("%s: %v", name, err)
		}
		for si, stop := range stages {
			ctx, cancel := context.WithCancel(context.Background())
			var after []string
			cancelled := false
			err := fit(ctx, engine.Options{Progress: func(p engine.Progress) {
				if cancelled && p.Stage != stop {
					after = append(after, p.Stage)
				}
				if p.Stage == stop {
					cancelled = true
					cancel()
				}
			}})
			cancel()
			if !errors.Is(err, context.Canceled) && !(err == nil && si == len(stages)-1) {
				t.Errorf("%s cancelled in %s: error %v", name, stop, err)
			}
			if len(after) > 0 {
				t.Errorf("%s cancelled in %s: stages %v ran after", name, stop, after)
			}
		}
		t.Logf("%s: stages %v", name, stages)
	}
}
