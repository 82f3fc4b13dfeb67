package engine

import (
	"context"
	"errors"
	"testing"
)

// Cancelling from the progress callback at the start of each stage of OIP,
// TDPM, Low-Rank Isomap and LDA stops the fit in that stage with an error wrapping
// context.Canceled, and no later stage starts. (The last stage is short
// and has no boundary after it: a fit cancelled there may complete.)
func TestSupervisedMethodsCancellation(t *testing.T) {
	x := curvedData(300, 20, 9)
	labels := make([]int, 300)
	for i := range labels {
		labels[i] = i % 4
	}
	fits := map[string]func(ctx context.Context, o Options) error{
		"oip": func(ctx context.Context, o Options) error {
			_, err := OIP{Dim: 3, K: 8, Options: o}.Fit(ctx, x)
			return err
		},
		"oip-operator": func(ctx context.Context, o Options) error {
			_, err := OIP{Dim: 3, K: 8, Solver: OIPOperator, Options: o}.Fit(ctx, x)
			return err
		},
		"soip": func(ctx context.Context, o Options) error {
			_, err := SOIP{Dim: 3, K: 8, Options: o}.Fit(ctx, x)
			return err
		},
		"tdpm": func(ctx context.Context, o Options) error {
			_, err := TDPM{Dim: 2, K: 10, Options: o}.Fit(ctx, x)
			return err
		},
		"lda": func(ctx context.Context, o Options) error {
			_, err := LDA{Labels: labels, Options: o}.Fit(ctx, x)
			return err
		},
		"lowrank-isomap": func(ctx context.Context, o Options) error {
			_, err := LowRankIsomap{Dim: 2, Landmarks: 5, Options: o}.Fit(ctx, x)
			return err
		},
	}
	for name, fit := range fits {
		// The stages of an uncancelled fit.
		var stages []string
		err := fit(context.Background(), Options{Progress: func(p Progress) {
			if p.Done == 0 && p.Total == 0 && (len(stages) == 0 || stages[len(stages)-1] != p.Stage) {
				stages = append(stages, p.Stage)
			}
		}})
		if err != nil && !errors.Is(err, ErrDimension) {
			t.Fatalf("%s: %v", name, err)
		}
		for si, stop := range stages {
			ctx, cancel := context.WithCancel(context.Background())
			var after []string
			cancelled := false
			err := fit(ctx, Options{Progress: func(p Progress) {
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
