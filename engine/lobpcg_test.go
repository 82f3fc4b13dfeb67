package engine_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// TestLLELOBPCGDigits: LLE's LOBPCG eigensolver against its certified
// shift-invert Lanczos on USPS digits, as they are and with 40 rows
// repeated (duplicates: weights by the regularization alone), with fewer
// landmarks than rows (2000 digits, 1000 landmarks): the same
// eigenvalues, the same embedding, and a report that says what ran.
func TestLLELOBPCGDigits(t *testing.T) {
	ctx := context.Background()
	plain := digitRows(t, 2000)
	dup := mat.DenseCopyOf(plain)
	_, d := dup.Dims()
	for i := 0; i < 40; i++ { // rows 1960… repeat rows 0…
		dup.SetRow(1960+i, plain.RawRowView(i)[:d])
	}
	for _, c := range []struct {
		name string
		x    *mat.Dense
	}{{"digits", plain}, {"duplicates", dup}} {
		t.Run(c.name, func(t *testing.T) {
			ref := engine.MustFit(t, ctx, engine.LLE{Dim: 2, K: 10, Options: engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsExact}}}.Fit, c.x)
			lob := engine.MustFit(t, ctx, engine.LLE{Dim: 2, K: 10, Eigensolver: engine.EigenLOBPCG, Options: engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsExact}}}.Fit, c.x)
			for j, v := range ref.Eigenvalues() {
				if w := lob.Eigenvalues()[j]; math.Abs(w-v) > 1e-9 {
					t.Errorf("eigenvalue %d: %.10g, certified %.10g", j, w, v)
				}
			}
			if dd := colsUpToSign(t, ref.Embedding(), lob.Embedding()); dd > 1e-4 {
				t.Errorf("embedding differs from the certified one by %.3g", dd)
			}
			var detail string
			for _, s := range lob.Report().Stages {
				if s.Name == "eigensolve" {
					detail = s.Detail
				}
			}
			for _, want := range []string{"lobpcg", "not certified", "locally linear landmarks"} {
				if !strings.Contains(detail, want) {
					t.Errorf("eigensolve detail %q lacks %q", detail, want)
				}
			}
		})
	}
}

// TestLLELOBPCGDeterministic: the same bits at GOMAXPROCS 1, 2 and 8.
func TestLLELOBPCGDeterministic(t *testing.T) {
	ctx := context.Background()
	x := digitRows(t, 1500)
	fit := func() *mat.Dense {
		return engine.MustFit(t, ctx, engine.LLE{Eigensolver: engine.EigenLOBPCG, Seed: 3}.Fit, x).Embedding()
	}
	var y1 *mat.Dense
	withProcs(1, 1, func() { y1 = fit() })
	for _, p := range []int{2, 8} {
		withProcs(p, 1, func() {
			if y := fit(); !mat.Equal(y, y1) {
				t.Errorf("GOMAXPROCS %d: embedding %.3g from GOMAXPROCS 1", p, maxAbsDiff(y, y1))
			}
		})
	}
}

// TestLLELOBPCGOnlyLLE: the other bottom eigenproblems refuse the setting.
func TestLLELOBPCGOnlyLLE(t *testing.T) {
	ctx := context.Background()
	x := digitRows(t, 300)
	if _, err := (engine.LTSA{Eigensolver: engine.EigenLOBPCG}).Fit(ctx, x); !errors.Is(err, engine.ErrBadSetting) {
		t.Errorf("LTSA with lobpcg: %v, want ErrBadSetting", err)
	}
	if _, err := (engine.LaplacianEigenmaps{Eigensolver: engine.EigenLOBPCG}).Fit(ctx, x); !errors.Is(err, engine.ErrBadSetting) {
		t.Errorf("Laplacian eigenmaps with lobpcg: %v, want ErrBadSetting", err)
	}
}

// TestLLELOBPCGCancel: cancelled during its iterations, the fit returns
// within 100 ms.
func TestLLELOBPCGCancel(t *testing.T) {
	x := digitRows(t, 4000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var at time.Time
	s := engine.LLE{Eigensolver: engine.EigenLOBPCG}
	s.Progress = func(p engine.Progress) {
		if p.Stage == "eigensolve" && at.IsZero() {
			at = time.Now()
			go func() { time.Sleep(30 * time.Millisecond); cancel() }()
		}
	}
	_, err := s.Fit(ctx, x)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if late := time.Since(at) - 30*time.Millisecond; late > 100*time.Millisecond {
		t.Errorf("returned %v after the cancel", late)
	}
}
